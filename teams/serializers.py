"""API shapes for teams. Input serializers only parse; rules and checks live in the services.

Two shapes of a team: ``TeamPublicSerializer`` (name and nicknames: anyone) and
``TeamPrivateSerializer`` (with full names, phones, e-mails: organizers and the captain).
"""

from __future__ import annotations

from django.urls import reverse
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from core import api as core_api
from core.api import id_field, model_int_field
from core.net import public_url
from teams import rules
from teams.models import Application, Ban, Game, Member, Notice, Team
from teams.presentation import notice_message


def _text(**kwargs) -> serializers.CharField:
    # Services clean and validate names (and say what is wrong); keep the raw text here.
    return serializers.CharField(trim_whitespace=False, allow_blank=True, **kwargs)


# --- input -------------------------------------------------------------------------------


class TeamInputSerializer(serializers.Serializer):
    name = _text()


class MemberInputSerializer(serializers.Serializer):
    nickname = _text()
    full_name = _text(required=False)
    phone = _text(required=False)
    email = _text(required=False)


class GameInputSerializer(serializers.Serializer):
    title = _text()
    format = serializers.ChoiceField(choices=Game.Format.choices)
    starts_at = core_api.PlausibleDateTimeField()
    fee = model_int_field(Game, "fee", min_value=0, required=False, default=400)
    rated = serializers.BooleanField(required=False, default=True)


class ApplicationInputSerializer(serializers.Serializer):
    team = id_field()
    members = serializers.ListField(child=id_field(), allow_empty=True, max_length=100)


class ReasonInputSerializer(serializers.Serializer):
    reason = _text(required=False, default="")


class PaidInputSerializer(serializers.Serializer):
    paid = serializers.BooleanField(default=True)


class BanInputSerializer(serializers.Serializer):
    reason = _text()
    until = core_api.PlausibleDateTimeField()


class TokenInputSerializer(serializers.Serializer):
    token = serializers.CharField(max_length=200)


class PinInputSerializer(serializers.Serializer):
    pin = serializers.CharField(max_length=20)


# --- output ------------------------------------------------------------------------------


class MemberPublicSerializer(serializers.ModelSerializer):
    class Meta:
        model = Member
        fields = ["id", "nickname"]


class MemberPrivateSerializer(serializers.ModelSerializer):
    class Meta:
        model = Member
        fields = ["id", "nickname", "full_name", "phone", "email"]


class TeamPublicSerializer(serializers.ModelSerializer):
    members = MemberPublicSerializer(many=True, read_only=True)

    class Meta:
        model = Team
        fields = ["id", "name", "members"]


class TeamPrivateSerializer(serializers.ModelSerializer):
    members = MemberPrivateSerializer(many=True, read_only=True)
    captain = serializers.CharField(source="captain.get_username", read_only=True)

    class Meta:
        model = Team
        fields = ["id", "name", "captain", "members"]


class GameSerializer(serializers.ModelSerializer):
    applications_close_at = serializers.SerializerMethodField()

    class Meta:
        model = Game
        fields = [
            "id",
            "title",
            "format",
            "starts_at",
            "fee",
            "status",
            "rated",
            "applications_close_at",
        ]

    @extend_schema_field(serializers.DateTimeField())
    def get_applications_close_at(self, game: Game):
        return rules.applications_close_at(game.starts_at)


class GameOrganizerSerializer(serializers.Serializer):
    """A game with what only organizers see: the count of active applications, the ≤ 4
    warning (8.3) and the late-publication warning (8.6)."""

    game = GameSerializer(source="*")
    application_count = serializers.IntegerField()
    few_applications = serializers.BooleanField()
    publication_warning = serializers.CharField(allow_null=True)


class ApplicationSerializer(serializers.ModelSerializer):
    """For organizers and the team's captain (it carries the join secret)."""

    team_name = serializers.CharField(source="team.name", read_only=True)
    members = MemberPublicSerializer(many=True, read_only=True)
    join_url = serializers.SerializerMethodField()
    amount_due = serializers.IntegerField(read_only=True, allow_null=True, default=None)

    class Meta:
        model = Application
        fields = [
            "id",
            "game",
            "team",
            "team_name",
            "status",
            "members",
            "created_at",
            "updated_at",
            "decided_at",
            "paid",
            "amount_due",
            "join_url",
            "join_pin",
            "join_version",
        ]

    @extend_schema_field(serializers.URLField(allow_null=True))
    def get_join_url(self, application: Application):
        if not application.join_token:
            return None
        path = reverse("teams:join_token", args=[application.join_token])
        request = self.context.get("request")
        return public_url(request, path) if request else path


class EntrySerializer(serializers.Serializer):
    """What a team phone learns about itself."""

    application = serializers.IntegerField(source="pk")
    game = serializers.IntegerField(source="game_id")
    game_title = serializers.CharField(source="game.title")
    game_format = serializers.CharField(source="game.format")
    team = serializers.IntegerField(source="team_id")
    team_name = serializers.CharField(source="team.name")
    join_version = serializers.IntegerField()


class NoticeSerializer(serializers.ModelSerializer):
    message = serializers.SerializerMethodField()

    class Meta:
        model = Notice
        fields = ["id", "kind", "game", "message", "text", "created_at"]

    def get_message(self, notice: Notice) -> str:
        return notice_message(notice)


class BanSerializer(serializers.ModelSerializer):
    class Meta:
        model = Ban
        fields = ["id", "team", "reason", "until", "created_at"]


class LedgerLineSerializer(serializers.Serializer):
    application = serializers.IntegerField(source="application_id")
    game = serializers.IntegerField(source="game.pk")
    game_title = serializers.CharField(source="game.title")
    starts_at = serializers.DateTimeField(source="game.starts_at")
    fee = serializers.IntegerField()
    discount_percent = serializers.IntegerField(source="percent")
    benefit_from_game = serializers.IntegerField(source="benefit_from.pk", allow_null=True)
    due = serializers.IntegerField()
    paid = serializers.BooleanField()


class BenefitLineSerializer(serializers.Serializer):
    won_at_game = serializers.IntegerField(source="benefit.game_id")
    place = serializers.IntegerField(source="benefit.place")
    discount_percent = serializers.IntegerField(source="benefit.percent")
    used_at_game = serializers.IntegerField(source="used_at.pk", allow_null=True)
    lapsed = serializers.BooleanField()


class LedgerSerializer(serializers.Serializer):
    lines = LedgerLineSerializer(many=True)
    benefits = BenefitLineSerializer(many=True)
    total_due = serializers.IntegerField()


DetailSerializer = core_api.ErrorSerializer


class ProfileLinkInputSerializer(serializers.Serializer):
    email = serializers.CharField(max_length=254)


class MergeInputSerializer(serializers.Serializer):
    into = serializers.IntegerField(min_value=1, max_value=2**63 - 1)


class MemberProfileSerializer(serializers.ModelSerializer):
    """A roster entry and its profile link (captain, organizers)."""

    class Meta:
        model = Member
        fields = ["id", "team", "nickname", "user", "linked_at"]
