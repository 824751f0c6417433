from django.urls import path

import core.converters  # noqa: F401  (registers <id:...>, ids within the BigAutoField range)
from kingofhill import api, views

app_name = "kingofhill"

api_urls = [
    path("api/games/", api.CreateAPI.as_view(), name="api_create"),
    path("api/games/<id:game_id>/state/", api.PublicStateAPI.as_view(), name="api_state"),
    path("api/games/<id:game_id>/host/state/", api.HostStateAPI.as_view(),
         name="api_host_state"),
    path("api/games/<id:game_id>/team/state/", api.TeamStateAPI.as_view(),
         name="api_team_state"),
    path("api/games/<id:game_id>/record/", api.RecordAPI.as_view(), name="api_record"),
    path("api/games/<id:game_id>/start/", api.StartAPI.as_view(), name="api_start"),
    path("api/games/<id:game_id>/announce/", api.AnnounceAPI.as_view(), name="api_announce"),
    path("api/games/<id:game_id>/close/", api.CloseAPI.as_view(), name="api_close"),
    path("api/games/<id:game_id>/judge/", api.JudgeAPI.as_view(), name="api_judge"),
    path("api/games/<id:game_id>/groups/merge/", api.GroupsMergeAPI.as_view(),
         name="api_groups_merge"),
    path("api/games/<id:game_id>/groups/split/", api.GroupsSplitAPI.as_view(),
         name="api_groups_split"),
    path("api/games/<id:game_id>/groups/apart/", api.GroupsApartAPI.as_view(),
         name="api_groups_apart"),
    path("api/games/<id:game_id>/verdict/", api.VerdictAPI.as_view(), name="api_verdict"),
    path("api/games/<id:game_id>/partner/", api.PartnerAPI.as_view(), name="api_partner"),
    path("api/games/<id:game_id>/hosts/", api.HostsAPI.as_view(), name="api_hosts"),
    path("api/games/<id:game_id>/countdown/", api.CountdownAPI.as_view(), name="api_countdown"),
    path("api/games/<id:game_id>/countdown/pause/", api.CountdownPauseAPI.as_view(),
         name="api_countdown_pause"),
    path("api/games/<id:game_id>/countdown/resume/", api.CountdownResumeAPI.as_view(),
         name="api_countdown_resume"),
    path("api/games/<id:game_id>/countdown/adjust/", api.CountdownAdjustAPI.as_view(),
         name="api_countdown_adjust"),
    path("api/games/<id:game_id>/answers-after-zero/", api.AnswersAfterZeroAPI.as_view(),
         name="api_answers_after_zero"),
    path("api/games/<id:game_id>/reveal/", api.RevealAPI.as_view(), name="api_reveal"),
    path("api/games/<id:game_id>/screens/", api.ScreensAPI.as_view(), name="api_screens"),
    path("api/games/<id:game_id>/bank/", api.BankAPI.as_view(), name="api_bank"),
    path("api/games/<id:game_id>/bank/edit/", api.BankEditAPI.as_view(), name="api_bank_edit"),
    path("api/games/<id:game_id>/bank/move/", api.BankMoveAPI.as_view(), name="api_bank_move"),
    path("api/games/<id:game_id>/declare/", api.DeclareAPI.as_view(), name="api_declare"),
    path("api/games/<id:game_id>/answer/", api.AnswerAPI.as_view(), name="api_answer"),
    path("api/games/<id:game_id>/appeal/", api.AppealAPI.as_view(), name="api_appeal"),
    path("api/games/<id:game_id>/appeal/accept/", api.AppealAcceptAPI.as_view(),
         name="api_appeal_accept"),
    path("api/games/<id:game_id>/appeal/reject/", api.AppealRejectAPI.as_view(),
         name="api_appeal_reject"),
]

page_urls = [
    path("", views.index, name="index"),
    path("new/", views.create, name="create"),
    path("<id:game_id>/host/", views.host, name="host"),
    path("<id:game_id>/hosts/", views.hosts, name="hosts"),
    path("<id:game_id>/questions/", views.question_bank, name="bank"),
    path("<id:game_id>/play/", views.play, name="play"),
    path("<id:game_id>/projector/", views.projector, name="projector"),
    path("<id:game_id>/questions/<int:number>/image/<str:screen>/", views.question_image,
         name="question_image"),
]

urlpatterns = api_urls + page_urls
