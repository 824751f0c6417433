"""Writes of the live GoRoD game: one keyword-only ``<entity>_<action>`` per action. The game's
course is here (the start, a team's code, the clock's tick, the end, the leaderboard switch, the
record); the other writes live by topic — the set-up (``gorod.editing``), rulings
(``gorod.rulings``), timeouts (``gorod.timeouts``), photo proof (``gorod.photos``), messages and bonus hints
(``gorod.messages``), fixing a level during play (``gorod.level_fix``) — and are
named here too, so callers find every write in one place.

Every write goes through the live core (``gorod.live.LIVE.write``, see ``live``): one
transaction that locks the ``GorodGame`` row first and takes ``now`` after the lock (so writers
of one game are serialised and stamped in the order they are applied), the action, then
``gorod.settle`` makes the game follow the pure ``gorod.rules`` at ``now`` (the end of the game,
the next deadline for the clock) and ``gorod.states`` renders the audiences' states from what
it computed; the core stores the changed ones with their versions and pushes them after the
commit. A write the engine refuses (an impossible ruling) raises ``DomainError`` with the
engine's message and nothing is stored. An action says what it changed (``w.change``, one of
``gorod.changes``): one that computed the game after its event hands that snapshot on
(``Computed``). A ruling about one team names it (``RulingAdded``) so only that team's view and
the organizer's are rebuilt; a code is checked against that team's own timeline
(``selectors.team_snapshot``), and one that closes no level recomputes nothing else
(``CodeChecked``); a closing code (``LevelClosed``) and the clock's tick (``Tick``) move on only
the teams they concern and re-rank the stored standings (``settle.Moved``), falling back to one
computation of the game where that cannot be exact.

Authorization of the request is the caller's job (views, API, consumers); organizer actions
also check ``core.roles.is_organizer`` here (``gorod.guards``).
"""
from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.utils import timezone
from django.utils.translation import gettext as _

from core import audit, engine_messages, sql
from core.errors import DomainError, NeedsConfirmation, NotAllowed  # noqa: F401 - callers catch them here
from gorod import changes, reads, rules, selectors
from gorod.codes import (
    CODE_MAX,
    CodeSpecError,
    check_attempt_limit,
    level_codes_from_dict,
    match_attempt,
    normalize_code,
)

# The services by topic, named here too: callers (views, API, commands) find every write here.
from gorod.editing import (  # noqa: F401
    autostart_set,
    gorod_create,
    image_add,
    image_delete,
    level_add,
    level_delete,
    level_edit,
    level_move,
    routes_generate,
    scenario_import,
    settings_edit,
)
from gorod.guards import (
    IMAGE_MAX_BYTES,  # noqa: F401
    KEEP,  # noqa: F401
    entry_of,
    require_not_paused,
    require_organizer,
    require_running,
    require_setup,
    start_problems,
)
from gorod.level_fix import fix_form, fix_preview, level_fix  # noqa: F401
from gorod.live import LIVE
from gorod.messages import message_seen, message_send  # noqa: F401
from gorod.models import CodeAttempt, GorodGame, Level, Ruling
from gorod.pauses import close_pause, game_pause, game_resume  # noqa: F401
from gorod.photos import photo_decide, photo_submit  # noqa: F401
from gorod.rulings import (  # noqa: F401
    edit_preview,
    ruling_add,
    ruling_edit,
    ruling_preview,
    ruling_undo,
    undo_preview,
)
from gorod.safety import alarm_acknowledge, checkin  # noqa: F401
from gorod.testruns import MAX_TEAMS as TEST_RUN_MAX_TEAMS  # noqa: F401
from gorod.testruns import (  # noqa: F401
    test_run_create,
    test_run_delete,
    test_run_reset,
    test_runs,
)
from gorod.timeouts import timeout_decide, timeout_request  # noqa: F401
from live.write import Write
from teams.models import Application, Game

# Every code stores its attempt: constant SQL (``sql.Inserter``).
NEW_ATTEMPT = sql.Inserter(CodeAttempt)


@LIVE.write
def game_start(w: Write, *, actor) -> GorodGame:
    """Every team receives its first level now."""
    require_organizer(actor)
    gg = w.game
    require_setup(gg, _("The game has already started."))
    problems = start_problems(gg)
    if problems:
        raise DomainError(problems[0])
    return _begin(w, at=w.now)


