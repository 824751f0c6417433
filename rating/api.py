"""The rating API (``/rating/api/…``): results publication and seasons. Views parse, authorize
and call one service; ``DomainError`` becomes ``{"detail": ...}`` with 400 (403 for
``NotAllowed``) in ``core.api.exception_handler``."""

from __future__ import annotations

from django.http import Http404
from django.shortcuts import get_object_or_404
from django.utils.translation import gettext as _
from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.response import Response
from rest_framework.views import APIView

from core.permissions import IsOrganizer
from core.roles import is_organizer
from rating import selectors, services
from rating import serializers as s
from rating.models import Protest, Season
from teams.models import Game, Team

TAG = ["Rating"]
ERRORS = {400: s.ErrorSerializer, 403: s.ErrorSerializer, 404: s.ErrorSerializer}


class RatingAPIView(APIView):
    permission_classes = [IsOrganizer]

    def get_game(self) -> Game:
        return get_object_or_404(Game, pk=self.kwargs["game_id"])

    def get_season(self) -> Season:
        return get_object_or_404(Season, pk=self.kwargs["season_id"])

    def payload(self, serializer_class) -> dict:
        serializer = serializer_class(data=self.request.data)
        serializer.is_valid(raise_exception=True)
        return serializer.validated_data

    def result_response(self, game: Game, code: int = status.HTTP_200_OK) -> Response:
        result = selectors.game_result(game)
        if result is None:
            raise Http404(_("The results of this game are not published yet."))
        context = {"organizer": is_organizer(self.request.user)}
        return Response(s.GameResultSerializer(result, context=context).data, status=code)


# --- results ----------------------------------------------------------------------------------


class ResultsAPI(RatingAPIView):
    permission_classes = [AllowAny]

    @extend_schema(tags=TAG, responses={200: s.GameResultSerializer, 404: s.ErrorSerializer},
                   summary="A game's published results (preliminary or final)")
    def get(self, request, game_id: int):
        return self.result_response(self.get_game())


class PublishAPI(RatingAPIView):
    @extend_schema(tags=TAG, request=None, responses={200: s.GameResultSerializer, **ERRORS},
                   summary="Publish (or refresh) the preliminary results of a finished game")
    def post(self, request, game_id: int):
        game = self.get_game()
        services.results_publish(actor=request.user, game=game)
        return self.result_response(game)


class FinalizeAPI(RatingAPIView):
    @extend_schema(tags=TAG, request=s.FinalizeSerializer,
                   responses={200: s.GameResultSerializer, **ERRORS},
                   summary="Make the results final (they count; prizes are granted); within "
                           "the 12 h protest window only with early=true and a reason")
    def post(self, request, game_id: int):
        game = self.get_game()
        data = self.payload(s.FinalizeSerializer)
        services.results_finalize(actor=request.user, game=game, early=data["early"],
                                  reason=data["reason"])
        return self.result_response(game)


class ReopenAPI(RatingAPIView):
    @extend_schema(tags=TAG, request=s.ReopenSerializer,
                   responses={200: s.GameResultSerializer, **ERRORS},
                   summary="Re-open final results (a protest upheld)")
    def post(self, request, game_id: int):
        game = self.get_game()
        data = self.payload(s.ReopenSerializer)
        services.results_reopen(actor=request.user, game=game, reason=data["reason"])
        return self.result_response(game)


class TableAPI(RatingAPIView):
    @extend_schema(tags=TAG, request=s.TableSetSerializer,
                   responses={200: s.GameResultSerializer, **ERRORS},
                   summary="Edit the whole preliminary table at once (places close up around "
                           "disqualified teams; every changed row needs its reason)")
    def post(self, request, game_id: int):
        game = self.get_game()
        data = self.payload(s.TableSetSerializer)
        services.results_table_set(actor=request.user, game=game,
                                   rows=[dict(row) for row in data["rows"]])
        return self.result_response(game)


class OrganizerAPI(RatingAPIView):
    @extend_schema(tags=TAG, request=s.OrganizerSetSerializer,
                   responses={200: s.GameResultSerializer, **ERRORS},
                   summary="Name the team that organized the game (or none)")
    def post(self, request, game_id: int):
        game = self.get_game()
        data = self.payload(s.OrganizerSetSerializer)
        team = get_object_or_404(Team, pk=data["team"]) if data["team"] is not None else None
        services.organizer_set(actor=request.user, game=game, team=team)
        return self.result_response(game)


class VoteAPI(RatingAPIView):
    permission_classes = [IsAuthenticated]  # the service lets only the team's captain vote

    @extend_schema(tags=TAG, request=s.VoteSetSerializer,
                   responses={200: s.GameResultSerializer, **ERRORS},
                   summary="The team's captain votes on the organizing team (10.6), within "
                           "72 h of the game's end")
    def post(self, request, game_id: int, team_id: int):
        game = self.get_game()
        data = self.payload(s.VoteSetSerializer)
        services.vote_cast(actor=request.user, game=game, team=team_id, value=data["value"])
        return self.result_response(game)


