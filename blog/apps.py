from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class BlogConfig(AppConfig):
    name = "blog"
    verbose_name = _("Blog")
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self):
        # What a change sets off, wired once the models are loaded: the models import neither
        # the caches nor the search index that follow them. One table lists it all.
        from blog import reactions

        reactions.connect()
