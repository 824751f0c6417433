from django.conf import settings

from core.roles import is_organizer
from core.selectors import latest_announcement


def site(request):
    # Callables: the template calls them only where it uses them (base.html), so pages
    # rendered without the banner or the header pay no query.
    return {
        "SITE_NAME": settings.SITE_NAME,
        "LATEST_ANNOUNCEMENT": latest_announcement,
        "CAN_ANNOUNCE": lambda: is_organizer(request.user),
    }
