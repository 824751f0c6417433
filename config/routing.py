"""WebSocket routes of every app, in one place for ``config.asgi``."""

from django.urls import path, re_path

import core.converters  # noqa: F401  (registers <id:...>, ids within the BigAutoField range)
from core.consumers import SiteConsumer
from core.sockets import NotFoundConsumer

websocket_urlpatterns = [
    path("ws/site/", SiteConsumer.as_asgi()),
]

from kingofhill import consumers as koth_consumers  # noqa: E402

websocket_urlpatterns += [
    path("ws/koth/<id:game_id>/public/", koth_consumers.PublicConsumer.as_asgi()),
    path("ws/koth/<id:game_id>/host/", koth_consumers.HostConsumer.as_asgi()),
    path("ws/koth/<id:game_id>/team/", koth_consumers.TeamConsumer.as_asgi()),
]

from gorod import consumers as gorod_consumers  # noqa: E402

websocket_urlpatterns += [
    path("ws/gorod/<id:game_id>/public/", gorod_consumers.PublicConsumer.as_asgi()),
    path("ws/gorod/<id:game_id>/organizer/", gorod_consumers.OrganizerConsumer.as_asgi()),
    path("ws/gorod/<id:game_id>/team/", gorod_consumers.TeamConsumer.as_asgi()),
]

# Last: any other path (or an id out of range) is accepted and closed with 4404, not a 500.
websocket_urlpatterns += [re_path(r"", NotFoundConsumer.as_asgi())]
