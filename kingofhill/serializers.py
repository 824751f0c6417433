"""Input and output shapes of the King of the Hill API (validation of form only; the rules
and every refusal are the services')."""

from __future__ import annotations

from rest_framework import serializers

from core import api as core_api
from kingofhill import rules


class KothCreateSerializer(serializers.Serializer):
    game = serializers.IntegerField(help_text="teams.Game id (format kingofhill)")
    summit = serializers.IntegerField(default=rules.DEFAULT_SUMMIT)
    main_questions = serializers.IntegerField(default=rules.DEFAULT_MAIN_QUESTIONS)
    reserve_questions = serializers.IntegerField(default=rules.DEFAULT_RESERVE_QUESTIONS)


class AnnounceSerializer(serializers.Serializer):
    text = serializers.CharField(required=False, allow_blank=True, default="")
    answer_key = serializers.CharField(required=False, allow_blank=True, default="")
    variants = serializers.ListField(child=serializers.CharField(allow_blank=True),
                                     required=False, default=list)


class JudgeSerializer(serializers.Serializer):
    question = serializers.IntegerField()
    normalized = serializers.CharField(allow_blank=True, trim_whitespace=False,
                                       help_text="the group's normalised text")
    verdict = serializers.BooleanField()


class VerdictSerializer(serializers.Serializer):
    answer = serializers.IntegerField()
    verdict = serializers.BooleanField()


class PartnerSerializer(serializers.Serializer):
    question = serializers.IntegerField()
    partner = serializers.BooleanField()


class DeclareSerializer(serializers.Serializer):
    kind = serializers.ChoiceField(choices=["jump", "revolution", "none"],
                                   help_text='"none" withdraws the declaration')


class AnswerSerializer(serializers.Serializer):
    text = serializers.CharField(max_length=1000, trim_whitespace=False, allow_blank=True)
    client_id = serializers.UUIDField(help_text="generated once per question by the phone")


class StateSerializer(serializers.Serializer):
    """``{"version", "state", "server_time"}``; the state shapes are documented in ``kingofhill.realtime``."""

    version = serializers.IntegerField()
    state = serializers.JSONField()
    server_time = serializers.DateTimeField()


class CreatedSerializer(serializers.Serializer):
    id = serializers.IntegerField()


ErrorSerializer = core_api.ErrorSerializer
