from django.urls import path

from blog.authoring.editor import views as editor

app_name = "editor"

urlpatterns = [
    path("upload/", editor.upload, name="upload"),
]
