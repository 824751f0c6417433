"""WebSocket routes of every app, in one place for ``config.asgi``."""

from django.urls import path

from core.consumers import SiteConsumer

websocket_urlpatterns = [
    path("ws/site/", SiteConsumer.as_asgi()),
]

from kingofhill import consumers as koth_consumers  # noqa: E402

websocket_urlpatterns += [
    path("ws/koth/<int:game_id>/public/", koth_consumers.PublicConsumer.as_asgi()),
    path("ws/koth/<int:game_id>/host/", koth_consumers.HostConsumer.as_asgi()),
    path("ws/koth/<int:game_id>/team/", koth_consumers.TeamConsumer.as_asgi()),
]

from gorod import consumers as gorod_consumers  # noqa: E402

websocket_urlpatterns += [
    path("ws/gorod/<int:game_id>/public/", gorod_consumers.PublicConsumer.as_asgi()),
    path("ws/gorod/<int:game_id>/organizer/", gorod_consumers.OrganizerConsumer.as_asgi()),
    path("ws/gorod/<int:game_id>/team/", gorod_consumers.TeamConsumer.as_asgi()),
]
