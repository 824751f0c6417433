"""Input and output shapes of the GoRoD API (form only; the rules and every refusal are the
services')."""

from __future__ import annotations

from django.urls import reverse
from django.utils.translation import gettext as _
from rest_framework import serializers

from core.api import (  # noqa: F401 (ErrorSerializer: the shared Error component)
    ErrorSerializer,
    PlausibleDateTimeField,
    id_field,
    model_int_field,
)
from gorod import codes, rules
from gorod.models import GorodGame, Message, Ruling


def _text_list(value, where: str) -> None:
    if not isinstance(value, list) or not all(isinstance(c, str) for c in value):
        raise serializers.ValidationError(
            _("%(where)s must be a list of strings, e.g. [\"G1R12345D\"]") % {"where": where})


class GorodCodesField(serializers.JSONField):
    """A level's codes in their JSON form, checked for shape only (what they mean is
    ``gorod.codes``'): a string where a list belongs was split into letters, a string where a
    mapping belongs crashed."""

    def to_internal_value(self, data):
        data = super().to_internal_value(data)
        if not isinstance(data, dict):
            raise serializers.ValidationError(
                _('must be an object: {"code": "G1R12345D"} or {"sectors": [...]}'))
        if "code" in data:
            if not isinstance(data["code"], str) or not data["code"].strip():
                raise serializers.ValidationError(_('"code" must be a non-empty string'))
            return data
        sectors = data.get("sectors")
        if not isinstance(sectors, list) or not sectors:
            raise serializers.ValidationError(_('needs "code" (a string) or "sectors" (a list)'))
        for i, sector in enumerate(sectors, 1):
            where = _("sector %(n)d") % {"n": i}
            if not isinstance(sector, dict):
                raise serializers.ValidationError(_("%(where)s must be an object") % {"where": where})
            if not isinstance(sector.get("name"), str) or not sector["name"].strip():
                raise serializers.ValidationError(
                    _('%(where)s: "name" must be a non-empty string') % {"where": where})
            if not isinstance(sector.get("kind", "common"), str):
                raise serializers.ValidationError(
                    _('%(where)s: "kind" must be a string') % {"where": where})
            _text_list(sector.get("codes", []), f'{where}: "codes"')
            personal = sector.get("personal", {})
            if not isinstance(personal, dict) or not all(
                isinstance(part, (str, int)) and not isinstance(part, bool)
                for part in personal.values()
            ):
                raise serializers.ValidationError(
                    _('%(where)s: "personal" must map each team name to its part, '
                      'e.g. {"Alpha": "G1A"}') % {"where": where})
        return data


class GorodLevelSerializer(serializers.Serializer):
    label = serializers.CharField(required=False, max_length=40)
    task = serializers.CharField(required=False, allow_blank=True, default="")
    hint1 = serializers.CharField(required=False, allow_blank=True, default="")
    hint2 = serializers.CharField(required=False, allow_blank=True, default="")
    duration_min = serializers.FloatField(required=False, default=rules.DEFAULT_LIMIT_MIN)
    codes = GorodCodesField(help_text='{"code": "G1R12345D"} or {"sectors": [...]}')


class GorodCreateSerializer(serializers.Serializer):
    game = id_field(help_text="teams.Game id (format gorod)")
    levels = GorodLevelSerializer(many=True, required=False, default=list)
    hint_offsets_min = serializers.ListField(child=serializers.FloatField(), required=False,
                                             default=list(rules.DEFAULT_HINT_OFFSETS_MIN))
    sliv_penalty_min = serializers.FloatField(required=False,
                                              default=rules.DEFAULT_SLIV_PENALTY_MIN)
    max_duration_h = serializers.FloatField(required=False, default=rules.DEFAULT_MAX_DURATION_H)
    max_wrong = model_int_field(GorodGame, "max_wrong", required=False,
                                default=codes.DEFAULT_MAX_WRONG)
    wrong_window_s = model_int_field(GorodGame, "wrong_window_s", required=False,
                                     default=codes.DEFAULT_WINDOW_S)


class GorodRoutesSerializer(serializers.Serializer):
    seed = serializers.CharField(required=False, allow_null=True, default=None)


class GorodCodeSerializer(serializers.Serializer):
    text = serializers.CharField(max_length=1000, trim_whitespace=False, allow_blank=True)
    client_id = serializers.UUIDField(required=False, allow_null=True, default=None,
                                      help_text="generated per submission by the phone; a "
                                                "retry with the same id is counted once")


