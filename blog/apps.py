from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class BlogConfig(AppConfig):
    name = "blog"
    verbose_name = _("Blog")
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self):
        # Receivers are wired here, once the models are loaded: the models import neither
        # the caches nor the search index that follow them.
        from blog.authoring import term_warnings
        from blog.background import term_rerender
        from blog.caching import receivers as caching_receivers
        from blog.images import card_tasks, variant_tasks
        from blog.mail import webhooks as mail_webhooks
        from blog.mail import websub
        from blog.models import revisions
        from blog.search import receivers as search_receivers

        caching_receivers.connect()
        search_receivers.connect()
        term_rerender.connect()  # a glossary change re-renders the notes it concerns
        term_warnings.connect()  # a translation's term warnings follow both notes and terms
        variant_tasks.connect()  # a new cover image is registered (size, variants)
        card_tasks.connect()  # share cards follow what they show
        websub.connect()  # the WebSub hub hears of published notes (after the version's bump)
        mail_webhooks.connect()  # a provider's bounces and complaints turn addresses off
        revisions.register_models()
