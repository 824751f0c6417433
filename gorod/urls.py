from django.urls import path

import core.converters  # noqa: F401  (registers <id:...>, ids within the BigAutoField range)
from gorod import api, views

app_name = "gorod"

api_urls = [
    path("api/games/", api.CreateAPI.as_view(), name="api_create"),
    path("api/games/<id:game_id>/state/", api.PublicStateAPI.as_view(), name="api_state"),
    path("api/games/<id:game_id>/organizer/state/", api.OrganizerStateAPI.as_view(),
         name="api_organizer_state"),
    path("api/games/<id:game_id>/team/state/", api.TeamStateAPI.as_view(),
         name="api_team_state"),
    path("api/games/<id:game_id>/record/", api.RecordAPI.as_view(), name="api_record"),
    path("api/games/<id:game_id>/routes/", api.RoutesAPI.as_view(), name="api_routes"),
    path("api/games/<id:game_id>/start/", api.StartAPI.as_view(), name="api_start"),
    path("api/games/<id:game_id>/end/", api.EndAPI.as_view(), name="api_end"),
    path("api/games/<id:game_id>/pause/", api.PauseAPI.as_view(), name="api_pause"),
    path("api/games/<id:game_id>/resume/", api.ResumeAPI.as_view(), name="api_resume"),
    path("api/games/<id:game_id>/end-force-majeure/", api.EndForceMajeureAPI.as_view(),
         name="api_end_force_majeure"),
    path("api/games/<id:game_id>/rulings/", api.RulingAPI.as_view(), name="api_ruling"),
    path("api/games/<id:game_id>/leaderboard/", api.LeaderboardAPI.as_view(),
         name="api_leaderboard"),
    path("api/games/<id:game_id>/rulings/<id:ruling_id>/", api.RulingEditAPI.as_view(),
         name="api_ruling_edit"),
    path("api/games/<id:game_id>/rulings/<id:ruling_id>/undo/", api.RulingUndoAPI.as_view(),
         name="api_ruling_undo"),
    path("api/games/<id:game_id>/timeouts/<id:request_id>/", api.TimeoutDecideAPI.as_view(),
         name="api_timeout_decide"),
    path("api/games/<id:game_id>/photos/<id:photo_id>/", api.PhotoDecideAPI.as_view(),
         name="api_photo_decide"),
    path("api/games/<id:game_id>/messages/", api.MessageAPI.as_view(), name="api_message"),
    path("api/games/<id:game_id>/messages/seen/", api.MessagesSeenAPI.as_view(),
         name="api_messages_seen"),
    path("api/games/<id:game_id>/code/", api.CodeAPI.as_view(), name="api_code"),
    path("api/games/<id:game_id>/timeout/", api.TimeoutAskAPI.as_view(), name="api_timeout"),
    path("api/games/<id:game_id>/photo/", api.PhotoAPI.as_view(), name="api_photo"),
    path("api/games/<id:game_id>/checkin/", api.CheckInAPI.as_view(), name="api_checkin"),
    path("api/games/<id:game_id>/alarms/<id:application_id>/acknowledge/",
         api.AlarmAcknowledgeAPI.as_view(), name="api_alarm_acknowledge"),
]

page_urls = [
    path("", views.index, name="index"),
    path("setup/", views.setup_index, name="setup_index"),
    path("<id:game_id>/setup/", views.setup, name="setup"),
    path("<id:game_id>/", views.manage, name="manage"),
    path("<id:game_id>/play/", views.play, name="play"),
    path("<id:game_id>/statistics/", views.statistics, name="statistics"),
    path("<id:game_id>/statistics.csv", views.statistics_csv, name="statistics_csv"),
    path("<id:game_id>/statistics.xlsx", views.statistics_xlsx, name="statistics_xlsx"),
    path("<id:game_id>/images/<str:name>", views.task_image, name="task_image"),
    path("<id:game_id>/play/images/<str:level>/<str:name>", views.team_image,
         name="team_image"),
    path("<id:game_id>/photos/<id:photo_id>", views.photo, name="photo"),
    path("<id:game_id>/scenario.yaml", views.scenario_download, {"fmt": "yaml"},
         name="scenario_yaml"),
    path("<id:game_id>/scenario.json", views.scenario_download, {"fmt": "json"},
         name="scenario_json"),
]

urlpatterns = api_urls + page_urls
