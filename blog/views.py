from django.http import HttpResponse
from django.views.generic import TemplateView


def robots_txt(request):
    return HttpResponse("", content_type="text/plain")


class _Todo(TemplateView):
    template_name = "base.html"


HomeView = NoteDetailView = NoteShareView = TagListView = TagDetailView = _Todo
SeriesListView = SeriesDetailView = ArchiveIndexView = YearArchiveView = _Todo
MonthArchiveView = PageDetailView = _Todo
