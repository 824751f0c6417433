"""Scenario proposals (GoRoD rules 10.1–10.4): a team's captain offers a scenario file for a
future game; an organizer accepts it — the file becomes that game's scenario and the team its
organizing team, which does not play it (10.3) — or rejects it, and a rejected scenario stays
confidential: only the team's captain and the organizers ever see the file.

The file is the scenario file the set-up imports (``gorod.scenario``), checked by the same
``parse_scenario`` when it is uploaded and again when it is accepted; accepting imports it
through ``services.scenario_import``, the set-up's own live write. The module
sits above ``gorod.services`` and below the callers (``tests/gorod/test_code_path.py``).

[decision] Routes name the teams that play, which a team proposing a night cannot know: a
proposal with ``routes`` is refused (the organizer generates routes once the teams are
approved). [decision] Task images are not part of a scenario file: a level naming one is
accepted only once the organizer has uploaded it to the game (the import says which).
"""

from __future__ import annotations

from datetime import datetime

from django.db import transaction
from django.db.models import Case, IntegerField, Value, When
from django.utils import timezone
from django.utils.translation import gettext as _

from core import audit
from core.errors import DomainError, NotAllowed, NotFound
from core.roles import is_organizer
from core.text import within
from gorod import scenario, services
from gorod.models import GorodGame, ScenarioProposal
from teams import services as teams_services
from teams.models import Application, Game, Team

Status = ScenarioProposal.Status
#: [decision] pending proposals a team may have at once: the organizer answers them first
PENDING_MAX = 3
NOTE_MAX = 2000
ANSWER_MAX = 2000
NAME_MAX = 200


# --- reads --------------------------------------------------------------------------------------


def target_games(now: datetime | None = None):
    """The games a scenario can go to: GoRoD games announced and not started, soonest first
    (a game whose GoRoD is not set up yet counts: accepting sets it up)."""
    now = now or timezone.now()
    return (Game.objects.filter(format=Game.Format.GOROD, status=Game.Status.SCHEDULED,
                                starts_at__gt=now)
            .exclude(gorod__status__in=[GorodGame.Status.RUNNING, GorodGame.Status.FINISHED])
            .select_related("organizing_team").order_by("starts_at", "pk"))


def of_team(team: Team):
    """The team's own proposals, newest first."""
    return ScenarioProposal.objects.filter(team=team).select_related("game")


def for_organizers():
    """Every proposal, the pending ones first and oldest first (10.4: the date of submission
    is one of what decides between teams), then the decided ones, newest first."""
    pending_first = Case(When(status=Status.PENDING, then=Value(0)), default=Value(1),
                         output_field=IntegerField())
    return (ScenarioProposal.objects.select_related("team", "game", "decided_by")
            .annotate(pending_first=pending_first)
            .order_by("pending_first", "created_at", "id"))


def visible_to(user):
    """What ``user`` may list: every proposal for organizers, their teams' for captains."""
    rows = for_organizers()
    return rows if is_organizer(user) else rows.filter(team__captain_id=user.pk)


def may_see(user, proposal: ScenarioProposal) -> bool:
    """Organizers and the team's captain; nobody else, whatever its status (10.3)."""
    return is_organizer(user) or (getattr(user, "is_authenticated", False)
                                  and proposal.team.captain_id == user.pk)


def visible(user, proposal_id: int) -> ScenarioProposal:
    """The proposal ``user`` may see, or the refusal (403 for anyone else, so nobody learns
    which proposals exist)."""
    proposal = ScenarioProposal.objects.select_related("team", "game").filter(
        pk=proposal_id).first()
    if proposal is None:
        if not is_organizer(user):
            raise NotAllowed(_("Only the team's captain and the organizers see a proposal."))
        raise NotFound(_("There is no such scenario proposal."))
    if not may_see(user, proposal):
        raise NotAllowed(_("Only the team's captain and the organizers see a proposal."))
    return proposal


