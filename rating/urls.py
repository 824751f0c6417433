from django.urls import path, re_path

import core.converters  # noqa: F401  (registers <id:...>, ids within the BigAutoField range)
from rating import api, views

app_name = "rating"

api_urls = [
    path("api/games/<id:game_id>/results/", api.ResultsAPI.as_view(), name="api_results"),
    path("api/games/<id:game_id>/results/publish/", api.PublishAPI.as_view(),
         name="api_publish"),
    path("api/games/<id:game_id>/results/finalize/", api.FinalizeAPI.as_view(),
         name="api_finalize"),
    path("api/games/<id:game_id>/results/reopen/", api.ReopenAPI.as_view(), name="api_reopen"),
    path("api/games/<id:game_id>/results/table/", api.TableAPI.as_view(), name="api_table"),
    path("api/games/<id:game_id>/results/organizer/", api.OrganizerAPI.as_view(),
         name="api_organizer"),
    path("api/games/<id:game_id>/results/votes/<id:team_id>/", api.VoteAPI.as_view(),
         name="api_vote"),
    path("api/games/<id:game_id>/results/protests/", api.ProtestsAPI.as_view(),
         name="api_protests"),
    path("api/games/<id:game_id>/results/protests/<id:protest_id>/answer/",
         api.ProtestAnswerAPI.as_view(), name="api_protest_answer"),
    path("api/seasons/", api.SeasonsAPI.as_view(), name="api_seasons"),
    path("api/seasons/<id:season_id>/", api.SeasonTableAPI.as_view(), name="api_season"),
    path("api/seasons/<id:season_id>/games/", api.SeasonGamesAPI.as_view(),
         name="api_season_games"),
    path("api/seasons/<id:season_id>/games/<id:game_id>/", api.SeasonGameRemoveAPI.as_view(),
         name="api_season_game_remove"),
    path("api/seasons/<id:season_id>/record/", api.SeasonRecordAPI.as_view(),
         name="api_season_record"),
]

page_urls = [
    path("games/<id:game_id>/", views.results, name="results"),
    re_path(r"^games/(?P<game_id>[0-9]{1,18})/results\.(?P<ext>csv|xlsx)$", views.results_export,
            name="results_export"),
    path("games/<id:game_id>/table/", views.table_set, name="table_set"),
    path("games/<id:game_id>/organizer/", views.organizer_set, name="organizer_set"),
    path("games/<id:game_id>/votes/<id:team_id>/", views.vote_cast, name="vote_cast"),
    path("games/<id:game_id>/protests/", views.protest_file, name="protest_file"),
    path("games/<id:game_id>/protests/<id:protest_id>/answer/", views.protest_answer,
         name="protest_answer"),
    path("games/<id:game_id>/<slug:action>/", views.results_action, name="results_action"),
    path("seasons/", views.seasons, name="seasons"),
    path("seasons/new/", views.season_create, name="season_create"),
    path("seasons/<id:season_id>/", views.season, name="season"),
    path("seasons/<id:season_id>/games/", views.season_game, name="season_game"),
    path("seasons/<id:season_id>/teams/<id:team_id>/", views.season_team, name="season_team"),
    path("seasons/<id:season_id>/players/<id:member_id>/", views.season_player,
         name="season_player"),
    path("players/<id:user_id>/", views.player, name="player"),
    re_path(r"^seasons/(?P<season_id>[0-9]{1,18})/(?P<what>table|players)\.(?P<ext>csv|xlsx)$",
            views.season_export, name="season_export"),
    path("seasons/<id:season_id>/record/", views.season_record, name="season_record"),
]

urlpatterns = api_urls + page_urls
