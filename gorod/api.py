"""The GoRoD API (``/gorod/api/…``): every action the organizer screen and the team phones
perform. Views parse, authorize and call one service; ``DomainError`` becomes
``{"detail": ...}`` with 400 (403 for ``NotAllowed``)."""

from __future__ import annotations

from django.http import Http404
from django.utils.translation import gettext as _
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import status
from rest_framework.permissions import IsAuthenticated
from rest_framework.response import Response

from core.api import JSONFileAPIView, PublicReadAPIView, ServiceAPIView
from core.errors import NotAllowed
from core.permissions import IsOrganizer
from gorod import proposals, scenario, selectors, services
from gorod import serializers as s
from gorod.live import LIVE
from gorod.models import GorodGame
from live.messages import PUBLIC, Stored, team_audience
from teams.models import Team
from teams.permissions import TeamPhoneAPIView

TAG = ["GoRoD"]
ERRORS = {400: s.ErrorSerializer, 403: s.ErrorSerializer, 404: s.ErrorSerializer}


class GorodAPIView(ServiceAPIView):
    # A service's DomainError becomes {"detail"} with its status (400, 403 for NotAllowed) in
    # core.api.exception_handler.
    def get_gorod(self) -> GorodGame:
        try:
            return selectors.gorod_game(self.kwargs["game_id"])
        except GorodGame.DoesNotExist:
            raise Http404(_("No GoRoD game here.")) from None



class OrganizerAPIView(GorodAPIView):
    permission_classes = [IsOrganizer]

    def organizer_state(self):
        return selectors.read_stored(self.get_gorod(), kind="organizer").response()


class TeamAPIView(TeamPhoneAPIView, GorodAPIView):
    def team_stored(self) -> Stored:
        # By the game's id: the phone's entry already proved the game exists.
        stored = LIVE.read(self.kwargs["game_id"], team_audience(self.entry.pk))
        if stored is None:
            raise NotAllowed(_("This team does not play in this game."))
        return stored

    def team_state(self):
        return self.team_stored().response()


# --- reads ------------------------------------------------------------------------------------


class PublicStateAPI(PublicReadAPIView):
    @extend_schema(tags=TAG, responses={200: s.GorodStateSerializer, 404: s.ErrorSerializer},
                   summary="Public state: the game and, once it is over, the statistics")
    def get(self, request, game_id: int):
        return self.read(request, game_id=game_id)

    def read(self, request, game_id: int):
        # One query: the stored state by the game's id (the most frequent read: projectors).
        stored = LIVE.read_by_id(game_id, PUBLIC)
        if stored is None:
            raise Http404(_("No GoRoD game here."))
        return stored.response()


class OrganizerStateAPI(OrganizerAPIView):
    @extend_schema(tags=TAG, responses={200: s.GorodStateSerializer, **ERRORS},
                   summary="Organizer state: live statistics, attempts log, rulings")
    def get(self, request, game_id: int):
        return self.organizer_state()


class TeamStateAPI(TeamAPIView):
    @extend_schema(tags=TAG, responses={200: s.GorodStateSerializer, **ERRORS},
                   summary="Team state: its level, hints, deadlines and its own attempts")
    def get(self, request, game_id: int):
        return self.team_state()


class RecordAPI(JSONFileAPIView, OrganizerAPIView):
    @extend_schema(
        tags=TAG, responses={200: dict, **ERRORS},
        parameters=[OpenApiParameter("download", bool, description="as a file attachment")],
        summary="The game record in the contract format (replay gives the live statistics)")
    def get(self, request, game_id: int):
        return self.file_response(services.game_record(self.get_gorod()),
                                  f"gorod-{game_id}.json")


# --- organizer actions ------------------------------------------------------------------------


class CreateAPI(GorodAPIView):
    permission_classes = [IsOrganizer]

    @extend_schema(tags=TAG, request=s.GorodCreateSerializer,
                   responses={201: s.GorodCreatedSerializer, **ERRORS},
                   summary="Set up the live GoRoD of a scheduled game, with its levels")
    def post(self, request):
        data = self.payload(s.GorodCreateSerializer)
        levels = [dict(level) for level in data.pop("levels")]
        gg = services.gorod_create(actor=request.user, game=data.pop("game"), levels=levels,
                                   **data)
        return Response({"id": gg.pk}, status=status.HTTP_201_CREATED)