def checked(content: bytes | str) -> scenario.Scenario:
    """The scenario of a proposal's file, or ``ScenarioError`` with every problem."""
    parsed = scenario.parse_scenario(scenario.loads(content))
    if parsed.routes:
        raise scenario.ScenarioError([_(
            "routes: a proposal cannot name the teams that will play; leave the routes out "
            "(the organizer generates them once the teams are approved)")])
    return parsed


# --- the captain's writes -----------------------------------------------------------------------


def _require_captain(actor, team: Team) -> None:
    if not getattr(actor, "is_authenticated", False) or team.captain_id != actor.pk:
        raise NotAllowed(_("Only the team's captain proposes or withdraws its scenarios."))


def _open_game(game: Game | int, team: Team, now: datetime) -> Game:
    """The target game, locked, while a scenario can still go to it for ``team``."""
    game_id = game if isinstance(game, int) else game.pk
    found = Game.objects.select_for_update().filter(pk=game_id).first()
    if found is None or found.format != Game.Format.GOROD:
        raise DomainError(_("A scenario is proposed for a GoRoD game."))
    started = GorodGame.objects.filter(pk=found.pk).exclude(
        status=GorodGame.Status.SETUP).exists()
    if found.status != Game.Status.SCHEDULED or found.starts_at <= now or started:
        raise DomainError(_("«%(game)s» has already started, ended or been cancelled: a "
                            "scenario can go only to a game still to come.")
                          % {"game": found.title})
    if found.organizing_team_id not in (None, team.pk):
        raise DomainError(_("«%(game)s» already has its organizing team.")
                          % {"game": found.title})
    return found


def _value(proposal: ScenarioProposal) -> dict:
    return {"proposal": proposal.pk, "team": proposal.team_id, "game": proposal.game_id,
            "file": proposal.file_name, "status": proposal.status}


@transaction.atomic
def propose(*, actor, team: Team, file_name: str, content: bytes | str, note: str = "",
            game: Game | int | None = None, now: datetime | None = None) -> ScenarioProposal:
    """The captain offers a scenario file for ``game`` (None: any future game). The file is
    checked as the set-up checks an import (``ScenarioError`` lists every problem)."""
    now = now or timezone.now()
    _require_captain(actor, team)
    note = within((note or "").strip(), max_length=NOTE_MAX, what=_("Note"))
    name = str(file_name or "").replace("\\", "/").rsplit("/", 1)[-1].strip()
    if not name:
        raise DomainError(_("Choose the scenario file."))
    name = within(name, max_length=NAME_MAX, what=_("File name"))
    # Read before anything is locked: a 2 MB file takes a moment to check.
    parsed = checked(content)
    target = _open_game(game, team, now) if game is not None else None
    Team.objects.select_for_update().filter(pk=team.pk).first()  # one count at a time
    if ScenarioProposal.objects.filter(team=team, status=Status.PENDING).count() >= PENDING_MAX:
        raise DomainError(_("The team already has %(n)d proposals waiting for the organizer: "
                            "withdraw one or wait for an answer.") % {"n": PENDING_MAX})
    text = content.decode("utf-8-sig") if isinstance(content, bytes) else content
    proposal = ScenarioProposal.objects.create(
        team=team, game=target, file_name=name, content=text, levels=len(parsed.levels),
        note=note, created_by=actor, created_at=now)
    audit.record(game=target, actor=actor, action="gorod.proposal", at=now, before=None,
                 after=_value(proposal))
    return proposal


def _locked(proposal: ScenarioProposal | int) -> ScenarioProposal:
    proposal_id = proposal if isinstance(proposal, int) else proposal.pk
    found = (ScenarioProposal.objects.select_for_update().select_related("team")
             .filter(pk=proposal_id).first())
    if found is None:
        raise NotFound(_("There is no such scenario proposal."))
    return found


def _require_pending(proposal: ScenarioProposal) -> None:
    if proposal.status != Status.PENDING:
        raise DomainError(_("This proposal is already %(status)s.")
                          % {"status": proposal.get_status_display()})


