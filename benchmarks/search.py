"""Measure the search page at a realistic size, in a database of its own.

    python -m benchmarks search                      # /tmp/biji-bench.sqlite3
    python -m benchmarks search --database-url postgres://postgres@127.0.0.1:5432/bench

The database is migrated, filled once with ``--notes`` generated notes (Chinese and English,
2-6 KB of text each, one in twenty in a translated pair, the same for the same ``--seed``),
indexed with the same code as
``rebuild_search_index``, and given ``--terms`` glossary terms (:data:`GLOSSARY`, the GPU and
parallel-computing terms the notes keep using, then made-up ones of the same shape, with
Chinese and English forms and variants); later runs reuse it. Each query of :data:`QUERIES`
is then asked for as a reader does: the results page, rendered in this process through
Django's test client (middleware, view, template; the embedded cache), ``--runs`` times after
3 warm-up runs, and once more counting its SQL queries, warm and right after a change (the
content version moved: the page reads the site settings and the glossary again). Not a test:
timings depend on the machine. A database holding notes or terms this command did not make is
refused without --force.
"""

import os
import platform
import random
import re
import statistics
import tempfile
import time
from datetime import timedelta
from pathlib import Path

import dj_database_url
from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError
from django.db import connections
from django.test import Client, override_settings
from django.test.utils import CaptureQueriesContext
from django.utils import timezone
from django.utils.html import escape

from blog.caching import version as content_version
from blog.models import Language, Note, Status, Tag, TaggedNote, Term
from blog.search import sql
from blog.search.index import rebuild