class RoutesAPI(OrganizerAPIView):
    @extend_schema(tags=TAG, request=s.GorodRoutesSerializer, responses={200: dict, **ERRORS},
                   summary="Generate routes for a non-linear game (before the start)")
    def post(self, request, game_id: int):
        seed = self.payload(s.GorodRoutesSerializer)["seed"]
        routes = services.routes_generate(actor=request.user, game=self.get_gorod(), seed=seed)
        return Response({str(k): v for k, v in routes.items()})


class StartAPI(OrganizerAPIView):
    @extend_schema(tags=TAG, request=None, responses={200: s.GorodStateSerializer, **ERRORS},
                   summary="Start the game: every team receives its first level now")
    def post(self, request, game_id: int):
        services.game_start(actor=request.user, game=self.get_gorod())
        return self.organizer_state()


class EndAPI(OrganizerAPIView):
    @extend_schema(tags=TAG, request=None, responses={200: s.GorodStateSerializer, **ERRORS},
                   summary="End the game now; teams still playing are stopped")
    def post(self, request, game_id: int):
        services.game_end(actor=request.user, game=self.get_gorod())
        return self.organizer_state()


class PauseAPI(OrganizerAPIView):
    @extend_schema(tags=TAG, request=s.GorodPauseSerializer,
                   responses={200: s.GorodStateSerializer, **ERRORS},
                   summary="Pause the whole game now (3.5, 9.1): every team's clock stops")
    def post(self, request, game_id: int):
        data = self.payload(s.GorodPauseSerializer)
        services.game_pause(actor=request.user, game=self.get_gorod(), **data)
        return self.organizer_state()


class ResumeAPI(OrganizerAPIView):
    @extend_schema(tags=TAG, request=None, responses={200: s.GorodStateSerializer, **ERRORS},
                   summary="Resume the paused game: open levels move by the pause's length")
    def post(self, request, game_id: int):
        services.game_resume(actor=request.user, game=self.get_gorod())
        return self.organizer_state()


class EndForceMajeureAPI(OrganizerAPIView):
    @extend_schema(tags=TAG, request=s.GorodEndForceMajeureSerializer,
                   responses={200: s.GorodStateSerializer, **ERRORS},
                   summary="End the game as force majeure for everyone (3.5): every open "
                           "level closes as force majeure")
    def post(self, request, game_id: int):
        data = self.payload(s.GorodEndForceMajeureSerializer)
        services.game_end_force_majeure(actor=request.user, game=self.get_gorod(), **data)
        return self.organizer_state()


class RulingAPI(OrganizerAPIView):
    @extend_schema(tags=TAG, request=s.GorodRulingSerializer,
                   responses={200: s.GorodStateSerializer, **ERRORS},
                   summary="Add a ruling (penalty, bonus, fail, force majeure, timeout, "
                           "average time, disqualification); the engine checks it")
    def post(self, request, game_id: int):
        data = self.payload(s.GorodRulingSerializer)
        services.ruling_add(actor=request.user, game=self.get_gorod(),
                            application=data.pop("application"), **data)
        return self.organizer_state()


class RulingPreviewAPI(OrganizerAPIView):
    @extend_schema(tags=TAG, request=s.GorodRulingPreviewSerializer,
                   responses={200: s.GorodPreviewSerializer, **ERRORS},
                   summary="What a ruling would change in the standings (nothing is stored)")
    def post(self, request, game_id: int):
        data = self.payload(s.GorodRulingPreviewSerializer)
        preview = services.ruling_preview(actor=request.user, game=self.get_gorod(),
                                          application=data.pop("application"), **data)
        return Response(preview.as_data())


