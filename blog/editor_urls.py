from django.urls import path

from . import editor

app_name = "editor"

urlpatterns = [
    path("preview/", editor.preview, name="preview"),
    path("upload/", editor.upload, name="upload"),
]