ALIAS = "default"  # the pages read the default database: it is pointed at the benchmark's
SLUG_PREFIX = "bench-"
DEFAULT_FILE = "/tmp/biji-bench.sqlite3"  # noqa: S108 (a scratch database, by design)
STATIC_DIR = Path(tempfile.gettempdir()) / "biji-search-bench-static"

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
    # Glossary terms: every form of the term in either language is looked for.
    ("线程束", 1),  # a Chinese form: finds the notes that say "warp"
    ("occupancy", 1),  # and the ones that only say 占用率
    ("shared memory", 1),  # two unquoted words that are one form
    ("SM 占用率", 1),  # two terms: (SM or 流式多处理器...) and (占用率 or occupancy)
    ("wgmma", 1),  # a variant's spelling, in no note
    ("occupancy", 1, "en"),  # the English interface: pairs shown in English
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
# The glossary of the notes' own vocabulary: (English, Chinese, English variants, Chinese
# variants, keep in English), as an author would keep it.
GLOSSARY = [
    ("warp", "线程束", "", "warp 束", True),
    ("occupancy", "占用率", "", "", False),
    ("shared memory", "共享内存", "smem", "", False),
    ("thread block", "线程块", "CTA\nblock", "", False),
    ("kernel", "内核", "", "核函数", True),
    ("scheduling", "调度", "scheduler", "", False),
    ("operator", "算子", "op", "", False),
    ("GPU memory", "显存", "VRAM\ndevice memory", "", False),
    ("bandwidth", "带宽", "", "", False),
    ("tensor", "张量", "", "", False),
    ("parallel computing", "并行计算", "", "", False),
    ("pipeline", "流水线", "pipelining", "", False),
    ("inference", "推理", "", "", False),
    ("training", "训练", "", "", False),
    ("quantization", "量化", "", "", False),
    ("attention", "注意力", "", "注意力机制", False),
    ("matrix multiplication", "矩阵乘法", "GEMM\nmatmul", "矩阵乘", True),
    ("register", "寄存器", "", "", False),
    ("compiler", "编译器", "", "", False),
    ("latency", "延迟", "", "时延", False),
    ("throughput", "吞吐量", "", "吞吐", False),
    ("batching", "批处理", "batch", "", True),
    ("cache", "缓存", "", "", False),
    ("synchronization", "同步", "sync", "", False),
    ("asynchronous", "异步", "async", "", False),
    ("communication", "通信", "", "", False),
    ("distributed", "分布式", "", "", False),
    ("gradient", "梯度", "", "", False),
    ("precision", "精度", "", "", False),
    ("vectorization", "向量化", "", "", False),
    ("memory access", "访存", "", "内存访问", False),
    ("fusion", "融合", "kernel fusion", "算子融合", False),
    ("tuning", "调优", "", "", False),
    ("sampling", "采样", "", "", False),
    ("decoding", "解码", "decode", "", True),
    ("prefill", "预填充", "", "", True),
    ("queue", "队列", "", "", False),
    ("load balancing", "负载均衡", "", "", False),
    ("data layout", "数据布局", "layout", "", False),
    ("tiling", "分块", "", "", False),
    ("instruction", "指令", "", "", False),
    ("compute", "算力", "", "", False),
    ("bank conflict", "bank 冲突", "", "存储体冲突", True),
    ("tensor core", "", "TensorCore", "", True),
    ("CUDA Graph", "CUDA 图", "", "", True),
    ("KV cache", "KV 缓存", "", "", True),
    ("streaming multiprocessor", "流式多处理器", "SM", "", True),
    ("WGMMA", "", "wgmma", "", True),
    ("PagedAttention", "分页注意力", "", "", True),
    ("throughput-latency trade-off", "吞吐与延迟的权衡", "", "", False),
]
# Made-up terms of the same shape fill the glossary up to --terms: a modifier and a noun.
MODIFIERS = [
    ("persistent", "持久化"),
    ("asynchronous", "异步"),
    ("fused", "融合"),
    ("tiled", "分块"),
    ("mixed-precision", "混合精度"),
    ("sparse", "稀疏"),
    ("dense", "稠密"),
    ("batched", "批量"),
    ("pipelined", "流水化"),
    ("distributed", "分布式"),
    ("quantized", "量化"),
    ("vectorized", "向量化"),
    ("speculative", "推测"),
    ("paged", "分页"),
    ("grouped", "分组"),
    ("strided", "跨步"),
    ("coalesced", "合并"),
    ("cooperative", "协作"),
    ("dynamic", "动态"),
    ("hierarchical", "分层"),
    ("warp-level", "warp 级"),
    ("block-level", "线程块级"),
]
NOUNS = [
    ("kernel", "内核"), ("GEMM", "矩阵乘"), ("reduction", "归约"), ("scan", "扫描"),
    ("attention", "注意力"), ("all-reduce", "全归约"), ("copy", "拷贝"), ("load", "加载"),
    ("store", "存储"), ("barrier", "屏障"), ("scheduler", "调度器"), ("allocator", "分配器"),
    ("layout", "布局"), ("convolution", "卷积"), ("softmax", "softmax 计算"), ("prefetch", "预取"),
    ("transpose", "转置"), ("sort", "排序"), ("histogram", "直方图"), ("queue", "队列"),
    ("launch", "启动"), ("graph", "计算图"), ("tensor", "张量"), ("buffer", "缓冲区"),
]  # fmt: skip
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


def _pair_translations():
    """Every twentieth published note links the next one as its translation when that one is
    in the other language: a bilingual blog's pairs (the results show a pair once)."""
    rows = Note.objects.published().filter(slug__startswith=SLUG_PREFIX).order_by("pk")
    published = list(rows.values_list("pk", "language"))
    for (first, first_language), (second, second_language) in zip(
        published[::20], published[1::20], strict=False
    ):
        if first_language != second_language:
            Note.objects.filter(pk=first).update(translation_id=second)


def _percentile(samples, fraction):
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, max(0, round(fraction * len(ordered)) - 1))]


def glossary_terms(count):
    """``count`` terms: :data:`GLOSSARY`, then made-up ones (every fourth with variants)."""
    rows = list(GLOSSARY)
    made_up = [(m, n) for n in NOUNS for m in MODIFIERS]
    for number, ((en_mod, zh_mod), (en_noun, zh_noun)) in enumerate(made_up):
        english, chinese = f"{en_mod} {en_noun}", f"{zh_mod}{zh_noun}"
        variants = number % 4 == 0
        rows.append(
            (
                english,
                chinese,
                f"{en_mod}-{en_noun}s" if variants else "",
                f"{zh_mod}的{zh_noun}" if variants else "",
                False,
            )
        )
    return [
        Term(
            slug=f"{SLUG_PREFIX}term-{number}",
            english=" ".join(english.split()),
            chinese="".join(chinese.split()),  # as Term.save() keeps it (bulk_create skips it)
            english_variants=english_variants,
            chinese_variants=chinese_variants,
            keep_in_english=keep,
            definition_en=f"What *{english or chinese}* means.",
            definition_en_html=f"<p>What <em>{escape(english or chinese)}</em> means.</p>",
        )
        for number, (english, chinese, english_variants, chinese_variants, keep) in enumerate(
            rows[:count]
        )
    ]


