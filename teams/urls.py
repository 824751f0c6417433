from django.urls import path

import core.converters  # noqa: F401  (registers <id:...>, ids within the BigAutoField range)
from teams import api, profile_api, profile_views, views

app_name = "teams"

api_urls = [
    path("api/teams/", api.TeamListAPI.as_view(), name="api_teams"),
    path("api/teams/<id:pk>/", api.TeamDetailAPI.as_view(), name="api_team"),
    path("api/teams/<id:pk>/members/", api.MemberListAPI.as_view(), name="api_members"),
    path(
        "api/teams/<id:pk>/members/<id:member_pk>/",
        api.MemberDetailAPI.as_view(),
        name="api_member",
    ),
    path("api/teams/<id:pk>/members/<id:member_pk>/profile/", profile_api.MemberProfileAPI.as_view(),
         name="api_member_profile"),
    path("api/teams/<id:pk>/members/<id:member_pk>/merge/", profile_api.MemberMergeAPI.as_view(),
         name="api_member_merge"),
    path("api/invites/claim/", profile_api.InviteClaimAPI.as_view(), name="api_invite_claim"),
    path("api/teams/<id:pk>/ledger/", api.TeamLedgerAPI.as_view(), name="api_ledger"),
    path("api/teams/<id:pk>/notices/", api.TeamNoticesAPI.as_view(), name="api_notices"),
    path("api/teams/<id:pk>/bans/", api.TeamBansAPI.as_view(), name="api_team_bans"),
    path("api/bans/<id:pk>/", api.BanDetailAPI.as_view(), name="api_ban"),
    path("api/games/", api.GameListAPI.as_view(), name="api_games"),
    path("api/games/<id:pk>/", api.GameDetailAPI.as_view(), name="api_game"),
    path("api/games/<id:pk>/cancel/", api.GameCancelAPI.as_view(), name="api_game_cancel"),
    path(
        "api/games/<id:pk>/applications/",
        api.GameApplicationsAPI.as_view(),
        name="api_game_applications",
    ),
    path("api/games/<id:game_id>/join/", api.JoinPinAPI.as_view(), name="api_join_pin"),
    path("api/games/<id:game_id>/entry/", api.EntryAPI.as_view(), name="api_entry"),
    path("api/join/", api.JoinTokenAPI.as_view(), name="api_join_token"),
    path("api/applications/<id:pk>/", api.ApplicationDetailAPI.as_view(), name="api_application"),
    path("api/applications/<id:pk>/approve/", api.application_approve, name="api_approve"),
    path("api/applications/<id:pk>/reject/", api.application_reject, name="api_reject"),
    path("api/applications/<id:pk>/paid/", api.application_paid, name="api_paid"),
    path("api/applications/<id:pk>/revoke-join/", api.application_revoke, name="api_revoke"),
    path("api/applications/<id:pk>/withdraw/", api.application_withdraw, name="api_withdraw"),
]

page_urls = [
    path("", views.my_teams, name="my_teams"),
    path("all/", views.team_list_public, name="public_list"),
    path("all/<id:pk>/", views.team_public, name="team_public"),
    path("<id:pk>/", views.team_detail, name="team_detail"),
    path("<id:pk>/rename/", views.team_rename, name="team_rename"),
    path("<id:pk>/members/add/", views.member_add, name="member_add"),
    path("<id:pk>/members/<id:member_pk>/", views.member_edit, name="member_edit"),
    path("<id:pk>/members/<id:member_pk>/delete/", views.member_delete, name="member_delete"),
    path("<id:pk>/members/<id:member_pk>/link/", profile_views.member_link, name="member_link"),
    path("<id:pk>/members/<id:member_pk>/unlink/", profile_views.member_unlink,
         name="member_unlink"),
    path("<id:pk>/members/<id:member_pk>/merge/", profile_views.member_merge,
         name="member_merge"),
    path("invite/<str:token>/", profile_views.invite, name="invite"),
    path("<id:pk>/apply/<id:game_pk>/", views.apply, name="apply"),
    path("<id:pk>/ban/", views.ban_create, name="ban_create"),
    path("bans/<id:pk>/lift/", views.ban_lift, name="ban_lift"),
    path(
        "applications/<id:pk>/withdraw/",
        views.application_withdraw,
        name="application_withdraw",
    ),
    path(
        "applications/<id:pk>/<slug:action>/",
        views.application_action,
        name="application_action",
    ),
    path("games/", views.games, name="games"),
    path("games/<id:pk>/", views.game_manage, name="game_manage"),
    path("games/<id:pk>/about/", views.game_detail, name="game_detail"),
    path("games/<id:pk>/cancel/", views.game_cancel, name="game_cancel"),
    path("games/<id:pk>/sheet/", views.join_sheet, name="join_sheet"),
    path("games/<id:pk>/pin-budget/lift/", views.pin_budget_lift, name="pin_budget_lift"),
    path("join/", views.join, name="join"),
    path("j/<str:token>/", views.join_token, name="join_token"),
    path("play/<id:game_pk>/", views.playing, name="playing"),
    path("play/<id:game_pk>/leave/", views.leave, name="leave"),
]

urlpatterns = api_urls + page_urls
