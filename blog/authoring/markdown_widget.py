"""The Markdown editor's widget: the textarea with a translated toolbar, a preview frame that
loads the public stylesheet and scripts, an autosave key and a place for upload errors.
``static/js/editor.js`` drives it; without JavaScript it is a plain textarea.
"""

import json

from django import forms
from django.urls import NoReverseMatch, reverse
from django.utils.html import format_html
from django.utils.translation import gettext as _
from markdownx.widgets import AdminMarkdownxWidget

# (action, label, shortcut as aria-keyshortcuts spells it)
TOOLBAR = [
    ("bold", lambda: _("Bold"), "Control+B"),
    ("link", lambda: _("Link"), "Control+K"),
    ("code", lambda: _("Code block"), "Control+Alt+C"),
    ("math", lambda: _("Math"), "Control+Alt+M"),
    ("image", lambda: _("Image"), "Control+Alt+I"),
    ("table", lambda: _("Table"), "Control+Alt+T"),
    ("footnote", lambda: _("Footnote"), "Control+Alt+F"),
    ("toc", lambda: _("Table of contents"), "Control+Alt+O"),
]


def editor_texts():
    """What editor.js says, in the admin's language (it has no catalogue of its own)."""
    return {
        "bold": _("bold text"),
        "link": _("link text"),
        "language": _("language"),
        "code": _("code"),
        "alt": _("describe the image"),
        "footnote": _("footnote text"),
        "column": _("Column"),
        "cell": _("cell"),
        "uploading": _("Uploading the image…"),
        "uploadFailed": _("The image could not be uploaded. Try again."),
        "restorePrompt": _("This browser kept text you had not saved (%(time)s)."),
        "restore": _("Restore it"),
        "discard": _("Discard it"),
        "restored": _("Unsaved text restored."),
    }


def _preview_urls():
    try:
        return reverse("admin:blog_note_editor_frame"), reverse("admin:blog_note_editor_preview")
    except NoReverseMatch:  # the admin is not mounted (a form used on its own)
        return "", ""


class MarkdownEditorWidget(AdminMarkdownxWidget):
    """The Markdown textarea with toolbar, preview frame and upload messages. editor.js owns it
    instead of markdownx's script; markdownx's class and attributes stay, so its upload endpoint
    setting still applies."""

    def __init__(self, attrs=None, language_field="language"):
        super().__init__(attrs)
        self.language_field = language_field

    @property
    def media(self):
        return forms.Media(
            css={"all": ["css/editor-preview.css", "css/admin-desk.css"]}, js=["js/editor.js"]
        )

    # markdownx's template wraps the textarea in div.markdownx with a preview div for its own
    # script, which is not loaded: the textarea alone, with markdownx's attributes.
    template_name = "django/forms/widgets/textarea.html"

    def render(self, name, value, attrs=None, renderer=None):
        attrs = {**(attrs or {}), "data-editor-field": name}
        textarea = super().render(name, value, attrs, renderer)
        frame_url, preview_url = _preview_urls()
        buttons = format_html(
            "".join(
                '<button type="button" class="editor-button" data-action="{}" '
                'aria-keyshortcuts="{}" title="{} ({})">{}</button>'
                for _item in TOOLBAR
            ),
            *[
                part
                for action, label, keys in TOOLBAR
                for part in (action, keys, label(), keys.replace("Control", "Ctrl"), label())
            ],
        )
        return format_html(
            '<div class="biji-editor" data-preview-url="{preview}" data-frame-url="{frame}" '
            'data-language-field="{language}" data-texts="{texts}">'
            '<div class="editor-toolbar" role="toolbar" aria-label="{toolbar}" '
            'aria-controls="{id}">{buttons}'
            '<input type="file" class="editor-file" accept="image/jpeg,image/png,image/webp,'
            'image/gif" hidden tabindex="-1" aria-hidden="true"></div>'
            '<div class="editor-autosave" role="status" hidden></div>'
            '<p class="editor-message errornote" role="alert" hidden></p>'
            '<div class="editor-panes">{textarea}'
            '<iframe class="editor-preview" title="{preview_title}" src="{frame}" '
            'tabindex="-1"></iframe></div></div>',
            preview=preview_url,
            frame=frame_url,
            language=self.language_field,
            texts=json.dumps(editor_texts(), ensure_ascii=False),
            toolbar=_("Markdown formatting"),
            id=attrs.get("id", ""),
            buttons=buttons,
            textarea=textarea,
            preview_title=_("Preview as readers will see it"),
        )
