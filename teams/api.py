"""The teams API under ``/teams/api/``: thin views that authorize, parse, call one service.

Errors: a ``TeamsError`` is 400 ``{"detail": message}``; no right is 403; no object is 404.
"""

from __future__ import annotations

from django.conf import settings
from django.shortcuts import get_object_or_404
from django.utils.translation import gettext as _
from drf_spectacular.extensions import OpenApiAuthenticationExtension
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.authentication import SessionAuthentication
from rest_framework.exceptions import PermissionDenied
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.response import Response
from rest_framework.views import APIView

from core.net import client_address
from core.roles import is_organizer
from teams import selectors, services
from teams import serializers as s
from teams.models import Application, Ban, Game, Member, Team
from teams.permissions import (
    IsOrganizer,
    IsTeamPhone,
    can_manage_application,
    can_manage_team,
    get_team_entry,
)

ERRORS = {
    400: OpenApiResponse(s.DetailSerializer, description="Domain error"),
    403: OpenApiResponse(s.DetailSerializer, description="Not allowed"),
    404: OpenApiResponse(s.DetailSerializer, description="Not found"),
}


class PhoneSessionAuthentication(SessionAuthentication):
    """Session auth that checks CSRF for anonymous browsers too: joining binds the session,
    so another site must not be able to make a phone join (or leave) a team."""

    def authenticate(self, request):
        self.enforce_csrf(request)
        return super().authenticate(request)


class PhoneSessionScheme(OpenApiAuthenticationExtension):
    target_class = PhoneSessionAuthentication
    name = "teamPhoneCookieAuth"

    def get_security_definition(self, auto_schema):
        return {"type": "apiKey", "in": "cookie", "name": settings.SESSION_COOKIE_NAME}


def api_responses(ok, code: int = 200) -> dict:
    return {code: ok, **ERRORS}


class TeamsAPIView(APIView):
    # Domain errors become 400 {"detail": ...} in core.api.exception_handler. (No docstring:
    # the schema would show it as every endpoint's description.)

    def parse(self, serializer_class):
        serializer = serializer_class(data=self.request.data)
        serializer.is_valid(raise_exception=True)
        return serializer.validated_data

    def team(self, pk: int, *, manage: bool = True) -> Team:
        team = get_object_or_404(Team.objects.select_related("captain"), pk=pk)
        if manage and not can_manage_team(self.request.user, team):
            raise PermissionDenied()
        return team

    def application(self, pk: int) -> Application:
        application = get_object_or_404(Application.objects.select_related("team", "game"), pk=pk)
        if not can_manage_application(self.request.user, application):
            raise PermissionDenied()
        return application


def _team_shape(request, team: Team):
    if can_manage_team(request.user, team):
        return s.TeamPrivateSerializer(team).data
    return s.TeamPublicSerializer(team).data


# --- teams and members -----------------------------------------------------------------------


class TeamListAPI(TeamsAPIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        operation_id="teams_list",
        summary="Teams the user manages (all for an organizer)",
        responses=api_responses(s.TeamPrivateSerializer(many=True)),
    )
    def get(self, request):
        teams = selectors.teams_for_user(request.user).prefetch_related("members")
        return Response(s.TeamPrivateSerializer(teams, many=True).data)

    @extend_schema(
        operation_id="teams_create",
        summary="Create a team; the user becomes its captain",
        request=s.TeamInputSerializer,
        responses=api_responses(s.TeamPrivateSerializer, 201),
    )
    def post(self, request):
        data = self.parse(s.TeamInputSerializer)
        team = services.team_create(captain=request.user, name=data["name"])
        return Response(s.TeamPrivateSerializer(team).data, status=status.HTTP_201_CREATED)


class TeamDetailAPI(TeamsAPIView):
    permission_classes = [AllowAny]

    @extend_schema(
        operation_id="teams_retrieve",
        summary="A team: public shape (nicknames) or, for its captain and organizers, private",
        responses=api_responses(s.TeamPrivateSerializer),
    )
    def get(self, request, pk: int):
        return Response(_team_shape(request, self.team(pk, manage=False)))

    @extend_schema(
        operation_id="teams_rename",
        summary="Rename the team (captain, organizers)",
        request=s.TeamInputSerializer,
        responses=api_responses(s.TeamPrivateSerializer),
    )
    def patch(self, request, pk: int):
        team = self.team(pk)
        data = self.parse(s.TeamInputSerializer)
        team = services.team_rename(team=team, name=data["name"])
        return Response(s.TeamPrivateSerializer(team).data)


