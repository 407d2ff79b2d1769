"""Measure search latency on a generated blog of realistic size, in a database of its own.

    python -m benchmarks search                      # /tmp/biji-bench.sqlite3
    python -m benchmarks search --database-url postgres://postgres@127.0.0.1:5432/bench

The database is migrated, filled once with ``--notes`` generated notes (Chinese and English,
2-6 KB of text each, the same for the same ``--seed``) and indexed with the same code as
``rebuild_search_index``; later runs reuse it. Each query of :data:`QUERIES` is then run
through :func:`blog.search.query.search`, what the search page calls: parsing, ranking, the
page's notes with series and tags, highlighted snippets. Not a test: timings depend on the
machine. A database holding notes that this command did not make is refused without --force.
"""

import os
import random
import statistics
import time
from datetime import timedelta

import dj_database_url
from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError
from django.core.paginator import Paginator
from django.db import connections
from django.utils import timezone
from django.utils.html import escape

from blog.models import Language, Note, Status, Tag, TaggedNote
from blog.public.pagination import get_page
from blog.search import sql
from blog.search.index import rebuild
from blog.search.query import PER_PAGE, load_results, ranked_ids
from blog.search.text import parse_query

ALIAS = "search_benchmark"
SLUG_PREFIX = "bench-"
DEFAULT_FILE = "/tmp/biji-bench.sqlite3"  # noqa: S108 (a scratch database, by design)

# (query, page): one- and two-character Chinese, English in any case, phrases, mixed, a miss.
QUERIES = [
    ("调", 1),
    ("调度", 1),
    ("调度", 5),
    ("算子", 1),
    ("并行计算", 1),
    ("cuBLAS", 1),
    ("cublas", 1),
    ("H100", 1),
    ('"FlashAttention 3"', 1),
    ("FlashAttention 3", 1),
    ("H100 调度", 1),
    ("kernel 融合 decode", 1),
    ("the", 1),
    ("3", 1),
    ("共享内存 bank conflict", 1),
    ("量子纠缠", 1),
    ("kubernetes", 1),
    ("a调", 1),  # short, mixed: no index can look it up, every note's text is read
]

ZH_TERMS = (
    "调度 算子 内核 显存 带宽 张量 并行计算 流水线 推理 训练 量化 注意力 矩阵乘法 线程块 "
    "共享内存 寄存器 编译器 延迟 吞吐量 批处理 缓存 同步 异步 通信 分布式 梯度 精度 向量化 "
    "访存 融合 调优 采样 解码 预填充 队列 负载均衡 数据布局 分块 调用 占用率 指令 算力"
).split()
ZH_WORDS = (
    "我们 这个 因为 所以 可以 需要 通过 实现 问题 方法 结果 时候 进行 比较 发现 使用 提高 "
    "减少 性能 一个 的 了 在 是 和 上 中 把 对 就 也 都 还 更 很 这样 那么 其实 首先 然后 "
    "最后 如果 但是 已经 没有 不是 每个 所有 部分 情况 时间 数据 模型 系统 设计 代码"
).split()
EN_TERMS = (
    "cuBLAS CUTLASS H100 A100 GEMM kernel warp SM Tensor-Core CUDA-Graph NCCL PagedAttention "
    "vLLM SGLang Triton PyTorch KV-cache prefill decode throughput latency occupancy "
    "shared-memory bank-conflict FlashAttention-2 MRV2 scheduler batch 3 128 fp8 bf16"
).split()
RARE_TERMS = ["FlashAttention-3 的 FP8 路径", "FlashAttention 3", "cuBLASLt epilogue", "H100 SXM"]
EN_WORDS = (
    "the a we this that is are to of in on with for when because so it can should was were "
    "then each every more less than only also into from by as at be has have not but which "
    "our its one two first next time work step result memory data model code loop"
).split()
TAGS = [
    ("GPU", "GPU"), ("CUDA", "CUDA"), ("Scheduling", "调度"), ("Inference", "推理"),
    ("Training", "训练"), ("Parallel computing", "并行计算"), ("Compilers", "编译器"),
    ("Attention", "注意力"), ("Quantization", "量化"), ("Distributed", "分布式"),
    ("Performance", "性能"), ("Essays", "随笔"), ("Courses", "课程"), ("Memory", "内存"),
    ("Kernels", "内核"), ("Networking", "网络"), ("Databases", "数据库"), ("Reading", "阅读"),
]  # fmt: skip


