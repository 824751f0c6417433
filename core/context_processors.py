from django.conf import settings

from core.roles import is_host, is_organizer


def site(request):
    user = getattr(request, "user", None)
    # Callables: the template calls them only when the menu asks (no query on other renders).
    return {
        "SITE_NAME": settings.SITE_NAME,
        "nav_is_organizer": lambda: is_organizer(user),
        "nav_is_host": lambda: is_host(user),
    }
