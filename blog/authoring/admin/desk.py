"""What the admins of the author's texts share: the Markdown editor, web addresses without a
scheme taken as https, and the desk's stylesheet and script."""

from django.db import models
from markdownx.models import MarkdownxField

from blog.authoring.markdown_widget import MarkdownEditorWidget
from blog.text.validators import WEB_ADDRESS_MESSAGE

MARKDOWN_EDITOR = {MarkdownxField: {"widget": MarkdownEditorWidget}}
# A source URL typed without a scheme means https (Django 6's default, adopted now).
HTTPS_URLS = {
    models.URLField: {"assume_scheme": "https", "error_messages": {"invalid": WEB_ADDRESS_MESSAGE}}
}


class AuthorDeskMedia:
    """On every page of the notes and pages admin (the list too): editor.js clears the autosaved
    text once the page after a save reports success."""

    css = {"all": ["css/admin-desk.css"]}
    js = ["js/editor.js"]
