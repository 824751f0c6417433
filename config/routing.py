"""WebSocket routes of every app, in one place for ``config.asgi``."""

from django.urls import path

from core.consumers import SiteConsumer

websocket_urlpatterns = [
    path("ws/site/", SiteConsumer.as_asgi()),
]
