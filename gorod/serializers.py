"""Input and output shapes of the GoRoD API (form only; the rules and every refusal are the
services')."""

from __future__ import annotations

from rest_framework import serializers

from core.api import ErrorSerializer  # noqa: F401 (one shared error component)
from gorod import codes, rules
from gorod.models import Ruling


class GorodLevelSerializer(serializers.Serializer):
    label = serializers.CharField(required=False, max_length=40)
    task = serializers.CharField(required=False, allow_blank=True, default="")
    hint1 = serializers.CharField(required=False, allow_blank=True, default="")
    hint2 = serializers.CharField(required=False, allow_blank=True, default="")
    duration_min = serializers.FloatField(required=False, default=rules.DEFAULT_LIMIT_MIN)
    codes = serializers.JSONField(help_text='{"code": "G1R12345D"} or {"sectors": [...]}')


class GorodCreateSerializer(serializers.Serializer):
    game = serializers.IntegerField(help_text="teams.Game id (format gorod)")
    levels = GorodLevelSerializer(many=True, required=False, default=list)
    hint_offsets_min = serializers.ListField(child=serializers.FloatField(), required=False,
                                             default=list(rules.DEFAULT_HINT_OFFSETS_MIN))
    sliv_penalty_min = serializers.FloatField(required=False,
                                              default=rules.DEFAULT_SLIV_PENALTY_MIN)
    max_duration_h = serializers.FloatField(required=False, default=rules.DEFAULT_MAX_DURATION_H)
    max_wrong = serializers.IntegerField(required=False, default=codes.DEFAULT_MAX_WRONG)
    wrong_window_s = serializers.IntegerField(required=False, default=codes.DEFAULT_WINDOW_S)


class GorodRoutesSerializer(serializers.Serializer):
    seed = serializers.CharField(required=False, allow_null=True, default=None)


class GorodCodeSerializer(serializers.Serializer):
    text = serializers.CharField(max_length=1000, trim_whitespace=False, allow_blank=True)
    client_id = serializers.UUIDField(required=False, allow_null=True, default=None,
                                      help_text="generated per submission by the phone; a "
                                                "retry with the same id is counted once")


class GorodRulingSerializer(serializers.Serializer):
    application = serializers.IntegerField(help_text="the team's application id")
    type = serializers.ChoiceField(choices=Ruling.Type.choices)
    minutes = serializers.FloatField(required=False, allow_null=True, default=None)
    level = serializers.CharField(required=False, allow_null=True, allow_blank=True,
                                  default=None, help_text="level id; default: the current one")
    at = serializers.DateTimeField(required=False, allow_null=True, default=None)
    reason = serializers.CharField(required=False, allow_blank=True, default="")


class GorodStateSerializer(serializers.Serializer):
    """``{"version", "state", "server_time"}``; the state shapes are documented in ``gorod.realtime``."""

    version = serializers.IntegerField()
    state = serializers.JSONField()
    server_time = serializers.DateTimeField()


class GorodCodeResultSerializer(serializers.Serializer):
    verdict = serializers.CharField(help_text="accepted | repeat | wrong | closed_level")
    sector = serializers.CharField(allow_null=True)
    remaining = serializers.IntegerField(help_text="sectors still to find on that level")
    closed = serializers.BooleanField(help_text="this code closed the level")
    duplicate = serializers.BooleanField(help_text="a retry: the stored attempt")
    message = serializers.CharField()
    version = serializers.IntegerField()
    state = serializers.JSONField()
    server_time = serializers.DateTimeField()


class GorodCreatedSerializer(serializers.Serializer):
    id = serializers.IntegerField()