class MemberListAPI(TeamsAPIView):
    permission_classes = [AllowAny]

    @extend_schema(
        operation_id="teams_members_list",
        summary="Members: nicknames for anyone; private data for the captain and organizers",
        responses=api_responses(s.MemberPrivateSerializer(many=True)),
    )
    def get(self, request, pk: int):
        team = self.team(pk, manage=False)
        members = team.members.all()
        if can_manage_team(request.user, team):
            return Response(s.MemberPrivateSerializer(members, many=True).data)
        return Response(s.MemberPublicSerializer(members, many=True).data)

    @extend_schema(
        operation_id="teams_members_create",
        summary="Add a member with private data (captain, organizers)",
        request=s.MemberInputSerializer,
        responses=api_responses(s.MemberPrivateSerializer, 201),
    )
    def post(self, request, pk: int):
        team = self.team(pk)
        member = services.member_create(team=team, **self.parse(s.MemberInputSerializer))
        return Response(s.MemberPrivateSerializer(member).data, status=status.HTTP_201_CREATED)


class MemberDetailAPI(TeamsAPIView):
    permission_classes = [IsAuthenticated]

    def member(self, pk: int, member_pk: int) -> Member:
        team = self.team(pk)
        return get_object_or_404(Member, pk=member_pk, team=team)

    @extend_schema(
        operation_id="teams_members_update",
        summary="Change a member's nickname or private data (captain, organizers)",
        request=s.MemberInputSerializer(partial=True),
        responses=api_responses(s.MemberPrivateSerializer),
    )
    def patch(self, request, pk: int, member_pk: int):
        member = self.member(pk, member_pk)
        serializer = s.MemberInputSerializer(data=request.data, partial=True)
        serializer.is_valid(raise_exception=True)
        member = services.member_update(member=member, **serializer.validated_data)
        return Response(s.MemberPrivateSerializer(member).data)

    @extend_schema(
        operation_id="teams_members_delete",
        summary="Remove a member (captain, organizers)",
        responses=api_responses(None, 204),
    )
    def delete(self, request, pk: int, member_pk: int):
        services.member_delete(member=self.member(pk, member_pk))
        return Response(status=status.HTTP_204_NO_CONTENT)


class TeamLedgerAPI(TeamsAPIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        operation_id="teams_ledger",
        summary="Fee ledger: games, fees, benefits applied, amount due, paid",
        responses=api_responses(s.LedgerSerializer),
    )
    def get(self, request, pk: int):
        return Response(s.LedgerSerializer(selectors.team_ledger(self.team(pk))).data)


class TeamNoticesAPI(TeamsAPIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        operation_id="teams_notices",
        summary="Notices on the team page: cancellations, decisions, new join links",
        responses=api_responses(s.NoticeSerializer(many=True)),
    )
    def get(self, request, pk: int):
        notices = selectors.team_notices(self.team(pk))
        return Response(s.NoticeSerializer(notices, many=True).data)


class TeamBansAPI(TeamsAPIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        operation_id="teams_bans_list",
        summary="The team's bans, past and current (captain, organizers)",
        responses=api_responses(s.BanSerializer(many=True)),
    )
    def get(self, request, pk: int):
        team = self.team(pk)
        return Response(s.BanSerializer(team.bans.all(), many=True).data)

    @extend_schema(
        operation_id="teams_bans_create",
        summary="Ban a team from applying until a time (organizers)",
        request=s.BanInputSerializer,
        responses=api_responses(s.BanSerializer, 201),
    )
    def post(self, request, pk: int):
        if not is_organizer(request.user):
            raise PermissionDenied()
        team = self.team(pk)
        ban = services.ban_create(team=team, actor=request.user, **self.parse(s.BanInputSerializer))
        return Response(s.BanSerializer(ban).data, status=status.HTTP_201_CREATED)


class BanDetailAPI(TeamsAPIView):
    permission_classes = [IsOrganizer]

    @extend_schema(
        operation_id="teams_bans_lift",
        summary="Lift a ban (organizers)",
        responses=api_responses(None, 204),
    )
    def delete(self, request, pk: int):
        services.ban_lift(ban=get_object_or_404(Ban, pk=pk), actor=request.user)
        return Response(status=status.HTTP_204_NO_CONTENT)


