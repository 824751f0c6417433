from django.conf import settings

from core.roles import is_host, is_organizer
from core.selectors import latest_announcement


def site(request):
    user = getattr(request, "user", None)
    # Callables: the template calls them only where it uses them (base.html, the menu), so
    # pages rendered without the banner or the header pay no query.
    return {
        "SITE_NAME": settings.SITE_NAME,
        "LATEST_ANNOUNCEMENT": latest_announcement,
        "nav_is_organizer": lambda: is_organizer(user),
        "nav_is_host": lambda: is_host(user),
    }
