"""The players' profiles API (rule 2.6) under ``/teams/api/``: link a roster entry to an
account by e-mail, unlink it, merge a typo's entry into the right one (captain, organizers),
and claim an entry with the captain's invitation (the logged-in player). The writes are
``teams.profiles``; a refusal is 400 ``{"detail": ...}``.
"""

from __future__ import annotations

from django.shortcuts import get_object_or_404
from django.utils.translation import gettext as _
from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.permissions import IsAuthenticated
from rest_framework.response import Response

from teams import profiles
from teams import serializers as s
from teams.api import TeamsAPIView, api_responses
from teams.errors import TeamsError
from teams.models import Member


class MemberProfileAPI(TeamsAPIView):
    permission_classes = [IsAuthenticated]

    def member(self, pk: int, member_pk: int) -> Member:
        return get_object_or_404(Member, pk=member_pk, team=self.team(pk))

    @extend_schema(
        operation_id="teams_member_profile_link",
        summary="Link a roster entry to the active account with this e-mail (captain, organizers)",
        request=s.ProfileLinkInputSerializer,
        responses=api_responses(s.MemberProfileSerializer),
    )
    def post(self, request, pk: int, member_pk: int):
        member = self.member(pk, member_pk)
        data = self.parse(s.ProfileLinkInputSerializer)
        member = profiles.member_link(actor=request.user, member=member, email=data["email"])
        return Response(s.MemberProfileSerializer(member).data)

    @extend_schema(
        operation_id="teams_member_profile_unlink",
        summary="Unlink a roster entry from its profile (captain, organizers)",
        responses=api_responses(s.MemberProfileSerializer),
    )
    def delete(self, request, pk: int, member_pk: int):
        member = profiles.member_unlink(actor=request.user, member=self.member(pk, member_pk))
        return Response(s.MemberProfileSerializer(member).data)


class MemberMergeAPI(TeamsAPIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        operation_id="teams_member_merge",
        summary="Merge this roster entry (a typo) into another entry of the team "
                "(captain, organizers)",
        request=s.MergeInputSerializer,
        responses=api_responses(s.MemberProfileSerializer),
    )
    def post(self, request, pk: int, member_pk: int):
        team = self.team(pk)
        typo = get_object_or_404(Member, pk=member_pk, team=team)
        into = Member.objects.filter(pk=self.parse(s.MergeInputSerializer)["into"]).first()
        if into is None:
            raise TeamsError(_("This roster entry no longer exists."))
        into = profiles.member_merge(actor=request.user, typo=typo, into=into)
        return Response(s.MemberProfileSerializer(into).data, status=status.HTTP_200_OK)


class InviteClaimAPI(TeamsAPIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        operation_id="teams_invite_claim",
        summary="Claim the roster entry of a captain's invitation for the logged-in player",
        request=s.TokenInputSerializer,
        responses=api_responses(s.MemberProfileSerializer),
    )
    def post(self, request):
        data = self.parse(s.TokenInputSerializer)
        member = profiles.member_claim(user=request.user, token=data["token"])
        return Response(s.MemberProfileSerializer(member).data)