class LeaderboardAPI(OrganizerAPIView):
    @extend_schema(tags=TAG, request=s.GorodLeaderboardSerializer,
                   responses={200: s.GorodStateSerializer, **ERRORS},
                   summary="Switch the live public leaderboard on or off")
    def post(self, request, game_id: int):
        public = self.payload(s.GorodLeaderboardSerializer)["public"]
        services.leaderboard_set(actor=request.user, game=self.get_gorod(), public=public)
        return self.organizer_state()


class AutostartAPI(OrganizerAPIView):
    @extend_schema(tags=TAG, request=s.GorodSwitchSerializer,
                   responses={200: s.GorodStateSerializer, **ERRORS},
                   summary="Arm or disarm the start by the clock at the game's announced time "
                           "(before the start; refused while the set-up would stop it)")
    def post(self, request, game_id: int):
        on = self.payload(s.GorodSwitchSerializer)["on"]
        services.autostart_set(actor=request.user, game=self.get_gorod(), on=on)
        return self.organizer_state()


class ScenarioPublishAPI(OrganizerAPIView):
    @extend_schema(tags=TAG, request=s.GorodSwitchSerializer,
                   responses={200: s.GorodStateSerializer, **ERRORS},
                   summary="Publish the scenario (tasks, hints, codes, statistics) to everyone, "
                           "or take it back (only once the game has ended)")
    def post(self, request, game_id: int):
        on = self.payload(s.GorodSwitchSerializer)["on"]
        services.scenario_publish(actor=request.user, game=self.get_gorod(), on=on)
        return self.organizer_state()


class RulingUndoAPI(OrganizerAPIView):
    @extend_schema(tags=TAG, request=s.GorodRulingUndoSerializer,
                   responses={200: s.GorodStateSerializer, **ERRORS},
                   summary="Undo a ruling with a reason; the engine replays the game without it")
    def post(self, request, game_id: int, ruling_id: int):
        data = self.payload(s.GorodRulingUndoSerializer)
        services.ruling_undo(actor=request.user, game=self.get_gorod(), ruling=ruling_id, **data)
        return self.organizer_state()


class RulingUndoPreviewAPI(OrganizerAPIView):
    @extend_schema(tags=TAG, request=None, responses={200: s.GorodPreviewSerializer, **ERRORS},
                   summary="What undoing a ruling would change in the standings (nothing is "
                           "stored)")
    def post(self, request, game_id: int, ruling_id: int):
        preview = services.undo_preview(actor=request.user, game=self.get_gorod(),
                                        ruling=ruling_id)
        return Response(preview.as_data())


class RulingEditPreviewAPI(OrganizerAPIView):
    @extend_schema(tags=TAG, request=s.GorodRulingEditPreviewSerializer,
                   responses={200: s.GorodPreviewSerializer, **ERRORS},
                   summary="What correcting a ruling would change in the standings (nothing is "
                           "stored)")
    def post(self, request, game_id: int, ruling_id: int):
        data = self.payload(s.GorodRulingEditPreviewSerializer)
        preview = services.edit_preview(actor=request.user, game=self.get_gorod(),
                                        ruling=ruling_id, **data)
        return Response(preview.as_data())


class RulingEditAPI(OrganizerAPIView):
    @extend_schema(tags=TAG, request=s.GorodRulingEditSerializer,
                   operation_id="gorod_api_games_rulings_edit",
                   responses={200: s.GorodStateSerializer, **ERRORS},
                   summary="Correct a ruling's minutes, level, moment or reason; the engine "
                           "checks it like a new one")
    def post(self, request, game_id: int, ruling_id: int):
        data = self.payload(s.GorodRulingEditSerializer)
        services.ruling_edit(actor=request.user, game=self.get_gorod(), ruling=ruling_id, **data)
        return self.organizer_state()


class TimeoutDecideAPI(OrganizerAPIView):
    @extend_schema(tags=TAG, request=s.GorodDecisionSerializer,
                   responses={200: s.GorodStateSerializer, **ERRORS},
                   summary="Confirm (the timeout starts now) or refuse a team's timeout request")
    def post(self, request, game_id: int, request_id: int):
        data = self.payload(s.GorodDecisionSerializer)
        services.timeout_decide(actor=request.user, game=self.get_gorod(), request=request_id,
                                confirm=data["accept"], answer=data["answer"])
        return self.organizer_state()


