"""The site's fediverse actor of the reader's language, for the links in every page's head
(``rel="me"``: the site and the actor are one; ``alternate``: the actor's document, which
Mastodon's search follows from a pasted address); "" while ``BIJI_FEDIVERSE`` is off."""

from django import template
from django.utils import translation

from blog.fediverse.ids import linked_actor

register = template.Library()


@register.simple_tag
def fediverse_actor():
    return linked_actor(translation.get_language())