class _Topic:
    """What one note is about: a few terms it keeps coming back to, as real notes do."""

    def __init__(self, rng):
        self.rng = rng
        self.zh = rng.sample(ZH_TERMS, 6)
        self.en = rng.sample(EN_TERMS, 5)

    def zh_term(self):
        return self.rng.choice(self.zh if self.rng.random() < 0.95 else ZH_TERMS)

    def en_term(self):
        term = self.rng.choice(self.en if self.rng.random() < 0.95 else EN_TERMS)
        return term.replace("-", " ") if self.rng.random() < 0.5 else term

    def zh_sentence(self):
        rng, words = self.rng, []
        for _ in range(rng.randint(8, 22)):
            roll = rng.random()
            if roll < 0.7:
                words.append(rng.choice(ZH_WORDS))
            elif roll < 0.92:
                words.append(self.zh_term())
            else:
                words.append(f" {self.en_term()} ")
            if rng.random() < 0.08:
                words.append("，")
        return "".join(words).strip() + "。"

    def en_sentence(self):
        rng, words = self.rng, []
        for _ in range(rng.randint(10, 26)):
            roll = rng.random()
            words.append(rng.choice(EN_WORDS) if roll < 0.8 else self.en_term())
            if roll > 0.985:
                words.append(self.zh_term())
        return " ".join(words).capitalize() + "."


def generate_note(rng, number, now):
    topic = _Topic(rng)
    chinese = rng.random() < 0.6
    sentence, glue = (topic.zh_sentence, "") if chinese else (topic.en_sentence, " ")
    target = rng.randint(2000, 6000)  # bytes of UTF-8 text
    paragraphs, size = [], 0
    while size < target:
        paragraph = glue.join(sentence() for _ in range(rng.randint(2, 6)))
        paragraphs.append(paragraph)
        size += len(paragraph.encode())
    if rng.random() < 0.02:  # a rare term, in about 2% of the notes
        paragraphs.insert(rng.randrange(len(paragraphs)), rng.choice(RARE_TERMS) + glue)
    text = "\n\n".join(paragraphs)
    if chinese:
        title = f"{topic.zh_term()}与{topic.zh_term()}：{topic.en_term()} 笔记 {number}"
    else:
        title = f"Notes on {topic.en_term()} and {topic.en_term()}, part {number}"
    roll = rng.random()
    status = Status.DRAFT if roll < 0.06 else Status.PUBLISHED
    published_at = now - timedelta(minutes=rng.randint(1, 5 * 365 * 24 * 60))
    if 0.06 <= roll < 0.08:
        published_at = now + timedelta(days=rng.randint(1, 60))  # scheduled
    plain = " ".join(text.split())
    return Note(
        title=title,
        slug=f"{SLUG_PREFIX}{number}",
        language=Language.CHINESE if chinese else Language.ENGLISH,
        body=text,
        body_html="".join(f"<p>{escape(p)}</p>" for p in paragraphs),
        plain_text=plain,
        excerpt=plain[:120] + "…",
        word_count=len(plain) // 3,
        reading_minutes=max(1, len(plain) // 900),
        status=status,
        published_at=published_at if status == Status.PUBLISHED or roll < 0.03 else None,
    )


def _percentile(samples, fraction):
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, max(0, round(fraction * len(ordered)) - 1))]


def search(raw_query, page_number=1, per_page=PER_PAGE, using="default"):
    """(parsed query, page of results): what the search page computes for one request."""
    query = parse_query(raw_query)
    page = get_page(Paginator(ranked_ids(query, using), per_page), page_number)
    page.object_list = load_results(page.object_list, query, using)
    return query, page