@LIVE.write
def game_start_scheduled(w: Write) -> GorodGame | None:
    """The clock's start of an armed game (``autostart_set``) once its announced time has come:
    every team receives its first level at that time (4.1.7-4.1.8), even when the clock runs
    late (a server that was down), as the clock applies missed deadlines. A game whose set-up
    no longer allows the start is disarmed with the reason in the audit log, not retried."""
    gg = w.game
    starts_at = Game.objects.values_list("starts_at", flat=True).get(pk=gg.pk)
    if gg.status != GorodGame.Status.SETUP or not gg.auto_start or starts_at > w.now:
        w.unchanged = True  # started by hand, disarmed or moved later since the clock looked
        return None
    problems = start_problems(gg)
    if problems:
        gg.auto_start = False
        gg.save(update_fields=["auto_start"])
        audit.record(game=gg, actor=None, action="gorod.autostart", at=w.now,
                     before={"on": True}, after={"on": False}, reason=" ".join(problems))
        return None
    _begin(w, at=starts_at)
    audit.record(game=gg, actor=None, action="gorod.start", at=w.now, before=None,
                 after={"started_at": starts_at, "by": "clock"})
    return gg


def _begin(w: Write, *, at: datetime) -> GorodGame:
    """Start the game at ``at``: the team order is frozen from the approved applications."""
    gg = w.game
    gg.team_order = [a.pk for a in selectors.entries(gg)]
    gg.status = GorodGame.Status.RUNNING
    gg.started_at = at
    gg.save(update_fields=["team_order", "status", "started_at"])
    Game.objects.filter(pk=gg.pk, status=Game.Status.SCHEDULED).update(status=Game.Status.RUNNING)
    return gg


@LIVE.write
def game_end(w: Write, *, actor) -> GorodGame:
    """The organizer ends the game now; teams still playing are stopped. A pause still open
    ends with the game."""
    require_organizer(actor)
    require_running(w.game)
    close_pause(w, actor)
    return _end(w)


@LIVE.write
def game_end_force_majeure(w: Write, *, actor, reason: str) -> GorodGame:
    """Force majeure for everyone (3.5): every playing team's open level closes as force
    majeure now — the per-team ruling, one for each — and the game ends, in one write. A pause
    still open ends first. [decision] A team on its timeout keeps its level open and is
    stopped with the game: nothing closes a level during a team's timeout (3.10)."""
    require_organizer(actor)
    gg, now = w.game, w.now
    require_running(gg)
    reason = (reason or "").strip()
    if not reason:
        raise DomainError(_("Say why the game ends as force majeure."))
    close_pause(w, actor)
    snap = selectors.snapshot_or_refusal(gg, now)
    closed = []
    for entry in snap.entries:
        result = snap.by_name[entry.team.name]
        if (result.status != "playing" or result.current_level is None
                or rules.timeout_until(result, now) is not None):
            continue
        Ruling.objects.create(gorod=gg, application=entry, type=Ruling.Type.FORCE_MAJEURE,
                              level=snap.level(result.current_level), at=now, reason=reason,
                              by=actor, created_at=now)
        closed.append({"team": entry.team.name, "level": result.current_level})
    audit.record(game=gg, actor=actor, action="gorod.end_force_majeure", at=now, before=None,
                 after={"closed": closed, "ended_at": selectors.iso(now)}, reason=reason)
    return _end(w)


def _end(w: Write) -> GorodGame:
    """The game ends at ``w.now`` inside the caller's write, checked by the engine first."""
    gg = w.game
    w.change = changes.Computed(selectors.snapshot_or_refusal(gg, w.now, end=w.now))
    gg.ended_at = w.now
    gg.status = GorodGame.Status.FINISHED
    gg.save(update_fields=["ended_at", "status"])
    Game.objects.filter(pk=gg.pk, status=Game.Status.RUNNING).update(status=Game.Status.FINISHED)
    return gg


