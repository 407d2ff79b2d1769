"""Demo data that is not a note or a page: series, tags, site settings and navigation, named by slug
in the notes' front matter."""

SERIES = [
    {
        "slug": "gpu-notes",
        "title_zh": "GPU 笔记",
        "title_en": "GPU notes",
        "description": (
            "读 kernel、读论文、读 profiler 输出时记下的笔记：warp 调度、FlashAttention、"
            "推理引擎的调度，以及一篇译文。\n\n"
            "*Notes from reading kernels, papers and profiler output.*"
        ),
    },
    {
        "slug": "parallel-computing",
        "title_zh": "并行计算",
        "title_en": "Parallel computing",
        "description": (
            "一门并行计算课程的复习笔记：加速比与 **Amdahl 定律**、并行编程模型、"
            "缓存一致性。按课程顺序排列。\n\n"
            "*Revision notes for a parallel computing course, in lecture order.*"
        ),
    },
    {
        "slug": "essays",
        "title_zh": "随笔",
        "title_en": "Personal essays",
        "description": ("不写代码的时候写下的东西。\n\n*What I write when I am not writing code.*"),
    },
]

# (slug, English name, Chinese name)
TAGS = [
    ("gpu", "GPU", "GPU"),
    ("cuda", "CUDA", "CUDA"),
    ("scheduling", "Scheduling", "调度"),
    ("kernels", "Kernels", "算子"),
    ("attention", "Attention", "注意力"),
    ("parallel-computing", "Parallel computing", "并行计算"),
    ("compilers", "Compilers", "编译器"),
    ("inference", "Inference", "推理"),
    ("essays", "Essays", "随笔"),
    ("translation", "Translation", "翻译"),
    ("math", "Math", "数学"),
    ("python", "Python", "Python"),
    ("profiling", "Profiling", "性能分析"),
    ("course-notes", "Course notes", "课程笔记"),
    ("life", "Life", "生活"),
]

SITE = {
    "title": "笔记 biji",
    "tagline_zh": "GPU、系统与生活的笔记",
    "tagline_en": "Notes on GPUs, systems and the rest of life",
    "author": "林舟 Lin Zhou",
    "description": (
        "林舟的双语笔记：CUDA 与 GPU 算子、推理引擎、并行计算课程笔记、译文和随笔。"
        " Bilingual notes on CUDA kernels, inference engines, parallel computing and life."
    ),
    # The footer is one text for both interfaces: the author's name, which reads the same in
    # either. The page adds the licence line and the translated feed links itself
    # (templates/base.html); the licence is also in each note's citation data and Markdown.
    "footer": "© 2025–2026 林舟 Lin Zhou",
    "licence": "CC BY-NC-SA 4.0",
    "licence_url": "https://creativecommons.org/licenses/by-nc-sa/4.0/",
}

# (position, Chinese label, English label, URL)
NAVIGATION = [
    (1, "系列", "Series", "/series/"),
    (2, "标签", "Tags", "/tags/"),
    (3, "归档", "Archive", "/archive/"),
    (4, "关于", "About", "/pages/about/"),
]
