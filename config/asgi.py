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