class Command(BaseCommand):
    help = "Fill a separate database with generated notes and report search latency."

    def add_arguments(self, parser):
        where = parser.add_mutually_exclusive_group()
        where.add_argument("--database-file", default=DEFAULT_FILE, help="SQLite file")
        where.add_argument("--database-url", help="e.g. postgres://user@host:5432/bench")
        parser.add_argument("--notes", type=int, default=10_000)
        parser.add_argument("--runs", type=int, default=30, help="timed runs per query")
        parser.add_argument("--seed", type=int, default=4)
        parser.add_argument("--regenerate", action="store_true", help="new notes even if there")
        parser.add_argument("--force", action="store_true", help="use a database with notes")

    def handle(self, *args, **options):
        url = options["database_url"] or f"sqlite:///{options['database_file']}"
        self._connect(url)
        call_command("migrate", database=ALIAS, verbosity=0, interactive=False)
        notes = Note.objects.using(ALIAS)
        if notes.exclude(slug__startswith=SLUG_PREFIX).exists() and not options["force"]:
            raise CommandError(
                f"{url} holds notes that this benchmark did not make; refusing to touch them. "
                "Point it at a scratch database, or pass --force."
            )
        existing = notes.filter(slug__startswith=SLUG_PREFIX).count()
        if options["regenerate"] or existing != options["notes"]:
            self._fill(options["notes"], options["seed"])
        self._report(url, options["runs"])

    def _connect(self, url):
        database = dj_database_url.parse(url)
        if database["ENGINE"] == settings.DATABASES["default"]["ENGINE"]:
            database["OPTIONS"] = dict(settings.DATABASES["default"].get("OPTIONS", {}))
        configured = connections.configure_settings(
            {"default": settings.DATABASES["default"], ALIAS: database}
        )
        settings.DATABASES[ALIAS] = connections.settings[ALIAS] = configured[ALIAS]

    def _fill(self, count, seed):
        started = time.perf_counter()
        Note.objects.using(ALIAS).filter(slug__startswith=SLUG_PREFIX).delete()
        rng, now = random.Random(seed), timezone.now()  # noqa: S311 (reproducible, not secret)
        tags = [
            Tag.objects.using(ALIAS).get_or_create(name=en, defaults={"name_zh": zh})[0]
            for en, zh in TAGS
        ]
        for start in range(0, count, 1000):
            batch = [generate_note(rng, n, now) for n in range(start, min(count, start + 1000))]
            created = Note.objects.using(ALIAS).bulk_create(batch)
            if not all(note.pk for note in created):  # databases that return no ids
                created = Note.objects.using(ALIAS).filter(slug__in=[n.slug for n in batch])
            TaggedNote.objects.using(ALIAS).bulk_create(
                TaggedNote(content_object=note, tag=tag)
                for note in created
                for tag in rng.sample(tags, rng.randint(1, 4))
            )
        indexed = rebuild(using=ALIAS)
        if connections[ALIAS].vendor == "postgresql":
            with connections[ALIAS].cursor() as cursor:
                sql.analyze(cursor)  # every table, as autovacuum does soon after a bulk load
        self.stdout.write(
            f"Generated and indexed {indexed} notes in {time.perf_counter() - started:.1f} s."
        )

    def _report(self, url, runs):
        notes = Note.objects.using(ALIAS)
        connection = connections[ALIAS]
        text_mb = sum(len(t.encode()) for t in notes.values_list("plain_text", flat=True)) / 1e6
        self.stdout.write(
            f"{connection.vendor} {connection.Database.__name__} at {url}: {notes.count()} notes "
            f"({notes.published().count()} published), {text_mb:.1f} MB of text; "
            f"{runs} runs per query after 3 warm-up runs. Milliseconds:"
        )
        header = f"{'query':<28} {'page':>4} {'found':>6} {'p50':>7} {'p95':>7} {'max':>7}"
        self.stdout.write(header)
        everything = []
        for raw, page_number in QUERIES:
            for _ in range(3):
                search(raw, page_number, using=ALIAS)
            samples = []
            for _ in range(runs):
                started = time.perf_counter()
                _query, page = search(raw, page_number, using=ALIAS)
                samples.append((time.perf_counter() - started) * 1000)
            everything += samples
            self.stdout.write(
                f"{raw:<28} {page_number:>4} {page.paginator.count:>6} "
                f"{statistics.median(samples):>7.2f} {_percentile(samples, 0.95):>7.2f} "
                f"{max(samples):>7.2f}"
            )
        self.stdout.write(
            f"{'all queries':<28} {'':>4} {'':>6} {statistics.median(everything):>7.2f} "
            f"{_percentile(everything, 0.95):>7.2f} {max(everything):>7.2f}"
        )
        # Wall-clock times: on a busy machine they say as much about the others' work.
        load = ", ".join(f"{value:.2f}" for value in os.getloadavg())
        self.stdout.write(f"Load average after the run: {load} ({os.cpu_count()} CPUs).")