@LIVE.write
def leaderboard_set(w: Write, *, actor, public: bool) -> GorodGame:
    """Switch the live public leaderboard on or off (any time: it shows only what the engine
    computed, no codes)."""
    require_organizer(actor)
    gg = w.game
    before = gg.leaderboard_public
    gg.leaderboard_public = bool(public)
    gg.save(update_fields=["leaderboard_public"])
    audit.record(game=gg, actor=actor, action="gorod.leaderboard", at=w.now,
                 before={"public": before}, after={"public": gg.leaderboard_public})
    return gg


@LIVE.write
def scenario_publish(w: Write, *, actor, on: bool) -> GorodGame:
    """Publish the scenario after the night (tasks, hints, codes and the statistics on the
    game's public scenario page), or take it back. [decision] Only once the game has ended:
    before, it would give the codes away."""
    require_organizer(actor)
    gg = w.game
    if gg.status != GorodGame.Status.FINISHED:
        raise DomainError(_("The scenario can be published only once the game has ended."))
    if gg.game.test_of_id is not None:
        raise DomainError(_("A test run is never published: publish the real night's "
                            "scenario."))
    before = gg.scenario_public
    gg.scenario_public = bool(on)
    gg.save(update_fields=["scenario_public"])
    audit.record(game=gg, actor=actor, action="gorod.scenario_public", at=w.now,
                 before={"public": before}, after={"public": gg.scenario_public})
    return gg


def game_tick(*, game, now: datetime | None = None) -> datetime | None:
    """The clock's write at a deadline: nothing is stored but what follows from the time (the
    states, the end of the game when the engine says it is over, the next deadline), which it
    returns (None once the game is over)."""
    gg = _tick(game=game, now=now)
    return None if gg is None or gg.status != GorodGame.Status.RUNNING else gg.next_deadline


@LIVE.write
def _tick(w: Write) -> GorodGame | None:
    gg = w.game
    if gg.status != GorodGame.Status.RUNNING:
        w.unchanged = True
        return None
    # The teams whose deadline passed move on (``settle.Moved``); when that cannot
    # be exact, the whole game is built, which also ends it when the engine says it is over.
    w.change = changes.Tick()
    return gg


# --- team actions -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Submitted:
    attempt: CodeAttempt
    remaining: int  # sectors still to find on that level
    duplicate: bool  # a retried submission: the stored attempt, counted once
    wait_s: int = 0  # a ``limited`` refusal: whole seconds until codes are checked again