# --- protests --------------------------------------------------------------------------------


class ProtestsAPI(RatingAPIView):
    def get_permissions(self):
        # Reading is public ([decision]: protests and answers are open to the club); filing
        # needs an account, and the service lets only the team's captain or an organizer file.
        if self.request.method == "GET":
            return [AllowAny()]
        return [IsAuthenticated()]

    @extend_schema(tags=TAG, responses={200: s.ProtestSerializer(many=True),
                                        404: s.ErrorSerializer},
                   summary="A game's protests with their status and answers")
    def get(self, request, game_id: int):
        result = selectors.game_result(self.get_game())
        if result is None:
            raise Http404(_("The results of this game are not published yet."))
        return Response(s.ProtestSerializer(selectors.protests(result), many=True).data)

    @extend_schema(tags=TAG, request=s.ProtestFileSerializer,
                   responses={201: s.ProtestSerializer, **ERRORS},
                   summary="File a protest on preliminary results (the team's captain or an "
                           "organizer; within 12 h of the game's end)")
    def post(self, request, game_id: int):
        game = self.get_game()
        data = self.payload(s.ProtestFileSerializer)
        team = get_object_or_404(Team, pk=data["team"])
        protest = services.protest_file(actor=request.user, game=game, team=team,
                                        text=data["text"])
        return Response(s.ProtestSerializer(protest).data, status=status.HTTP_201_CREATED)


class ProtestAnswerAPI(RatingAPIView):
    @extend_schema(tags=TAG, request=s.ProtestAnswerSerializer,
                   responses={200: s.ProtestSerializer, **ERRORS},
                   summary="Answer an open protest: uphold or reject it, saying why")
    def post(self, request, game_id: int, protest_id: int):
        protest = get_object_or_404(Protest, pk=protest_id, result__game_id=game_id)
        data = self.payload(s.ProtestAnswerSerializer)
        protest = services.protest_answer(actor=request.user, protest=protest,
                                          upheld=data["upheld"], answer=data["answer"])
        return Response(s.ProtestSerializer(protest).data)


# --- seasons ----------------------------------------------------------------------------------


class SeasonsAPI(RatingAPIView):
    def get_permissions(self):
        return [AllowAny()] if self.request.method == "GET" else super().get_permissions()

    @extend_schema(tags=TAG, responses={200: s.SeasonSerializer(many=True)},
                   summary="Every season")
    def get(self, request):
        return Response(s.SeasonSerializer(Season.objects.all(), many=True).data)

    @extend_schema(tags=TAG, request=s.SeasonCreateSerializer,
                   responses={201: s.SeasonSerializer, **ERRORS},
                   summary="Create a season (the scale defaults to the format's)")
    def post(self, request):
        data = self.payload(s.SeasonCreateSerializer)
        season = services.season_create(actor=request.user, title=data["title"],
                                        format=data["format"], scale=data.get("scale"))
        return Response(s.SeasonSerializer(season).data, status=status.HTTP_201_CREATED)


class SeasonTableAPI(RatingAPIView):
    permission_classes = [AllowAny]

    @extend_schema(tags=TAG, responses={200: s.SeasonTableSerializer, 404: s.ErrorSerializer},
                   summary="A season's table (final results of its rated games)")
    def get(self, request, season_id: int):
        season = self.get_season()
        table = selectors.season_table(season)
        return Response({"season": s.SeasonSerializer(season).data, "teams": table["teams"],
                         "players": table.get("players")})


class SeasonGamesAPI(RatingAPIView):
    @extend_schema(tags=TAG, request=s.SeasonGameSerializer,
                   responses={200: s.SeasonSerializer, **ERRORS},
                   summary="Add a rated game of the season's format to the season")
    def post(self, request, season_id: int):
        season = self.get_season()
        game = get_object_or_404(Game, pk=self.payload(s.SeasonGameSerializer)["game"])
        services.season_game_add(actor=request.user, season=season, game=game)
        return Response(s.SeasonSerializer(season).data)


class SeasonGameRemoveAPI(RatingAPIView):
    @extend_schema(tags=TAG, request=None, responses={200: s.SeasonSerializer, **ERRORS},
                   summary="Take a game out of the season")
    def delete(self, request, season_id: int, game_id: int):
        season = self.get_season()
        services.season_game_remove(actor=request.user, season=season, game=self.get_game())
        return Response(s.SeasonSerializer(season).data)


class SeasonRecordAPI(RatingAPIView):
    @extend_schema(tags=TAG, responses={200: s.SeasonRecordSerializer, **ERRORS},
                   summary="The season record (replays with manage.py replay to the table)")
    def get(self, request, season_id: int):
        return Response(selectors.season_record(self.get_season()))