class GorodRulingPreviewSerializer(serializers.Serializer):
    """A ruling, as it is previewed (``GorodRulingSerializer`` records it)."""

    application = id_field(help_text="the team's application id")
    type = serializers.ChoiceField(choices=Ruling.Type.choices)
    minutes = serializers.FloatField(required=False, allow_null=True, default=None)
    level = serializers.CharField(required=False, allow_null=True, allow_blank=True,
                                  default=None, help_text="level id; default: the current one")
    at = PlausibleDateTimeField(required=False, allow_null=True, default=None)
    reason = serializers.CharField(required=False, allow_blank=True, default="")


class GorodRulingSerializer(GorodRulingPreviewSerializer):
    confirm = serializers.BooleanField(
        required=False, default=False,
        help_text="apply a change to a finished game whose results are published (409 asks)")


class GorodPreviewTeamSerializer(serializers.Serializer):
    team = serializers.CharField()
    place_before = serializers.IntegerField(allow_null=True)
    place_after = serializers.IntegerField(allow_null=True)
    total_before_s = serializers.FloatField()
    total_after_s = serializers.FloatField()
    total_before = serializers.CharField(help_text="h:mm (h:mm:ss when only seconds change)")
    total_after = serializers.CharField()


class GorodPreviewSerializer(serializers.Serializer):
    """What a ruling or an undo would change; nothing is stored."""

    text = serializers.CharField(help_text="the change in the organizer's words")
    results_published = serializers.BooleanField(
        help_text="the night's published results would become out of date")
    teams = GorodPreviewTeamSerializer(many=True)


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


class GorodLeaderboardSerializer(serializers.Serializer):
    public = serializers.BooleanField(help_text="show the live standings on the public screen")


class GorodSwitchSerializer(serializers.Serializer):
    on = serializers.BooleanField(help_text="on or off")


class GorodTestRunSerializer(serializers.Serializer):
    # Left out: the service's defaults (×10, two teams).
    factor = serializers.IntegerField(
        required=False,
        help_text="the clock's speed-up, 1 (real time) to 120 (default 10); at 10 a 70-minute "
                  "level fails after 7 minutes")
    teams = serializers.IntegerField(
        required=False, help_text="test teams, 1 to 20 (default 2), each with a join link and PIN")


class GorodTestRunCreatedSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    title = serializers.CharField()
    factor = serializers.IntegerField()
    teams = serializers.ListField(child=serializers.DictField())


class GorodTimeoutAskSerializer(serializers.Serializer):
    minutes = serializers.FloatField(help_text="1–30 (rules, 3.10)")
    reason = serializers.CharField(max_length=500, allow_blank=True)


class GorodMessageSerializer(serializers.Serializer):
    """The organizer's message or bonus hint (the text's limits are the service's)."""

    text = serializers.CharField(allow_blank=True)
    kind = serializers.ChoiceField(choices=Message.Kind.choices, default=Message.Kind.MESSAGE)
    audience = serializers.ChoiceField(choices=Message.Audience.choices,
                                       default=Message.Audience.ALL)
    level = serializers.CharField(required=False, allow_null=True, allow_blank=True,
                                  default=None, max_length=40,
                                  help_text="level id: the level audience's, a bonus hint's")
    application = id_field(required=False, allow_null=True, default=None,
                           help_text="the team's application id (audience team)")
    later = serializers.BooleanField(
        required=False, default=False,
        help_text="a bonus hint: also for the teams that reach its level later")


class GorodMessagesSeenSerializer(serializers.Serializer):
    messages = serializers.ListField(child=id_field(), min_length=1, max_length=200,
                                     help_text="the ids of the messages and bonus hints shown")


class GorodDecisionSerializer(serializers.Serializer):
    """The organizer's answer to a team's timeout request or photo: yes or no, and why."""

    accept = serializers.BooleanField()
    answer = serializers.CharField(required=False, allow_blank=True, max_length=500, default="")


class GorodRulingUndoSerializer(serializers.Serializer):
    reason = serializers.CharField(max_length=500, allow_blank=True,
                                   help_text="why the ruling is undone (kept in its history)")
    confirm = serializers.BooleanField(
        required=False, default=False,
        help_text="apply a change to a finished game whose results are published (409 asks)")


class GorodRulingEditPreviewSerializer(serializers.Serializer):
    """A ruling's correction, as it is previewed (``GorodRulingEditSerializer`` makes it)."""

    minutes = serializers.FloatField(required=False, allow_null=True)
    level = serializers.CharField(required=False, allow_blank=True, max_length=40)
    at = PlausibleDateTimeField(required=False)
    ruling_reason = serializers.CharField(required=False, allow_blank=True, max_length=500,
                                          help_text="the ruling's own stated reason")


