from django.urls import path

import core.converters  # noqa: F401  (registers <id:...>)
from core import api, views

app_name = "core"
urlpatterns = [
    path("", views.home, name="home"),
    path("healthz", views.healthz, name="healthz"),
    path("announce/", views.announce, name="announce"),
    path("backup/", views.backup, name="backup"),
    path("favicon.ico", views.favicon, name="favicon"),
    path("accounts/lockouts/", views.lockouts, name="lockouts"),
    path("audit/", views.audit_game, name="audit"),
    path("api/audit/", api.AuditAPI.as_view(), name="api_audit"),
    path("audit/games/<id:game_id>/", views.audit_game, name="audit_game"),
    path("api/audit/games/<id:game_id>/", api.AuditAPI.as_view(), name="api_audit_game"),
]