def _search_url(raw, page_number, interface):
    prefix = "/en" if interface == "en" else ""
    return f"{prefix}/search/", {"q": raw, "page": page_number}


class Command(BaseCommand):
    help = "Fill a separate database with generated notes and terms; report search page times."

    def add_arguments(self, parser):
        where = parser.add_mutually_exclusive_group()
        where.add_argument("--database-file", default=DEFAULT_FILE, help="SQLite file")
        where.add_argument("--database-url", help="e.g. postgres://user@host:5432/bench")
        parser.add_argument("--notes", type=int, default=10_000)
        parser.add_argument("--terms", type=int, default=500, help="glossary terms")
        parser.add_argument("--runs", type=int, default=30, help="timed runs per query")
        parser.add_argument("--seed", type=int, default=4)
        parser.add_argument("--regenerate", action="store_true", help="new notes even if there")
        parser.add_argument("--force", action="store_true", help="use a database with notes")

    def handle(self, *args, **options):
        url = options["database_url"] or f"sqlite:///{options['database_file']}"
        self._connect(url)
        # The embedded cache, as a default deployment has, and never a shared server's; the
        # static files' manifest, as the pages are served.
        with override_settings(
            CACHES={"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}},
            STATIC_ROOT=STATIC_DIR,
        ):
            call_command("migrate", verbosity=0, interactive=False)
            self._refuse_foreign_data(url, options["force"])
            notes = Note.objects.filter(slug__startswith=SLUG_PREFIX)
            made_before_pairs = not notes.filter(translation__isnull=False).exists()
            if options["regenerate"] or notes.count() != options["notes"] or made_before_pairs:
                self._fill(options["notes"], options["seed"])
            terms = Term.objects.filter(slug__startswith=SLUG_PREFIX)
            if options["regenerate"] or terms.count() != options["terms"]:
                self._fill_glossary(options["terms"])
            call_command("collectstatic", interactive=False, verbosity=0)
            self._report(url, options["runs"])

    def _connect(self, url):
        """Point the default database at ``url``: the pages measured read it."""
        database = dj_database_url.parse(url)
        if database["ENGINE"] == settings.DATABASES["default"]["ENGINE"]:
            database["OPTIONS"] = dict(settings.DATABASES["default"].get("OPTIONS", {}))
        if database["ENGINE"].endswith("postgresql"):  # what the settings give biji's own
            database["OPTIONS"] = {**settings.POSTGRESQL_OPTIONS, **database.get("OPTIONS", {})}
        connections.close_all()
        configured = connections.configure_settings({ALIAS: database})
        settings.DATABASES[ALIAS] = connections.settings[ALIAS] = configured[ALIAS]
        if hasattr(connections._connections, ALIAS):
            delattr(connections._connections, ALIAS)

    def _refuse_foreign_data(self, url, force):
        foreign = (
            Note.objects.exclude(slug__startswith=SLUG_PREFIX).exists()
            or Term.objects.exclude(slug__startswith=SLUG_PREFIX).exists()
        )
        if foreign and not force:
            raise CommandError(
                f"{url} holds notes or terms that this benchmark did not make; refusing to "
                "touch them. Point it at a scratch database, or pass --force."
            )

    def _fill(self, count, seed):
        started = time.perf_counter()
        Note.objects.filter(slug__startswith=SLUG_PREFIX).delete()
        rng, now = random.Random(seed), timezone.now()  # noqa: S311 (reproducible, not secret)
        tags = [Tag.objects.get_or_create(name=en, defaults={"name_zh": zh})[0] for en, zh in TAGS]
        for start in range(0, count, 1000):
            batch = [generate_note(rng, n, now) for n in range(start, min(count, start + 1000))]
            created = Note.objects.bulk_create(batch)
            if not all(note.pk for note in created):  # databases that return no ids
                created = Note.objects.filter(slug__in=[n.slug for n in batch])
            TaggedNote.objects.bulk_create(
                TaggedNote(content_object=note, tag=tag)
                for note in created
                for tag in rng.sample(tags, rng.randint(1, 4))
            )
        _pair_translations()
        indexed = rebuild(using=ALIAS)
        if connections[ALIAS].vendor == "postgresql":
            with connections[ALIAS].cursor() as cursor:
                sql.analyze(cursor)  # every table, as autovacuum does soon after a bulk load
        content_version.bump(ALIAS)  # bulk_create sends no signals
        self.stdout.write(
            f"Generated and indexed {indexed} notes in {time.perf_counter() - started:.1f} s."
        )

    def _fill_glossary(self, count):
        Term.objects.filter(slug__startswith=SLUG_PREFIX).delete()
        Term.objects.bulk_create(glossary_terms(count))
        content_version.bump(ALIAS)  # bulk_create sends no signals
        self.stdout.write(f"Made {Term.objects.count()} glossary terms.")

    def _report(self, url, runs):
        notes = Note.objects.all()
        connection = connections[ALIAS]
        text_mb = sum(len(t.encode()) for t in notes.values_list("plain_text", flat=True)) / 1e6
        self.stdout.write(
            f"{connection.vendor} {connection.Database.__name__} at {url}: {notes.count()} notes "
            f"({notes.published().count()} published), {text_mb:.1f} MB of text, "
            f"{Term.objects.count()} glossary terms; {platform.python_implementation()} "
            f"{platform.python_version()}, {_cpu_name()} ({os.cpu_count()} CPUs). The results "
            f"page in process, {runs} runs per query after 3 warm-up runs. Milliseconds:"
        )
        self.stdout.write(
            f"{'query':<26} {'ui':<3} {'page':>4} {'found':>6} {'p50':>7} {'p95':>7} "
            f"{'max':>7} {'queries':>8}"
        )
        client = Client(HTTP_HOST="127.0.0.1")
        everything = []
        for raw, page_number, *interface in QUERIES:
            interface = interface[0] if interface else "zh"
            path, params = _search_url(raw, page_number, interface)
            for _ in range(3):
                client.get(path, params)
            samples = []
            for _ in range(runs):
                started = time.perf_counter()
                response = client.get(path, params)
                samples.append((time.perf_counter() - started) * 1000)
            assert response.status_code == 200, (raw, response.status_code)
            everything += samples
            counts = self._queries(client, path, params)
            found = _found(response.content.decode())
            self.stdout.write(
                f"{raw:<26} {interface:<3} {page_number:>4} {found:>6} "
                f"{statistics.median(samples):>7.2f} {_percentile(samples, 0.95):>7.2f} "
                f"{max(samples):>7.2f} {counts:>8}"
            )
        self.stdout.write(
            f"{'all queries':<26} {'':<3} {'':>4} {'':>6} {statistics.median(everything):>7.2f} "
            f"{_percentile(everything, 0.95):>7.2f} {max(everything):>7.2f}"
        )
        # Wall-clock times: on a busy machine they say as much about the others' work.
        load = ", ".join(f"{value:.2f}" for value in os.getloadavg())
        self.stdout.write(
            "queries: SQL queries of one page, warm / after a change (the content version "
            f"moved). Load average after the run: {load} ({os.cpu_count()} CPUs)."
        )

    def _queries(self, client, path, params):
        """``"warm/changed"``: the page's SQL queries, then again once the version moved."""
        connection = connections[ALIAS]
        with CaptureQueriesContext(connection) as warm:
            client.get(path, params)
        content_version.bump(ALIAS)
        with CaptureQueriesContext(connection) as changed:
            client.get(path, params)
        return f"{len(warm.captured_queries)}/{len(changed.captured_queries)}"


def _found(html):
    """The page's "N notes found": the test client keeps no context outside tests."""
    match = re.search(r'class="search-count"[^>]*>\D*([\d,]+)', html)
    return int(match.group(1).replace(",", "")) if match else 0


def _cpu_name():
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()