# --- games -------------------------------------------------------------------------------------


def _organizer_game(game: Game):
    return {
        "game": s.GameSerializer(game).data,
        "application_count": selectors.game_active_application_count(game),
        "few_applications": selectors.game_few_applications(game),
        "publication_warning": services.game_publication_warning(game=game),
    }


class GameListAPI(TeamsAPIView):
    permission_classes = [AllowAny]

    @extend_schema(
        operation_id="teams_games_list",
        summary="Upcoming games (not cancelled)",
        responses=api_responses(s.GameSerializer(many=True)),
    )
    def get(self, request):
        return Response(s.GameSerializer(selectors.games_upcoming(), many=True).data)

    @extend_schema(
        operation_id="teams_games_create",
        summary="Publish a game (organizers); warns when less than 4 days before the start",
        request=s.GameInputSerializer,
        responses=api_responses(s.GameOrganizerSerializer, 201),
    )
    def post(self, request):
        if not is_organizer(request.user):
            raise PermissionDenied()
        data = self.parse(s.GameInputSerializer)
        game = services.game_create(
            actor=request.user,
            title=data["title"],
            game_format=data["format"],
            starts_at=data["starts_at"],
            fee=data["fee"],
            rated=data["rated"],
        )
        return Response(_organizer_game(game), status=status.HTTP_201_CREATED)


class GameDetailAPI(TeamsAPIView):
    permission_classes = [AllowAny]

    @extend_schema(
        operation_id="teams_games_retrieve",
        summary="A game; organizers also get the application count and warnings",
        responses=api_responses(s.GameOrganizerSerializer),
    )
    def get(self, request, pk: int):
        game = get_object_or_404(Game, pk=pk)
        if is_organizer(request.user):
            return Response(_organizer_game(game))
        return Response(s.GameSerializer(game).data)


class GameCancelAPI(TeamsAPIView):
    permission_classes = [IsOrganizer]

    @extend_schema(
        operation_id="teams_games_cancel",
        summary="Cancel a game; applicants get a notice on their team page",
        request=s.ReasonInputSerializer,
        responses=api_responses(s.GameOrganizerSerializer),
    )
    def post(self, request, pk: int):
        game = get_object_or_404(Game, pk=pk)
        data = self.parse(s.ReasonInputSerializer)
        game = services.game_cancel(game=game, actor=request.user, reason=data["reason"])
        return Response(_organizer_game(game))


class GameApplicationsAPI(TeamsAPIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        operation_id="teams_games_applications_list",
        summary="Applications for a game: all for organizers, the user's own teams for captains",
        responses=api_responses(s.ApplicationSerializer(many=True)),
    )
    def get(self, request, pk: int):
        game = get_object_or_404(Game, pk=pk)
        applications = selectors.game_applications(game)
        if not is_organizer(request.user):
            applications = applications.filter(team__captain=request.user)
        return Response(
            s.ApplicationSerializer(applications, many=True, context={"request": request}).data
        )

    @extend_schema(
        operation_id="teams_games_apply",
        summary="Apply (or change the roster) for a game",
        request=s.ApplicationInputSerializer,
        responses=api_responses(s.ApplicationSerializer, 201),
    )
    def post(self, request, pk: int):
        game = get_object_or_404(Game, pk=pk)
        data = self.parse(s.ApplicationInputSerializer)
        team = self.team(data["team"])
        members = list(Member.objects.filter(pk__in=data["members"]))
        if len(members) != len(set(data["members"])):
            raise services.TeamsError(_("The roster lists an unknown member."))
        application = services.application_submit(game=game, team=team, members=members)
        return Response(
            s.ApplicationSerializer(application, context={"request": request}).data,
            status=status.HTTP_201_CREATED,
        )


class ApplicationDetailAPI(TeamsAPIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        operation_id="teams_applications_retrieve",
        summary="An application with its join link and PIN (captain, organizers)",
        responses=api_responses(s.ApplicationSerializer),
    )
    def get(self, request, pk: int):
        application = self.application(pk)
        application.amount_due = selectors.application_amount_due(application)
        return Response(s.ApplicationSerializer(application, context={"request": request}).data)


