"""Where the notes' Markdown sources are (blog/porting/markdown_source.py), for the links in the
pages' heads; nothing while ``BIJI_LLMS_TXT`` is off, so no page links to a 404."""

from django import template
from django.conf import settings
from django.urls import reverse
from django.utils import translation

from blog.text.slug_urls import slug_path

register = template.Library()


@register.simple_tag
def note_source_path(note):
    """The path of a published note's source, in its own language's interface (the one its
    llms.txt entries name); "" for a draft or a scheduled note, which has none."""
    if not settings.BIJI_LLMS_TXT or not note.is_published():
        return ""
    with translation.override(note.language):
        return slug_path("markdown:note", note.slug)


@register.simple_tag
def llms_txt_paths():
    """``(llms.txt, llms-full.txt)`` of the current interface, or None."""
    if not settings.BIJI_LLMS_TXT:
        return None
    return reverse("markdown:llms-txt"), reverse("markdown:llms-full-txt")
