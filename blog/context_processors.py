from .models import SiteSettings


def site(request):
    settings_row, navigation = SiteSettings.load()
    return {"site": settings_row, "navigation": navigation}