class ApplicationActionAPI(TeamsAPIView):
    """POST ``approve`` / ``reject`` / ``paid`` / ``revoke-join`` (organizers) or
    ``withdraw`` (captain, organizers)."""

    permission_classes = [IsAuthenticated]
    action: str = ""

    def post(self, request, pk: int):
        application = self.application(pk)
        if self.action != "withdraw" and not is_organizer(request.user):
            raise PermissionDenied()
        if self.action == "approve":
            application = services.application_approve(application=application, actor=request.user)
        elif self.action == "reject":
            data = self.parse(s.ReasonInputSerializer)
            application = services.application_reject(
                application=application, actor=request.user, reason=data["reason"]
            )
        elif self.action == "paid":
            data = self.parse(s.PaidInputSerializer)
            application = services.application_mark_paid(application=application, paid=data["paid"])
        elif self.action == "revoke-join":
            application = services.application_revoke_join(application=application)
        else:
            application = services.application_withdraw(application=application)
        return Response(s.ApplicationSerializer(application, context={"request": request}).data)


def _action_view(action: str, summary: str, request=None):
    schema = extend_schema(
        operation_id=f"teams_applications_{action.replace('-', '_')}",
        summary=summary,
        request=request,
        responses=api_responses(s.ApplicationSerializer),
    )

    def post(self, request, pk: int):
        return ApplicationActionAPI.post(self, request, pk)

    cls = type(
        f"Application{action.title().replace('-', '')}API",
        (ApplicationActionAPI,),
        {"action": action, "post": schema(post)},
    )
    return cls.as_view()


application_approve = _action_view("approve", "Approve (organizers): issues join link and PIN")
application_reject = _action_view("reject", "Reject (organizers)", s.ReasonInputSerializer)
application_paid = _action_view("paid", "Mark the fee paid or unpaid", s.PaidInputSerializer)
application_revoke = _action_view(
    "revoke-join", "New join link and PIN; phones that joined before are logged out"
)
application_withdraw = _action_view("withdraw", "Withdraw (captain, organizers)")


# --- team phones ---------------------------------------------------------------------------


class JoinTokenAPI(TeamsAPIView):
    permission_classes = [AllowAny]
    authentication_classes = [PhoneSessionAuthentication]

    @extend_schema(
        operation_id="teams_join_token",
        summary="Join a team with the secret from its link",
        request=s.TokenInputSerializer,
        responses=api_responses(s.EntrySerializer),
    )
    def post(self, request):
        data = self.parse(s.TokenInputSerializer)
        entry = services.join_by_token(session=request.session, token=data["token"])
        return Response(s.EntrySerializer(entry).data)


class JoinPinAPI(TeamsAPIView):
    permission_classes = [AllowAny]
    authentication_classes = [PhoneSessionAuthentication]

    @extend_schema(
        operation_id="teams_join_pin",
        summary="Join a team by the game's 6-digit PIN",
        description=(
            "At most 10 wrong PINs per browser session and 30 per game and client address in "
            "any 10 minutes; beyond that the answer is 400 with how many minutes to wait."
        ),
        request=s.PinInputSerializer,
        responses=api_responses(s.EntrySerializer),
    )
    def post(self, request, game_id: int):
        game = get_object_or_404(Game, pk=game_id)
        data = self.parse(s.PinInputSerializer)
        entry = services.join_by_pin(
            session=request.session, game=game, pin=data["pin"], client_ip=client_address(request)
        )
        return Response(s.EntrySerializer(entry).data)


class EntryAPI(TeamsAPIView):
    permission_classes = [IsTeamPhone]
    authentication_classes = [PhoneSessionAuthentication]

    def get_game(self) -> Game:
        return get_object_or_404(Game, pk=self.kwargs["game_id"])

    @extend_schema(
        operation_id="teams_entry",
        summary="The team this phone plays for in the game",
        responses=api_responses(s.EntrySerializer),
    )
    def get(self, request, game_id: int):
        return Response(s.EntrySerializer(get_team_entry(request, self.get_game())).data)

    @extend_schema(
        operation_id="teams_entry_leave",
        summary="This phone leaves its team in the game",
        responses=api_responses(None, 204),
    )
    def delete(self, request, game_id: int):
        services.join_leave(session=request.session, game=self.get_game())
        return Response(status=status.HTTP_204_NO_CONTENT)