@transaction.atomic
def withdraw(*, actor, proposal: ScenarioProposal | int,
             now: datetime | None = None) -> ScenarioProposal:
    """The captain takes a pending proposal back (the file stays in the team's list)."""
    now = now or timezone.now()
    proposal = _locked(proposal)
    _require_captain(actor, proposal.team)
    _require_pending(proposal)
    before = _value(proposal)
    proposal.status = Status.WITHDRAWN
    proposal.decided_by, proposal.decided_at = actor, now
    proposal.save(update_fields=["status", "decided_by", "decided_at"])
    audit.record(game=proposal.game_id, actor=actor, action="gorod.proposal", at=now,
                 before=before, after=_value(proposal))
    return proposal


# --- the organizer's decisions ------------------------------------------------------------------


@transaction.atomic
def accept(*, actor, proposal: ScenarioProposal | int, game: Game | int | None = None,
           answer: str = "", now: datetime | None = None) -> ScenarioProposal:
    """Make the proposal ``game``'s scenario (the game it was offered for when none is given):
    the GoRoD is set up if it was not, the file imported (refused if the game started or the
    file no longer passes the checks), the team becomes the organizing team, and its
    application to play that game is rejected with the reason (10.3); it cannot apply again
    (``teams.rules.check_not_organizing``). All or nothing."""
    services.require_organizer(actor)
    now = now or timezone.now()
    answer = within((answer or "").strip(), max_length=ANSWER_MAX, what=_("Answer"))
    proposal = _locked(proposal)
    _require_pending(proposal)
    chosen = game if game is not None else proposal.game_id
    if chosen is None:
        raise DomainError(_("Choose the game the scenario goes to."))
    target = _open_game(chosen, proposal.team, now)
    parsed = checked(proposal.content)
    gg = GorodGame.objects.filter(pk=target.pk).first() or services.gorod_create(
        actor=actor, game=target)
    services.scenario_import(actor=actor, game=gg, scenario=parsed, now=now)
    before = _value(proposal)
    if target.organizing_team_id != proposal.team_id:
        Game.objects.filter(pk=target.pk).update(organizing_team=proposal.team)
        audit.record(game=target, actor=actor, action="gorod.organizer", at=now,
                     before={"organizing_team": target.organizing_team_id},
                     after={"organizing_team": proposal.team_id})
    playing = Application.objects.filter(
        game=target, team=proposal.team,
        status__in=[Application.Status.PENDING, Application.Status.APPROVED]).first()
    if playing is not None:
        teams_services.application_reject(
            application=playing, actor=actor, now=now,
            reason=_("The team organizes this game (its scenario was accepted), so it does "
                     "not play it (rules 10.3)."))
    proposal.status, proposal.game = Status.ACCEPTED, target
    proposal.decided_by, proposal.decided_at, proposal.answer = actor, now, answer
    proposal.save(update_fields=["status", "game", "decided_by", "decided_at", "answer"])
    audit.record(game=target, actor=actor, action="gorod.proposal", at=now, before=before,
                 after=_value(proposal), reason=answer)
    return proposal


@transaction.atomic
def reject(*, actor, proposal: ScenarioProposal | int, answer: str,
           now: datetime | None = None) -> ScenarioProposal:
    """Decline with an answer the team reads (10.2: not worked out enough, levels not as
    hard or interesting as wanted). [decision] The answer is required. The file stays
    visible to the team's captain and the organizers only (10.3)."""
    services.require_organizer(actor)
    now = now or timezone.now()
    answer = within((answer or "").strip(), max_length=ANSWER_MAX, what=_("Answer"))
    if not answer:
        raise DomainError(_("Say why the scenario is rejected: the team reads the answer."))
    proposal = _locked(proposal)
    _require_pending(proposal)
    before = _value(proposal)
    proposal.status = Status.REJECTED
    proposal.decided_by, proposal.decided_at, proposal.answer = actor, now, answer
    proposal.save(update_fields=["status", "decided_by", "decided_at", "answer"])
    audit.record(game=proposal.game_id, actor=actor, action="gorod.proposal", at=now,
                 before=before, after=_value(proposal), reason=answer)
    return proposal

