"""The King of the Hill API (``/koth/api/…``): every action the host console and the team
phones perform. Views parse, authorize and call one service; ``DomainError`` becomes
``{"detail": ...}`` with 400 (403 for ``NotAllowed``)."""

from __future__ import annotations

from django.contrib.auth.models import User
from django.http import Http404
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import status
from rest_framework.permissions import BasePermission
from rest_framework.response import Response

from core import images
from core.api import JSONFileAPIView, PublicReadAPIView, ServiceAPIView
from core.errors import DomainError, NotAllowed
from core.permissions import IsHost, IsOrganizer
from kingofhill import appeals, bank_edits, grouping, screens, selectors, services
from kingofhill import serializers as s
from kingofhill.live import LIVE
from kingofhill.models import KothGame
from live.messages import PUBLIC, team_audience
from teams.models import Game
from teams.permissions import TeamPhoneAPIView

TAG = ["King of the Hill"]
ERRORS = {400: s.ErrorSerializer, 403: s.ErrorSerializer, 404: s.ErrorSerializer}
# A change of the past that changes the outcome: 409, "detail" says what, "change" details it
# (with "voided": the questions that would no longer count, "revived": those counted again).
CHANGE_ERRORS = {**ERRORS, 409: s.ErrorSerializer}


class KothAPIView(ServiceAPIView):
    # services.DomainError becomes {"detail"} with its status in core.api.exception_handler.

    def get_koth(self) -> KothGame:
        try:
            return selectors.koth_game(self.kwargs["game_id"])
        except KothGame.DoesNotExist:
            raise Http404(_("No King of the Hill game here.")) from None


class HostsThisGame(BasePermission):
    """Organizers host every game; a host only the games assigned to them."""

    message = gettext_lazy("Only a host of this game or an organizer may do this.")

    def has_permission(self, request, view) -> bool:
        return selectors.can_host(request.user, view.kwargs["game_id"])


class HostAPIView(KothAPIView):
    permission_classes = [IsHost, HostsThisGame]

    def host_state(self):
        return selectors.read_stored(self.get_koth(), kind="host").response()


class TeamAPIView(TeamPhoneAPIView, KothAPIView):
    def team_state(self):
        # By the game's id: the phone's entry already proved the game exists.
        stored = LIVE.read(self.kwargs["game_id"], team_audience(self.entry.pk))
        if stored is None:
            raise NotAllowed(_("This team does not play in this game."))
        return stored.response()


# --- reads ------------------------------------------------------------------------------------


class PublicStateAPI(PublicReadAPIView):
    @extend_schema(tags=TAG, responses={200: s.StateSerializer, 404: s.ErrorSerializer},
                   summary="Public state (projector): {version, state}; no login")
    def get(self, request, game_id: int):
        return self.read(request, game_id=game_id)

    def read(self, request, game_id: int):
        # One query: the stored state by the game's id (the most frequent read: projectors).
        stored = LIVE.read_by_id(game_id, PUBLIC)
        if stored is None:
            raise Http404(_("No King of the Hill game here."))
        return stored.response()


class HostStateAPI(HostAPIView):
    @extend_schema(tags=TAG, responses={200: s.StateSerializer, **ERRORS},
                   summary="Host state: public state plus declarations and answer groups")
    def get(self, request, game_id: int):
        return self.host_state()


class TeamStateAPI(TeamAPIView):
    @extend_schema(tags=TAG, responses={200: s.StateSerializer, **ERRORS},
                   summary="Team state: public state plus this team's own view")
    def get(self, request, game_id: int):
        return self.team_state()


class RecordAPI(JSONFileAPIView, KothAPIView):
    permission_classes = [IsOrganizer]

    @extend_schema(
        tags=TAG, responses={200: dict, **ERRORS},
        parameters=[OpenApiParameter("download", bool, description="as a file attachment")],
        summary="The game record in the contract format (replay gives the live board)")
    def get(self, request, game_id: int):
        return self.file_response(services.game_record(self.get_koth()),
                                  f"kingofhill-{game_id}.json")


# --- host actions -----------------------------------------------------------------------------