class GorodRulingEditSerializer(GorodRulingEditPreviewSerializer):
    reason = serializers.CharField(max_length=500, allow_blank=True,
                                   help_text="why the ruling is corrected (kept in its history)")
    confirm = serializers.BooleanField(
        required=False, default=False,
        help_text="apply a change to a finished game whose results are published (409 asks)")


class GorodPhotoSerializer(serializers.Serializer):
    photo = serializers.FileField(help_text="PNG, JPEG, GIF or WebP, at most 5 MB")


class GorodPauseSerializer(serializers.Serializer):
    reason = serializers.CharField(required=False, allow_blank=True, max_length=500, default="",
                                   help_text="why the whole game is paused (the audit log keeps it)")


class GorodEndForceMajeureSerializer(serializers.Serializer):
    reason = serializers.CharField(max_length=500, allow_blank=True,
                                   help_text="why the game ends as force majeure for everyone")


class ProposalSerializer(serializers.Serializer):
    """A scenario proposal as its team's captain and the organizers see it (the file itself is
    downloaded from ``file_url``)."""

    id = serializers.IntegerField()
    team = serializers.IntegerField(source="team_id")
    team_name = serializers.CharField(source="team.name")
    game = serializers.IntegerField(source="game_id", allow_null=True)
    game_title = serializers.SerializerMethodField()
    file_name = serializers.CharField()
    file_url = serializers.SerializerMethodField()
    levels = serializers.IntegerField()
    note = serializers.CharField()
    status = serializers.CharField()
    status_label = serializers.CharField(source="get_status_display")
    created_at = serializers.DateTimeField()
    decided_at = serializers.DateTimeField(allow_null=True)
    answer = serializers.CharField()

    def get_game_title(self, proposal) -> str | None:
        return proposal.game.title if proposal.game_id else None

    def get_file_url(self, proposal) -> str:
        return reverse("gorod:proposal_file", args=[proposal.pk])


class ProposalCreateSerializer(serializers.Serializer):
    team = id_field()
    game = id_field(required=False, allow_null=True)
    note = serializers.CharField(required=False, allow_blank=True, max_length=2000, default="")
    file = serializers.FileField()


class ProposalAcceptSerializer(serializers.Serializer):
    game = id_field(required=False, allow_null=True)
    answer = serializers.CharField(required=False, allow_blank=True, max_length=2000, default="")


class ProposalRejectSerializer(serializers.Serializer):
    answer = serializers.CharField(max_length=2000)


class GorodLevelFixPreviewSerializer(serializers.Serializer):
    """A fix of a started level, as it is previewed (``GorodLevelFixSerializer`` applies it);
    a field left out stays as it is."""

    level = serializers.CharField(max_length=40, help_text="the level's id")
    task = serializers.CharField(required=False, allow_blank=True, trim_whitespace=False)
    hint1 = serializers.CharField(required=False, allow_blank=True, trim_whitespace=False)
    hint2 = serializers.CharField(required=False, allow_blank=True, trim_whitespace=False)
    codes = serializers.CharField(
        required=False, allow_blank=True, trim_whitespace=False,
        help_text="the codes one per line as on the set-up page (``sector: A | B``); the "
                  "stored attempts matching them are credited")
    reason = serializers.CharField(required=False, allow_blank=True, max_length=200,
                                   default="", help_text="added to the credits' rulings")


class GorodLevelFixSerializer(GorodLevelFixPreviewSerializer):
    confirm = serializers.BooleanField(
        required=False, default=False,
        help_text="apply a change to a finished game whose results are published (409 asks)")


class GorodLevelFixFormSerializer(serializers.Serializer):
    level = serializers.CharField()
    task = serializers.CharField()
    hint1 = serializers.CharField()
    hint2 = serializers.CharField()
    codes = serializers.CharField(help_text="as the fix takes them, one per line")


class GorodCreditSerializer(serializers.Serializer):
    team = serializers.CharField()
    application = serializers.IntegerField()
    code = serializers.CharField(help_text="the stored attempt's text")
    sent_at = serializers.DateTimeField()
    closes_at = serializers.DateTimeField(allow_null=True,
                                          help_text="a team still on the level closes it then")
    bonus_min = serializers.FloatField()
    text = serializers.CharField()


class GorodLevelFixPreviewResultSerializer(GorodPreviewSerializer):
    """What a fix of a level would credit and change in the standings; nothing is stored."""

    level = serializers.CharField()
    codes_changed = serializers.BooleanField()
    credits = GorodCreditSerializer(many=True)