class PhotoDecideAPI(OrganizerAPIView):
    @extend_schema(tags=TAG, request=s.GorodDecisionSerializer,
                   responses={200: s.GorodStateSerializer, **ERRORS},
                   summary="Accept (the level closes at the upload) or reject a team's photo")
    def post(self, request, game_id: int, photo_id: int):
        data = self.payload(s.GorodDecisionSerializer)
        services.photo_decide(actor=request.user, game=self.get_gorod(), photo=photo_id,
                              accept=data["accept"], answer=data["answer"])
        return self.organizer_state()


class MessageAPI(OrganizerAPIView):
    @extend_schema(tags=TAG, request=s.GorodMessageSerializer,
                   responses={200: s.GorodStateSerializer, **ERRORS},
                   summary="Send a message (to all teams, the teams on a level, one team) or a "
                           "bonus hint to the teams on its level")
    def post(self, request, game_id: int):
        data = self.payload(s.GorodMessageSerializer)
        services.message_send(actor=request.user, game=self.get_gorod(), **data)
        return self.organizer_state()


class TestRunsAPI(OrganizerAPIView):
    @extend_schema(tags=TAG, request=s.GorodTestRunSerializer,
                   responses={201: s.GorodTestRunCreatedSerializer, **ERRORS},
                   summary="Make a test run of a game in set-up: a copy with test teams (join "
                           "links and PINs) on a real or speeded-up clock, never in results")
    def post(self, request, game_id: int):
        data = self.payload(s.GorodTestRunSerializer)
        gg = services.test_run_create(actor=request.user, game=self.get_gorod(), **data)
        teams = [{"id": a.pk, "name": a.team.name, "pin": a.join_pin}
                 for a in selectors.entries(gg)]
        return Response({"id": gg.pk, "title": gg.game.title, "factor": gg.clock_factor,
                         "teams": teams}, status=status.HTTP_201_CREATED)


class TestRunAPI(OrganizerAPIView):
    @extend_schema(tags=TAG, request=None, responses={200: dict, **ERRORS},
                   summary="Delete a test run with its test teams and all played in it")
    def delete(self, request, game_id: int):
        source = services.test_run_delete(actor=request.user, game=self.get_gorod())
        return Response({"deleted": game_id, "source": source})


class TestRunResetAPI(OrganizerAPIView):
    @extend_schema(tags=TAG, request=None, responses={200: s.GorodStateSerializer, **ERRORS},
                   summary="Reset a test run to set-up: attempts, rulings, pauses, messages "
                           "cleared; levels and test teams kept")
    def post(self, request, game_id: int):
        services.test_run_reset(actor=request.user, game=self.get_gorod())
        return self.organizer_state()


FIX_FIELDS = ("task", "hint1", "hint2", "codes")


class LevelFixAPI(OrganizerAPIView):
    @extend_schema(tags=TAG, parameters=[OpenApiParameter("level", str, required=True)],
                   responses={200: s.GorodLevelFixFormSerializer, **ERRORS},
                   summary="A started level's texts and codes, as the fix form starts from")
    def get(self, request, game_id: int):
        return Response(services.fix_form(actor=request.user, game=self.get_gorod(),
                                          level=request.query_params.get("level", "")))

    @extend_schema(tags=TAG, request=s.GorodLevelFixSerializer,
                   responses={200: s.GorodStateSerializer, **ERRORS},
                   summary="Fix a level during play: its task, hints and codes; the stored "
                           "attempts matching corrected codes are credited")
    def post(self, request, game_id: int):
        data = self.payload(s.GorodLevelFixSerializer)
        services.level_fix(actor=request.user, game=self.get_gorod(), level=data["level"],
                           reason=data["reason"], confirm=data["confirm"],
                           **{k: data[k] for k in FIX_FIELDS if k in data})
        return self.organizer_state()