class CreateAPI(KothAPIView):
    permission_classes = [IsOrganizer]

    @extend_schema(tags=TAG, request=s.KothCreateSerializer,
                   responses={201: s.CreatedSerializer, **ERRORS},
                   summary="Attach a King of the Hill board to a scheduled game")
    def post(self, request):
        data = self.payload(s.KothCreateSerializer)
        game = Game.objects.filter(pk=data.pop("game")).first()
        if game is None:
            raise DomainError(_("No such game."))
        koth = services.koth_create(actor=request.user, game=game, **data)
        return Response({"id": koth.pk}, status=status.HTTP_201_CREATED)


class StartAPI(HostAPIView):
    @extend_schema(tags=TAG, request=None, responses={200: s.StateSerializer, **ERRORS},
                   summary="Start the game: freeze the teams, open question 1")
    def post(self, request, game_id: int):
        services.game_start(actor=request.user, game=self.get_koth())
        return self.host_state()


class AnnounceAPI(HostAPIView):
    @extend_schema(tags=TAG, request=s.AnnounceSerializer,
                   responses={200: s.StateSerializer, **ERRORS},
                   summary="Announce the open question (declarations close at this instant)")
    def post(self, request, game_id: int):
        data = self.payload(s.AnnounceSerializer)
        upload = data.pop("image", None)
        # Cleaned before the game is locked: decoding a photo takes longer than a write.
        image = None if upload is None else screens.checked_image(
            upload.read(images.MAX_BYTES + 1), _("The image"))
        services.question_announce(actor=request.user, game=self.get_koth(), image=image,
                                   **data)
        return self.host_state()


class CloseAPI(HostAPIView):
    @extend_schema(tags=TAG, request=None, responses={200: s.StateSerializer, **ERRORS},
                   summary="Close the question: the move is played")
    def post(self, request, game_id: int):
        services.question_close(actor=request.user, game=self.get_koth())
        return self.host_state()


class JudgeAPI(HostAPIView):
    @extend_schema(tags=TAG, request=s.JudgeSerializer,
                   responses={200: s.StateSerializer, **CHANGE_ERRORS},
                   summary="Judge a whole group of identical (normalised) answers")
    def post(self, request, game_id: int):
        data = self.payload(s.JudgeSerializer)
        services.answers_judge(actor=request.user, game=self.get_koth(), **data)
        return self.host_state()


class GroupsMergeAPI(HostAPIView):
    @extend_schema(tags=TAG, request=s.GroupsSerializer,
                   responses={200: s.StateSerializer, **ERRORS},
                   summary="Merge answer groups of the open question that are the same answer")
    def post(self, request, game_id: int):
        data = self.payload(s.GroupsSerializer)
        grouping.groups_merge(actor=request.user, game=self.get_koth(), **data)
        return self.host_state()


class GroupsSplitAPI(HostAPIView):
    @extend_schema(tags=TAG, request=s.SplitSerializer,
                   responses={200: s.StateSerializer, **ERRORS},
                   summary="Split a merged answer group back into its answers")
    def post(self, request, game_id: int):
        data = self.payload(s.SplitSerializer)
        grouping.groups_split(actor=request.user, game=self.get_koth(), **data)
        return self.host_state()


class GroupsApartAPI(HostAPIView):
    @extend_schema(tags=TAG, request=s.GroupsSerializer,
                   responses={200: s.StateSerializer, **ERRORS},
                   summary="Keep suggested groups apart: not suggested again for this question")
    def post(self, request, game_id: int):
        data = self.payload(s.GroupsSerializer)
        grouping.groups_keep_apart(actor=request.user, game=self.get_koth(), **data)
        return self.host_state()


class VerdictAPI(HostAPIView):
    @extend_schema(tags=TAG, request=s.VerdictSerializer,
                   responses={200: s.StateSerializer, **CHANGE_ERRORS},
                   summary="Change one answer's verdict (also of an earlier question)")
    def post(self, request, game_id: int):
        data = self.payload(s.VerdictSerializer)
        services.verdict_set(actor=request.user, game=self.get_koth(), **data)
        return self.host_state()


