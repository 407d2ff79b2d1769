from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class BlogConfig(AppConfig):
    name = "blog"
    verbose_name = _("Blog")
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self):
        import blog.content_signals  # noqa: F401  (the content version follows changes)

        from . import signals  # noqa: F401  (connects the search index's receivers)