class LevelFixPreviewAPI(OrganizerAPIView):
    @extend_schema(tags=TAG, request=s.GorodLevelFixPreviewSerializer,
                   responses={200: s.GorodLevelFixPreviewResultSerializer, **ERRORS},
                   summary="What fixing a level would credit and change in the standings "
                           "(nothing is stored)")
    def post(self, request, game_id: int):
        data = self.payload(s.GorodLevelFixPreviewSerializer)
        preview = services.fix_preview(actor=request.user, game=self.get_gorod(),
                                       level=data["level"], reason=data["reason"],
                                       **{k: data[k] for k in FIX_FIELDS if k in data})
        return Response(preview.as_data())


# --- team actions -----------------------------------------------------------------------------


class TimeoutAskAPI(TeamAPIView):
    @extend_schema(tags=TAG, request=s.GorodTimeoutAskSerializer,
                   responses={200: s.GorodStateSerializer, **ERRORS},
                   summary="Ask the organizer for the team's timeout (1–30 min, once per game)")
    def post(self, request, game_id: int):
        data = self.payload(s.GorodTimeoutAskSerializer)
        services.timeout_request(game=self.get_gorod(), application=self.entry, **data)
        return self.team_state()


class PhotoAPI(TeamAPIView):
    @extend_schema(tags=TAG, request={"multipart/form-data": s.GorodPhotoSerializer},
                   responses={200: s.GorodStateSerializer, **ERRORS},
                   summary="Send the photo of a photo-proof level for the organizer to accept")
    def post(self, request, game_id: int):
        photo = self.payload(s.GorodPhotoSerializer)["photo"]
        services.photo_submit(game=self.get_gorod(), application=self.entry,
                              data=photo.read(services.IMAGE_MAX_BYTES + 1))
        return self.team_state()


class MessagesSeenAPI(TeamAPIView):
    @extend_schema(tags=TAG, request=s.GorodMessagesSeenSerializer,
                   responses={200: s.GorodStateSerializer, **ERRORS},
                   summary="The phone showed these messages and bonus hints (idempotent)")
    def post(self, request, game_id: int):
        ids = self.payload(s.GorodMessagesSeenSerializer)["messages"]
        services.message_seen(game=self.kwargs["game_id"], application=self.entry, messages=ids)
        return self.team_state()


class CheckInAPI(TeamAPIView):
    @extend_schema(tags=TAG, request=None, responses={200: s.GorodStateSerializer, **ERRORS},
                   summary="The team's \"all fine\" on a level of danger grade 3–4 "
                           "(idempotent within a minute)")
    def post(self, request, game_id: int):
        services.checkin(game=self.get_gorod(), application=self.entry)
        return self.team_state()


class AlarmAcknowledgeAPI(OrganizerAPIView):
    @extend_schema(tags=TAG, request=None, responses={200: s.GorodStateSerializer, **ERRORS},
                   summary="Acknowledge a team's missed safety check-in: its alarm clears")
    def post(self, request, game_id: int, application_id: int):
        services.alarm_acknowledge(actor=request.user, game=self.get_gorod(),
                                   application=application_id)
        return self.organizer_state()


def verdict_message(result: services.Submitted) -> str:
    attempt = result.attempt
    if attempt.verdict == "wrong":
        return _("Wrong code.")
    if attempt.verdict == "repeat":
        return _("This code was already found.")
    if attempt.verdict == "closed_level":
        return _("Level %(level)s is already closed: this code no longer counts (and is not "
                 "a wrong attempt).") % {"level": attempt.level.label}
    if attempt.closes_level:
        return _("Code accepted: the level is closed.")
    return _("Sector found: %(sector)s. Codes still to find: %(n)d.") % {
        "sector": attempt.sector, "n": result.remaining}


class CodeAPI(TeamAPIView):
    @extend_schema(tags=TAG, request=s.GorodCodeSerializer,
                   responses={200: s.GorodCodeResultSerializer, **ERRORS},
                   summary="Enter a code for the team's current level")
    def post(self, request, game_id: int):
        data = self.payload(s.GorodCodeSerializer)
        # The game row is read once, locked, by the service (a missing one is a 404 there).
        result = services.code_submit(game=self.kwargs["game_id"], application=self.entry,
                                      **data)
        if result.attempt.verdict == "limited":
            # A refusal like any other (400 with its detail), committed though: the refused try
            # is on the organizer's log. The phone counts ``wait_s`` down.
            return Response({"detail": _("Too many wrong codes: wait %(s)d s.")
                             % {"s": result.wait_s}, "verdict": "limited",
                             "wait_s": result.wait_s}, status=status.HTTP_400_BAD_REQUEST)
        return self.team_stored().response(
            verdict=result.attempt.verdict, sector=result.attempt.sector or None,
            remaining=result.remaining, closed=result.attempt.closes_level,
            duplicate=result.duplicate, message=verdict_message(result))