@LIVE.write(batch=True)
def code_submit(w: Write, *, application: Application | int, text: str,
                client_id: uuid.UUID | str | None = None) -> Submitted:
    """Check a code against the team's current level (from the engine at ``now``). Every
    checked attempt is stored; when the level's last sector is found, the attempt is the
    record's ``code`` event and the team is on its next level."""
    gg, now = w.game, w.now
    if gg.status == GorodGame.Status.SETUP:
        raise DomainError(_("The game has not started yet."))
    entry = entry_of(gg, application)
    if client_id not in (None, ""):
        try:
            client_id = uuid.UUID(str(client_id))
        except ValueError:
            raise DomainError(_("A bad client id.")) from None
    else:
        client_id = None
    # Everything the check and the team's new state read of the team's rows, at once.
    team_rows = reads.team_rows(gg.pk, entry.pk, client_id=client_id,
                               since=now - timedelta(seconds=gg.wrong_window_s))
    if team_rows.seen_pk is not None:
        seen = CodeAttempt.objects.select_related("level").get(pk=team_rows.seen_pk)
        w.unchanged = True
        return Submitted(seen, _remaining(seen), True)
    require_running(gg)
    require_not_paused(gg)
    text = (text or "").strip()
    normalized = normalize_code(text)
    if not normalized:
        raise DomainError(_("Type a code."))
    if len(text) > CODE_MAX:
        raise DomainError(_("A code is at most %(n)d characters.") % {"n": CODE_MAX})
    # The code is checked against the team's own timeline, read from its rows alone.
    snap = selectors.team_snapshot(gg, entry.pk, now, team_rows=team_rows)
    if snap.results.game_over:
        raise DomainError(_("The game has ended."))
    result = snap.by_name[entry.team.name]
    if result.status == "disqualified":
        raise DomainError(_("Your team is disqualified."))
    if result.current_level is None:
        raise DomainError(_("Your team has closed every level."))
    until = rules.timeout_until(result, now)
    if until is not None:
        raise DomainError(_("Your team is on a timeout until %(t)s: codes are not accepted.")
                          % {"t": timezone.localtime(until).strftime("%H:%M:%S")})
    level = snap.level(result.current_level)
    wrong = team_rows.wrong_between(level.pk, now - timedelta(seconds=gg.wrong_window_s), now)
    limit = check_attempt_limit(wrong, now, gg.max_wrong, gg.wrong_window_s)
    if not limit.allowed:
        # [decision] The refused try is stored (verdict ``limited``, unchecked, no client id so
        # a resend after the wait is checked) and committed: the organizer sees the flood. It
        # is not wrong, so it does not lengthen the wait.
        attempt = NEW_ATTEMPT.insert(
            gorod=gg, application=entry, level=level, text=text[:CODE_MAX],
            normalized=normalized[:CODE_MAX], at=now, verdict=CodeAttempt.Verdict.LIMITED)
        team_rows.add(attempt)
        # A refused try changes no result.
        w.change = changes.CodeChecked(team=entry.pk, attempt=attempt, rows=team_rows,
                                       snapshot=snap)
        return Submitted(attempt, 0, False, limit.wait_s)
    try:
        match = match_attempt(selectors.setup(gg).spec(level), entry.team.name, text,
                              team_rows.found(level.pk))
    except CodeSpecError as exc:  # pragma: no cover - checked at the start
        raise DomainError(engine_messages.translate(exc)) from None
    verdict = match.verdict
    if verdict == CodeAttempt.Verdict.WRONG:
        closed = _closed_level_of(snap, result, entry.team.name, text)
        if closed is not None:
            level, verdict = closed, CodeAttempt.Verdict.CLOSED_LEVEL
    closes = verdict == "accepted" and match.closed
    attempt = NEW_ATTEMPT.insert(
        gorod=gg, application=entry, level=level, text=text[:CODE_MAX],
        normalized=normalized[:CODE_MAX], at=now, verdict=verdict,
        sector=match.sector or "", closes_level=closes, client_id=client_id)
    team_rows.add(attempt)
    if closes:
        # The team's timeline moves on; the others' stand (``settle.Moved``).
        w.change = changes.LevelClosed(team=entry.pk, attempt=attempt, rows=team_rows,
                                       before=snap)
    else:
        # Only a level's closing code is an event of the record: the results stand.
        w.change = changes.CodeChecked(team=entry.pk, attempt=attempt, rows=team_rows,
                                       snapshot=snap)
    return Submitted(attempt, match.remaining, False)


def _closed_level_of(snap: selectors.Snapshot, result: rules.TeamResult, team: str,
                     text: str) -> Level | None:
    """The level the team already closed (by code, fail or ruling) whose code ``text`` is."""
    found = selectors.setup(snap.gorod)
    for lr in result.levels:
        row = snap.level(lr.level)
        if lr.closed_at is None or row is None:
            continue
        try:
            spec = found.spec(row)
        except CodeSpecError:  # pragma: no cover - checked at the start
            continue
        if match_attempt(spec, team, text).verdict != "wrong":
            return row
    return None


def _remaining(attempt: CodeAttempt) -> int:
    try:
        spec = level_codes_from_dict(attempt.level.codes)
    except CodeSpecError:  # pragma: no cover
        return 0
    found = CodeAttempt.objects.filter(
        application_id=attempt.application_id, level_id=attempt.level_id,
        verdict=CodeAttempt.Verdict.ACCEPTED, at__lte=attempt.at).values_list("sector", flat=True)
    return len(spec.sectors) - len(set(found))


def game_record(game: GorodGame | int, *, now: datetime | None = None) -> dict:
    """The game's record in the contract format (``docs/spec/record-format.md``). For a running
    game it carries ``now`` (the live moment); replaying it gives exactly the live
    statistics."""
    gg = selectors.gorod_game(game if isinstance(game, int) else game.pk)
    if gg.started_at is None:
        raise DomainError(_("The game has not started yet."))
    running = gg.status == GorodGame.Status.RUNNING
    # While the game is paused its record stops at the pause's start, as the live statistics
    # do: the open pause has no length yet.
    moment = selectors.engine_moment(gg, now or timezone.now()) if running else None
    return selectors.build_record(gg, now=moment)
