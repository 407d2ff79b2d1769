"""The glossary term's form: a form another term already has is refused, with a link to it.
Two terms with one form would both claim it in a note's marks, search and the glossary's list.
"""

from django import forms
from django.urls import reverse
from django.utils.html import format_html
from django.utils.translation import gettext as _

from blog.models import Term


class TermForm(forms.ModelForm):
    class Meta:
        model = Term
        fields = [
            *("chinese", "english", "slug", "keep_in_english", "chinese_variants"),
            *("english_variants", "definition_zh", "definition_en", "explained_in"),
        ]

    def _post_clean(self):
        super()._post_clean()
        for field, form, other in self.instance.clashes():
            if field in self.fields:
                self.add_error(field, clash_message(form, other))


def clash_message(form, other):
    return format_html(
        _(
            '“{form}” is a form of “<a href="{url}">{other}</a>” already: add what you meant '
            "to that term, or type another form here."
        ),
        form=form,
        url=reverse("admin:blog_term_change", args=[other.pk]),
        other=str(other),
    )
