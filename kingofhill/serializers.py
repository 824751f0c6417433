"""Input and output shapes of the King of the Hill API (validation of form only; the rules
and every refusal are the services')."""

from __future__ import annotations

from rest_framework import serializers

from core import api as core_api
from core.api import id_field, model_int_field
from kingofhill import rules
from kingofhill.models import KothGame

CONFIRM = ("apply a change of a played question that changes the winner, re-opens the "
           "finished game or alters published results (without it: 409 with the projection)")


class KothCreateSerializer(serializers.Serializer):
    game = id_field(help_text="teams.Game id (format kingofhill)")
    summit = model_int_field(KothGame, "summit", default=rules.DEFAULT_SUMMIT)
    main_questions = model_int_field(KothGame, "main_questions",
                                     default=rules.DEFAULT_MAIN_QUESTIONS)
    reserve_questions = model_int_field(KothGame, "reserve_questions",
                                        default=rules.DEFAULT_RESERVE_QUESTIONS)
    answers_after_zero = serializers.BooleanField(
        default=False, help_text="answers still taken after the countdown has run out")


class AnnounceSerializer(serializers.Serializer):
    text = serializers.CharField(required=False, allow_blank=True, default="")
    answer_key = serializers.CharField(required=False, allow_blank=True, default="")
    variants = serializers.ListField(child=serializers.CharField(allow_blank=True),
                                     required=False, default=list)
    show_projector = serializers.CharField(
        required=False, allow_blank=True, default="",
        help_text="announce | close | never; empty: the game's default")
    show_phones = serializers.CharField(
        required=False, allow_blank=True, default="",
        help_text="announce | close | never; empty: the game's default")
    image = serializers.FileField(required=False, allow_empty_file=True,
                                  help_text="a PNG, JPEG, GIF or WebP (multipart)")


class ScreensSerializer(serializers.Serializer):
    projector = serializers.CharField(help_text="announce | close | never")
    phones = serializers.CharField(help_text="announce | close | never")


class JudgeSerializer(serializers.Serializer):
    question = id_field()
    normalized = serializers.CharField(allow_blank=True, trim_whitespace=False,
                                       help_text="the group's normalised text")
    verdict = serializers.BooleanField()
    confirm = serializers.BooleanField(default=False, help_text=CONFIRM)


class GroupsSerializer(serializers.Serializer):
    question = id_field()
    keys = serializers.ListField(
        child=serializers.CharField(allow_blank=True, trim_whitespace=False, max_length=300),
        max_length=100, help_text="the groups' keys; a merge keeps the first one's")


class SplitSerializer(serializers.Serializer):
    question = id_field()
    key = serializers.CharField(allow_blank=True, trim_whitespace=False, max_length=300,
                                help_text="the merged group's key")


class VerdictSerializer(serializers.Serializer):
    answer = id_field()
    verdict = serializers.BooleanField()
    confirm = serializers.BooleanField(default=False, help_text=CONFIRM)


class AppealSerializer(serializers.Serializer):
    question = id_field()
    # Its length is the service's to refuse, in its words (``kingofhill.appeals``).
    text = serializers.CharField(allow_blank=True, help_text="why the verdict is wrong")


class AppealAcceptSerializer(serializers.Serializer):
    appeal = id_field()
    confirm = serializers.BooleanField(default=False, help_text=CONFIRM)


class AppealRejectSerializer(serializers.Serializer):
    appeal = id_field()
    answer = serializers.CharField(allow_blank=True, help_text="the host's answer to the team")


class PartnerSerializer(serializers.Serializer):
    question = id_field()
    partner = serializers.BooleanField()
    confirm = serializers.BooleanField(default=False, help_text=CONFIRM)


class CountdownSerializer(serializers.Serializer):
    seconds = serializers.IntegerField(min_value=0, max_value=600,
                                       help_text="1..600 starts (or restarts) it, 0 stops it")


class CountdownAdjustSerializer(serializers.Serializer):
    # Its range is the service's (``kingofhill.timer``), with its own message.
    seconds = serializers.IntegerField(help_text="seconds to add (> 0) or remove (< 0); what "
                                                 "is left stays within 0..600")


class AnswersAfterZeroSerializer(serializers.Serializer):
    taken = serializers.BooleanField(help_text="whether answers are still taken after the "
                                               "countdown has run out (default: not)")


class RevealSerializer(serializers.Serializer):
    reveal = serializers.BooleanField(default=True)


class HostAssignSerializer(serializers.Serializer):
    user = id_field(help_text="the account's id")
    assigned = serializers.BooleanField(help_text="false takes the game from the host")


class HostsSerializer(serializers.Serializer):
    hosts = serializers.ListField(child=serializers.DictField(),
                                  help_text='[{"id", "username"}] assigned to the game')


class DeclareSerializer(serializers.Serializer):
    kind = serializers.ChoiceField(choices=["jump", "revolution", "none"],
                                   help_text='"none" withdraws the declaration')


class AnswerSerializer(serializers.Serializer):
    text = serializers.CharField(max_length=1000, trim_whitespace=False, allow_blank=True)
    client_id = serializers.UUIDField(help_text="generated once per question by the phone")


class BankEditSerializer(serializers.Serializer):
    prepared = id_field(help_text="the prepared question's id")
    text = serializers.CharField(allow_blank=True, trim_whitespace=False)
    answer_key = serializers.CharField(required=False, allow_blank=True, default="")
    variants = serializers.ListField(child=serializers.CharField(allow_blank=True),
                                     required=False, default=list)
    partner = serializers.BooleanField(required=False, default=False)
    note = serializers.CharField(required=False, allow_blank=True, default="")


class BankMoveSerializer(serializers.Serializer):
    prepared = id_field(help_text="the prepared question's id")
    to = serializers.IntegerField(help_text="its place in the queue: 1 is announced next")


class BankSerializer(serializers.Serializer):
    bank = serializers.ListField(
        child=serializers.DictField(),
        help_text='[{"id", "place", "announced_as", "text", "answer_key", "variants", '
                  '"partner", "note"}] in order; "place" is null once announced')


class StateSerializer(serializers.Serializer):
    """``{"version", "state", "server_time"}``; the state shapes are documented in ``kingofhill.realtime``."""

    version = serializers.IntegerField()
    state = serializers.JSONField()
    server_time = serializers.DateTimeField()


class CreatedSerializer(serializers.Serializer):
    id = serializers.IntegerField()


ErrorSerializer = core_api.ErrorSerializer
