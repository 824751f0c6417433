from django.urls import path

from teams import api, views

app_name = "teams"

api_urls = [
    path("api/teams/", api.TeamListAPI.as_view(), name="api_teams"),
    path("api/teams/<int:pk>/", api.TeamDetailAPI.as_view(), name="api_team"),
    path("api/teams/<int:pk>/members/", api.MemberListAPI.as_view(), name="api_members"),
    path(
        "api/teams/<int:pk>/members/<int:member_pk>/",
        api.MemberDetailAPI.as_view(),
        name="api_member",
    ),
    path("api/teams/<int:pk>/ledger/", api.TeamLedgerAPI.as_view(), name="api_ledger"),
    path("api/teams/<int:pk>/notices/", api.TeamNoticesAPI.as_view(), name="api_notices"),
    path("api/teams/<int:pk>/bans/", api.TeamBansAPI.as_view(), name="api_team_bans"),
    path("api/bans/<int:pk>/", api.BanDetailAPI.as_view(), name="api_ban"),
    path("api/games/", api.GameListAPI.as_view(), name="api_games"),
    path("api/games/<int:pk>/", api.GameDetailAPI.as_view(), name="api_game"),
    path("api/games/<int:pk>/cancel/", api.GameCancelAPI.as_view(), name="api_game_cancel"),
    path(
        "api/games/<int:pk>/applications/",
        api.GameApplicationsAPI.as_view(),
        name="api_game_applications",
    ),
    path("api/games/<int:game_id>/join/", api.JoinPinAPI.as_view(), name="api_join_pin"),
    path("api/games/<int:game_id>/entry/", api.EntryAPI.as_view(), name="api_entry"),
    path("api/join/", api.JoinTokenAPI.as_view(), name="api_join_token"),
    path("api/applications/<int:pk>/", api.ApplicationDetailAPI.as_view(), name="api_application"),
    path("api/applications/<int:pk>/approve/", api.application_approve, name="api_approve"),
    path("api/applications/<int:pk>/reject/", api.application_reject, name="api_reject"),
    path("api/applications/<int:pk>/paid/", api.application_paid, name="api_paid"),
    path("api/applications/<int:pk>/revoke-join/", api.application_revoke, name="api_revoke"),
    path("api/applications/<int:pk>/withdraw/", api.application_withdraw, name="api_withdraw"),
]

page_urls = [
    path("", views.my_teams, name="my_teams"),
    path("all/", views.team_list_public, name="public_list"),
    path("<int:pk>/", views.team_detail, name="team_detail"),
    path("<int:pk>/rename/", views.team_rename, name="team_rename"),
    path("<int:pk>/members/add/", views.member_add, name="member_add"),
    path("<int:pk>/members/<int:member_pk>/", views.member_edit, name="member_edit"),
    path("<int:pk>/members/<int:member_pk>/delete/", views.member_delete, name="member_delete"),
    path("<int:pk>/apply/<int:game_pk>/", views.apply, name="apply"),
    path("<int:pk>/ban/", views.ban_create, name="ban_create"),
    path("bans/<int:pk>/lift/", views.ban_lift, name="ban_lift"),
    path(
        "applications/<int:pk>/withdraw/",
        views.application_withdraw,
        name="application_withdraw",
    ),
    path(
        "applications/<int:pk>/<slug:action>/",
        views.application_action,
        name="application_action",
    ),
    path("games/", views.games, name="games"),
    path("games/<int:pk>/", views.game_manage, name="game_manage"),
    path("games/<int:pk>/cancel/", views.game_cancel, name="game_cancel"),
    path("games/<int:pk>/sheet/", views.join_sheet, name="join_sheet"),
    path("games/<int:pk>/pin-budget/lift/", views.pin_budget_lift, name="pin_budget_lift"),
    path("join/", views.join, name="join"),
    path("j/<str:token>/", views.join_token, name="join_token"),
    path("play/<int:game_pk>/", views.playing, name="playing"),
    path("play/<int:game_pk>/leave/", views.leave, name="leave"),
]

urlpatterns = api_urls + page_urls
