import gc
import os

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

from django.conf import settings  # noqa: E402
from django.core.asgi import get_asgi_application as stock_asgi_application  # noqa: E402

from core.handlers import get_asgi_application as pooled_asgi_application  # noqa: E402

# Django's own handler with STOCK_INTERNALS (config.settings); else the pooled one.
django_asgi_app = (stock_asgi_application if settings.STOCK_INTERNALS
                   else pooled_asgi_application)()

from channels.auth import AuthMiddlewareStack  # noqa: E402
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402

from config.routing import websocket_urlpatterns  # noqa: E402
from core.origins import SameOriginValidator  # noqa: E402
from core.scheduler import InProcessScheduler  # noqa: E402

# In the embedded default the server runs the time-driven jobs itself (core.scheduler).
application = InProcessScheduler(ProtocolTypeRouter(
    {
        "http": django_asgi_app,
        # Same origin, port included (core.origins); then the session and user; then the routes.
        "websocket": SameOriginValidator(AuthMiddlewareStack(URLRouter(websocket_urlpatterns))),
    }
))

# The collector, once the app is built (GC_THRESHOLDS, docs/performance.md "The collector"):
# thousands of open sockets keep hundreds of thousands of objects alive, and with Python's own
# thresholds a fan-out to 5 000 of them waited on collections of them all (p95 0.93-0.95 s
# against 0.33-0.44 s). The start-up's objects (modules, models, URL patterns) are frozen out
# of the collections, and a collection is due every 10 000 allocations, not 700, and of the
# older objects every 20, not 10 (the whole heap as often relative to those as Python's own).
if settings.GC_THRESHOLDS is not None:
    gc.freeze()
    gc.set_threshold(*settings.GC_THRESHOLDS)