class PartnerAPI(HostAPIView):
    @extend_schema(tags=TAG, request=s.PartnerSerializer,
                   responses={200: s.StateSerializer, **CHANGE_ERRORS},
                   summary="Mark or unmark a partner question")
    def post(self, request, game_id: int):
        data = self.payload(s.PartnerSerializer)
        services.partner_set(actor=request.user, game=self.get_koth(), **data)
        return self.host_state()


class AppealAcceptAPI(HostAPIView):
    @extend_schema(tags=TAG, request=s.AppealAcceptSerializer,
                   responses={200: s.StateSerializer, **CHANGE_ERRORS},
                   summary="Accept a team's appeal: its verdict flips (409 previews it first)")
    def post(self, request, game_id: int):
        data = self.payload(s.AppealAcceptSerializer)
        appeals.appeal_accept(actor=request.user, game=self.get_koth(), **data)
        return self.host_state()


class AppealRejectAPI(HostAPIView):
    @extend_schema(tags=TAG, request=s.AppealRejectSerializer,
                   responses={200: s.StateSerializer, **ERRORS},
                   summary="Reject a team's appeal with an answer its phone shows")
    def post(self, request, game_id: int):
        data = self.payload(s.AppealRejectSerializer)
        appeals.appeal_reject(actor=request.user, game=self.get_koth(), **data)
        return self.host_state()


class HostsAPI(KothAPIView):
    permission_classes = [IsOrganizer]

    def hosts(self):
        koth = self.get_koth()
        return Response({"hosts": [{"id": u.pk, "username": u.get_username()}
                                   for u in selectors.game_hosts(koth)]})

    @extend_schema(tags=TAG, responses={200: s.HostsSerializer, **ERRORS},
                   summary="The hosts assigned to the game (organizers)")
    def get(self, request, game_id: int):
        return self.hosts()

    @extend_schema(tags=TAG, request=s.HostAssignSerializer,
                   responses={200: s.HostsSerializer, **ERRORS},
                   summary="Assign a host to the game, or take the game from them")
    def post(self, request, game_id: int):
        data = self.payload(s.HostAssignSerializer)
        user = User.objects.filter(pk=data["user"], is_active=True).first()
        if user is None:
            raise DomainError(_("No such account."))
        services.host_assign(actor=request.user, game=self.get_koth(), user=user,
                             assigned=data["assigned"])
        return self.hosts()


class CountdownAPI(HostAPIView):
    @extend_schema(tags=TAG, request=s.CountdownSerializer,
                   responses={200: s.StateSerializer, **ERRORS},
                   summary="Start (seconds > 0) or stop (0) the answers' countdown")
    def post(self, request, game_id: int):
        data = self.payload(s.CountdownSerializer)
        services.countdown_set(actor=request.user, game=self.get_koth(), **data)
        return self.host_state()


class CountdownPauseAPI(HostAPIView):
    @extend_schema(tags=TAG, request=None, responses={200: s.StateSerializer, **ERRORS},
                   summary="Pause the running countdown: it keeps its seconds left")
    def post(self, request, game_id: int):
        services.countdown_pause(actor=request.user, game=self.get_koth())
        return self.host_state()


class CountdownResumeAPI(HostAPIView):
    @extend_schema(tags=TAG, request=None, responses={200: s.StateSerializer, **ERRORS},
                   summary="Resume the paused countdown with the seconds it kept")
    def post(self, request, game_id: int):
        services.countdown_resume(actor=request.user, game=self.get_koth())
        return self.host_state()


class CountdownAdjustAPI(HostAPIView):
    @extend_schema(tags=TAG, request=s.CountdownAdjustSerializer,
                   responses={200: s.StateSerializer, **ERRORS},
                   summary="Add or remove seconds of the countdown, running or paused")
    def post(self, request, game_id: int):
        data = self.payload(s.CountdownAdjustSerializer)
        services.countdown_adjust(actor=request.user, game=self.get_koth(), **data)
        return self.host_state()


