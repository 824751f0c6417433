"""Input and output shapes of the rating API (form only; the rules and refusals are the
services')."""

from __future__ import annotations

from rest_framework import serializers

from core.api import ErrorSerializer, id_field, model_int_field  # noqa: F401 (shared Error)
from rating.models import PROTEST_TEXT_MAX, GameResult, Protest, ResultRow, Season
from rating.rules import VOTES
from teams.models import Game

VOTE_VALUES = sorted(VOTES, reverse=True)


class ResultRowSerializer(serializers.ModelSerializer):
    team = serializers.IntegerField(source="team_id", read_only=True)
    team_name = serializers.CharField(source="team.name", read_only=True)

    class Meta:
        model = ResultRow
        fields = ["team", "team_name", "place", "disqualified", "deduction", "standing",
                  "figures"]


class VoteOutSerializer(serializers.Serializer):
    team = serializers.IntegerField()
    team_name = serializers.CharField()
    value = serializers.IntegerField(allow_null=True)
    voted_by = serializers.CharField(allow_null=True)
    voted_at = serializers.DateTimeField(allow_null=True)


class ProtestSerializer(serializers.ModelSerializer):
    game = serializers.IntegerField(source="result.game_id", read_only=True)
    team = serializers.IntegerField(source="team_id", read_only=True)
    team_name = serializers.CharField(source="team.name", read_only=True)

    class Meta:
        model = Protest
        fields = ["id", "game", "team", "team_name", "text", "created_at", "status", "answer",
                  "answered_at"]


class ProtestFileSerializer(serializers.Serializer):
    team = id_field(help_text="teams.Team id of a team that played the game")
    text = serializers.CharField(max_length=PROTEST_TEXT_MAX)


class ProtestAnswerSerializer(serializers.Serializer):
    upheld = serializers.BooleanField(help_text="true: upheld; false: rejected")
    answer = serializers.CharField(max_length=PROTEST_TEXT_MAX)


class GameResultSerializer(serializers.ModelSerializer):
    game_title = serializers.CharField(source="game.title", read_only=True)
    organizing_team = serializers.IntegerField(source="game.organizing_team_id", read_only=True,
                                               allow_null=True)
    rows = serializers.SerializerMethodField()
    votes = serializers.SerializerMethodField(help_text="each team's vote: organizers only")
    vote_count = serializers.SerializerMethodField()
    protests = ProtestSerializer(many=True, read_only=True)

    class Meta:
        model = GameResult
        fields = ["game", "game_title", "status", "ended_at", "finish_reason", "published_at",
                  "finalized_at", "reopen_reason", "early_final_reason", "organizing_team",
                  "rows", "votes", "vote_count", "protests"]

    def get_rows(self, obj) -> ResultRowSerializer(many=True):  # type: ignore[valid-type]
        from rating.selectors import ordered_rows

        return ResultRowSerializer(ordered_rows(obj), many=True).data

    def get_votes(self, obj) -> VoteOutSerializer(many=True):  # type: ignore[valid-type]
        if not self.context.get("organizer"):
            return []
        return VoteOutSerializer(
            [{"team": v.team_id, "team_name": v.team.name, "value": v.value,
              "voted_by": v.voted_by.get_username() if v.voted_by else None,
              "voted_at": v.voted_at} for v in obj.votes.all()], many=True).data

    def get_vote_count(self, obj) -> int:
        return sum(1 for v in obj.votes.all() if v.value is not None)


class ReopenSerializer(serializers.Serializer):
    reason = serializers.CharField()


class TableRowSerializer(serializers.Serializer):
    team = id_field(help_text="teams.Team id")
    place = model_int_field(ResultRow, "place", required=False, allow_null=True, min_value=1)
    disqualified = serializers.BooleanField(required=False, default=False)
    deduction = model_int_field(ResultRow, "deduction", required=False, min_value=0, default=0)
    reason = serializers.CharField(required=False, allow_blank=True, default="")


class TableSetSerializer(serializers.Serializer):
    rows = TableRowSerializer(many=True)


class FinalizeSerializer(serializers.Serializer):
    early = serializers.BooleanField(required=False, default=False,
                                     help_text="confirm a final before the protest window ends")
    reason = serializers.CharField(required=False, allow_blank=True, default="")


class OrganizerSetSerializer(serializers.Serializer):
    team = id_field(allow_null=True, help_text="teams.Team id, or null")


class VoteSetSerializer(serializers.Serializer):
    value = serializers.ChoiceField(choices=VOTE_VALUES)


class SeasonSerializer(serializers.ModelSerializer):
    games = serializers.PrimaryKeyRelatedField(many=True, read_only=True)

    class Meta:
        model = Season
        fields = ["id", "title", "format", "scale", "games", "created_at"]


class SeasonCreateSerializer(serializers.Serializer):
    title = serializers.CharField(max_length=200)
    format = serializers.ChoiceField(choices=Game.Format.choices)
    scale = serializers.ListField(child=serializers.IntegerField(min_value=0, max_value=10**6),
                                  required=False, max_length=1000,
                                  allow_empty=True)


class SeasonGameSerializer(serializers.Serializer):
    game = id_field(help_text="teams.Game id (rated, of the season's format)")


class StandingSerializer(serializers.Serializer):
    team = serializers.CharField()
    place = serializers.IntegerField()
    points = serializers.IntegerField()
    games = serializers.IntegerField()
    places = serializers.DictField(child=serializers.IntegerField(),
                                   help_text="finishes by place (keys are places)")


class PlayerStandingSerializer(serializers.Serializer):
    player = serializers.CharField()
    place = serializers.IntegerField()
    points = serializers.IntegerField()
    games = serializers.IntegerField()
    places = serializers.DictField(child=serializers.IntegerField())


class SeasonTableSerializer(serializers.Serializer):
    season = SeasonSerializer()
    teams = StandingSerializer(many=True)
    players = PlayerStandingSerializer(many=True, allow_null=True)


class SeasonRecordSerializer(serializers.Serializer):
    format = serializers.CharField()
    season = serializers.CharField()
    scale = serializers.JSONField()
    games = serializers.ListField(child=serializers.JSONField())
