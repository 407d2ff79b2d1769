from django.http import HttpResponse


def preview(request):
    return HttpResponse(status=403)


def upload(request):
    return HttpResponse(status=403)