class AnswersAfterZeroAPI(HostAPIView):
    @extend_schema(tags=TAG, request=s.AnswersAfterZeroSerializer,
                   responses={200: s.StateSerializer, **ERRORS},
                   summary="Whether answers are still taken after the countdown has run out")
    def post(self, request, game_id: int):
        data = self.payload(s.AnswersAfterZeroSerializer)
        services.answers_after_zero_set(actor=request.user, game=self.get_koth(), **data)
        return self.host_state()


class ScreensAPI(HostAPIView):
    @extend_schema(tags=TAG, request=s.ScreensSerializer,
                   responses={200: s.StateSerializer, **ERRORS},
                   summary="When the projector and the phones show a question, by default")
    def post(self, request, game_id: int):
        data = self.payload(s.ScreensSerializer)
        screens.screen_defaults_set(actor=request.user, game=self.get_koth(), **data)
        return self.host_state()


class RevealAPI(HostAPIView):
    @extend_schema(tags=TAG, request=s.RevealSerializer,
                   responses={200: s.StateSerializer, **ERRORS},
                   summary="Show (or hide) the last closed question and its answer on screens")
    def post(self, request, game_id: int):
        data = self.payload(s.RevealSerializer)
        services.question_reveal(actor=request.user, game=self.get_koth(), **data)
        return self.host_state()


# --- the question bank --------------------------------------------------------------------------


class BankAPI(HostAPIView):
    def bank(self):
        return Response({"bank": selectors.bank_listing(self.get_koth())})

    @extend_schema(tags=TAG, responses={200: s.BankSerializer, **ERRORS},
                   summary="The question bank in order, with each question's place in the queue")
    def get(self, request, game_id: int):
        return self.bank()


class BankEditAPI(BankAPI):
    @extend_schema(tags=TAG, request=s.BankEditSerializer,
                   responses={200: s.BankSerializer, **ERRORS},
                   summary="Edit a prepared question not yet announced")
    def post(self, request, game_id: int):
        data = self.payload(s.BankEditSerializer)
        bank_edits.bank_question_edit(actor=request.user, game=self.get_koth(), **data)
        return self.bank()


class BankMoveAPI(BankAPI):
    @extend_schema(tags=TAG, request=s.BankMoveSerializer,
                   responses={200: s.BankSerializer, **ERRORS},
                   summary="Move a prepared question to another place in the queue")
    def post(self, request, game_id: int):
        data = self.payload(s.BankMoveSerializer)
        bank_edits.bank_question_move(actor=request.user, game=self.get_koth(), **data)
        return self.bank()


# --- team actions -----------------------------------------------------------------------------


class DeclareAPI(TeamAPIView):
    @extend_schema(tags=TAG, request=s.DeclareSerializer,
                   responses={200: s.StateSerializer, **ERRORS},
                   summary="Declare a jump or a revolution (or withdraw) before the announcement")
    def post(self, request, game_id: int):
        kind = self.payload(s.DeclareSerializer)["kind"]
        if kind == "none":
            services.declaration_withdraw(game=self.get_koth(), application=self.entry)
        else:
            services.declaration_submit(game=self.get_koth(), application=self.entry,
                                        kind=kind)
        return self.team_state()


class AnswerAPI(TeamAPIView):
    @extend_schema(tags=TAG, request=s.AnswerSerializer,
                   responses={200: s.StateSerializer, **ERRORS},
                   summary="The team's one answer; a retry with the same client_id is harmless")
    def post(self, request, game_id: int):
        data = self.payload(s.AnswerSerializer)
        # The game row is read once, locked, by the service (a missing one is a 404 there).
        services.answer_submit(game=self.kwargs["game_id"], application=self.entry, **data)
        return self.team_state()


class AppealAPI(TeamAPIView):
    @extend_schema(tags=TAG, request=s.AppealSerializer,
                   responses={200: s.StateSerializer, **ERRORS},
                   summary="Appeal the team's verdict on the last closed question")
    def post(self, request, game_id: int):
        data = self.payload(s.AppealSerializer)
        appeals.appeal_file(game=self.get_koth(), application=self.entry, **data)
        return self.team_state()