# --- scenario proposals (rules 10.1–10.4) -----------------------------------------------------


class ProposalListAPI(ServiceAPIView):
    """The captain's own teams' proposals (all of them for organizers), and a new one."""

    permission_classes = [IsAuthenticated]

    @extend_schema(tags=TAG, responses={200: s.ProposalSerializer(many=True), **ERRORS},
                   summary="Scenario proposals: an organizer sees every one, a captain their "
                           "teams' own")
    def get(self, request):
        return Response(s.ProposalSerializer(proposals.visible_to(request.user), many=True).data)

    @extend_schema(tags=TAG, request={"multipart/form-data": s.ProposalCreateSerializer},
                   responses={201: s.ProposalSerializer, **ERRORS},
                   summary="A captain proposes a scenario file (the set-up's format, checked "
                           "as an import) for a future GoRoD game or for any")
    def post(self, request):
        data = self.payload(s.ProposalCreateSerializer)
        team = Team.objects.filter(pk=data["team"]).first()
        if team is None:
            raise NotAllowed(_("Only the team's captain proposes or withdraws its scenarios."))
        upload = data["file"]
        proposal = proposals.propose(
            actor=request.user, team=team, game=data.get("game"), note=data["note"],
            file_name=upload.name, content=upload.read(scenario.MAX_BYTES + 1))
        return Response(s.ProposalSerializer(proposal).data, status=status.HTTP_201_CREATED)


class ProposalAPIView(ServiceAPIView):
    permission_classes = [IsAuthenticated]

    def proposal(self):
        return proposals.visible(self.request.user, self.kwargs["proposal_id"])

    def answer(self, proposal) -> Response:
        return Response(s.ProposalSerializer(proposals.visible(
            self.request.user, proposal.pk)).data)


class ProposalDetailAPI(ProposalAPIView):
    @extend_schema(tags=TAG, responses={200: s.ProposalSerializer, **ERRORS},
                   summary="One proposal (its team's captain and organizers only)")
    def get(self, request, proposal_id: int):
        return Response(s.ProposalSerializer(self.proposal()).data)


class ProposalWithdrawAPI(ProposalAPIView):
    @extend_schema(tags=TAG, request=None, responses={200: s.ProposalSerializer, **ERRORS},
                   summary="The captain takes a pending proposal back")
    def post(self, request, proposal_id: int):
        return self.answer(proposals.withdraw(actor=request.user, proposal=self.proposal()))


class ProposalAcceptAPI(ProposalAPIView):
    permission_classes = [IsOrganizer]

    @extend_schema(tags=TAG, request=s.ProposalAcceptSerializer,
                   responses={200: s.ProposalSerializer, **ERRORS},
                   summary="Accept: the file becomes the game's scenario, the team its "
                           "organizing team, and its application to play it is rejected")
    def post(self, request, proposal_id: int):
        data = self.payload(s.ProposalAcceptSerializer)
        return self.answer(proposals.accept(actor=request.user, proposal=self.proposal(),
                                            game=data.get("game"), answer=data["answer"]))


class ProposalRejectAPI(ProposalAPIView):
    permission_classes = [IsOrganizer]

    @extend_schema(tags=TAG, request=s.ProposalRejectSerializer,
                   responses={200: s.ProposalSerializer, **ERRORS},
                   summary="Reject with an answer; the file stays with the team and organizers")
    def post(self, request, proposal_id: int):
        data = self.payload(s.ProposalRejectSerializer)
        return self.answer(proposals.reject(actor=request.user, proposal=self.proposal(),
                                            answer=data["answer"]))
