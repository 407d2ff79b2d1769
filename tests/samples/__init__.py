"""Small real-shaped sites for the import tests: Hexo, Hugo, Jekyll and a WordPress export.

The text is committed; the images are drawn with Pillow when a test copies a sample (see
:func:`copy_sample`), so the repository holds no binary files.
"""

import shutil
from pathlib import Path

from PIL import Image

HERE = Path(__file__).resolve().parent

IMAGES = {
    "hexo": ["source/_posts/flashattention/tiling.png"],
    "hugo": ["content/posts/warp-scheduling/cover.png", "content/posts/warp-scheduling/sm.png"],
    "jekyll": ["assets/speedup.png"],
    "wordpress": [
        "wp-content/uploads/2025/08/featured.png",
        "wp-content/uploads/2025/08/pipeline.png",
    ],
}


def copy_sample(name, destination):
    """Copy sample ``name`` to ``destination`` and draw its images; return the copy's path."""
    target = Path(destination) / name
    shutil.copytree(HERE / name, target)
    for index, relative in enumerate(IMAGES[name]):
        path = target / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        Image.new("RGB", (16 + index, 9), (30 * index, 120, 200)).save(path, "PNG")
    return target
