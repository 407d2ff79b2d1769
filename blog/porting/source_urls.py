"""The Markdown sources' URLs (:mod:`.source_views`), mounted under i18n_patterns beside the
public pages by config/urls.py: /… in Chinese, /en/… in English."""

from django.urls import path

from blog.porting import source_views

app_name = "markdown"

urlpatterns = [
    path("notes/<slug:slug>/index.md", source_views.note_source, name="note"),
    path("llms.txt", source_views.llms_index, name="llms-txt"),
    path("llms-full.txt", source_views.llms_full, name="llms-full-txt"),
]
