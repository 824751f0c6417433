"""Writes of the live GoRoD game: one keyword-only ``<entity>_<action>`` per action.

Every write goes through the live core (``gorod.live.LIVE.write``, see ``live``): one
transaction that locks the ``GorodGame`` row first and takes ``now`` after the lock (so writers
of one game are serialised and stamped in the order they are applied), the action below, then
``gorod.selectors.build_states`` recomputes the game with the pure
``gorod.rules.compute(record, now)``, settles it (the end of the game, the next deadline for the
clock) and builds every audience's state; the core stores the changed ones with their versions
and pushes them after the commit. A write the engine refuses (an impossible ruling) raises
``DomainError`` with the engine's message and nothing is stored. An action says what it
changed (``w.change``, one of ``gorod.changes``): one that computed the game after its event
hands that snapshot on (``Computed``). A ruling about one team names it (``RulingAdded``) so
only that team's view and the organizer's are rebuilt; a code is checked against that team's
own timeline (``selectors.team_snapshot``), and one that closes no level recomputes nothing
else (``CodeChecked``); a closing code (``LevelClosed``) and the clock's tick (``Tick``) move
on only the teams they concern and re-rank the stored standings
(``selectors._advance_states``), falling back to one computation of the game where that cannot
be exact.

Authorization of the request is the caller's job (views, API, consumers); organizer actions
also check ``core.roles.is_organizer`` here.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from core import audit, engine_messages, formats, images, sql
from core.errors import DomainError, NeedsConfirmation, NotAllowed
from core.images import ImageRefused, clean_image
from core.records import RecordError
from core.roles import is_organizer
from core.text import within
from gorod import changes, reads, rules, selectors, signals
from gorod.codes import (
    DEFAULT_MAX_WRONG,
    DEFAULT_WINDOW_S,
    CodeSpecError,
    check_attempt_limit,
    level_codes_from_dict,
    match_attempt,
    normalize_code,
)
from gorod.live import LIVE
from gorod.models import (
    PHOTO_SECTOR,
    CodeAttempt,
    GorodGame,
    Level,
    PhotoProof,
    Route,
    Ruling,
    TaskImage,
    TimeoutRequest,
)
from live.write import Write
from teams.models import Application, Game
from teams.selectors import playing_entry

CODE_MAX = 200
# Every code stores its attempt: constant SQL (``sql.Inserter``).
NEW_ATTEMPT = sql.Inserter(CodeAttempt)


# --- plumbing ---------------------------------------------------------------------------------


def _require_organizer(actor) -> None:
    if not is_organizer(actor):
        raise NotAllowed(_("Only organizers may do this."))


def _require_running(gg: GorodGame) -> None:
    if gg.status == GorodGame.Status.SETUP:
        raise DomainError(_("The game has not started yet."))
    if gg.status == GorodGame.Status.FINISHED:
        raise DomainError(_("The game has ended."))


def _require_started(gg: GorodGame) -> None:
    if gg.status == GorodGame.Status.SETUP:
        raise DomainError(_("The game has not started yet."))


def _confirm_after_results(w: Write, *, confirm: bool, what: str) -> None:
    """A ruling's change once the night's results are published (a protest answered after the
    night): refused until the organizer confirms it, like a King of the Hill change of the
    past, and once applied the published results say they are out of date (``core.formats``:
    the rating listens). Called after the engine has accepted the change."""
    gg = w.game
    if gg.status != GorodGame.Status.FINISHED or not formats.results_published(gg.pk):
        return
    text = _("The published results become out of date: the organizer must publish them "
             "again.")
    if not confirm:
        raise NeedsConfirmation(
            _("This changes a finished game whose results are published. %(what)s Confirm to "
              "apply it.") % {"what": text}, change={"results_published": True})
    formats.board_changed(game_id=gg.pk, now=w.now, reason=f"{what} {text}")


def _entry(gg, application: Application | int) -> Application:
    return playing_entry(gg.team_order, application)


def _check_codes(spec: dict, where: str) -> dict:
    try:
        level_codes_from_dict(spec)
    except (CodeSpecError, TypeError) as exc:
        raise DomainError(_("Level %(level)s: %(why)s") % {"level": where, "why": exc}) from None
    return spec


# --- set-up -----------------------------------------------------------------------------------

KEEP = object()  # level_edit: leave this field as it is


def _check_settings(**settings) -> dict:
    """The engine's own check (``rules.check_settings``), so a game that can be set up can be
    played and replayed."""
    try:
        return rules.check_settings(**settings)
    except RecordError as exc:
        raise DomainError(_("The game engine refuses these settings: %(why)s")
                          % {"why": engine_messages.translate(exc)}) from None


def _require_setup(gg: GorodGame, message: str) -> None:
    if gg.status != GorodGame.Status.SETUP:
        raise DomainError(message)


def _check_images(gg: GorodGame, images, label: str) -> list[str]:
    if not isinstance(images, list | tuple) or not all(isinstance(n, str) for n in images):
        raise DomainError(_("Level %(level)s: images are a list of file names.")
                          % {"level": label})
    known = set(TaskImage.objects.filter(gorod=gg).values_list("name", flat=True))
    unknown = [name for name in images if name not in known]
    if unknown:
        raise DomainError(_("Level %(level)s: no uploaded image %(names)s.")
                          % {"level": label, "names": ", ".join(unknown)})
    return list(dict.fromkeys(images))


def _check_level(gg: GorodGame, *, label, duration_min, danger, codes,
                 exclude: int | None = None) -> tuple[str, dict]:
    label = str(label).strip()
    taken = Level.objects.filter(gorod=gg, label=label).exclude(pk=exclude).exists()
    if not label or taken:
        raise DomainError(_("Level %(level)s already exists.") % {"level": label})
    if len(label) > 40:
        raise DomainError(_("A level id is at most 40 characters."))
    if (isinstance(duration_min, bool) or not isinstance(duration_min, int | float)
            or not 0 < duration_min <= 10080):
        raise DomainError(_("A level's time limit is more than 0 and at most 10080 minutes."))
    if danger is not None and danger not in Level.Danger.values:
        raise DomainError(_("The danger grade is 1, 2, 3 or 4 (rules, 8.8)."))
    return label, _check_codes(codes, label)


@transaction.atomic
def gorod_create(*, actor, game: Game | int | None = None, title: str = "",
                 starts_at: datetime | None = None, levels: Iterable[dict] = (),
                 hint_offsets_min: Sequence[float] = rules.DEFAULT_HINT_OFFSETS_MIN,
                 sliv_penalty_min: float = rules.DEFAULT_SLIV_PENALTY_MIN,
                 max_duration_h: float = rules.DEFAULT_MAX_DURATION_H,
                 max_wrong: int = DEFAULT_MAX_WRONG,
                 wrong_window_s: int = DEFAULT_WINDOW_S) -> GorodGame:
    """Set up the live GoRoD of a scheduled ``teams.Game`` with its levels (dicts with
    ``label``, ``task``, ``hint1``, ``hint2``, ``duration_min``, ``danger``, ``codes``).
    Without ``game`` the night is published here too: a new GoRoD ``teams.Game`` with
    ``title`` and ``starts_at`` (teams apply to it as to any game)."""
    _require_organizer(actor)
    settings = _check_settings(hint_offsets_min=list(hint_offsets_min),
                               sliv_penalty_min=sliv_penalty_min, max_duration_h=max_duration_h,
                               max_wrong=max_wrong, wrong_window_s=wrong_window_s)
    if game is None:
        from teams import services as teams_services

        if starts_at is None:
            raise DomainError(_("Give the night's start time."))
        game = teams_services.game_create(actor=actor, title=title,
                                          game_format=Game.Format.GOROD, starts_at=starts_at)
    game_id = game if isinstance(game, int) else game.pk
    try:
        game = Game.objects.select_for_update().get(pk=game_id)
    except Game.DoesNotExist:
        raise DomainError(_("No game with id %(id)s.") % {"id": game_id}) from None
    if game.format != Game.Format.GOROD:
        raise DomainError(_("This game is not a GoRoD game."))
    if GorodGame.objects.filter(pk=game.pk).exists():
        raise DomainError(_("This game's GoRoD is already set up."))
    gg = GorodGame.objects.create(game=game, **settings)
    for spec in levels:
        level_add(actor=actor, game=gg, **spec)
    LIVE.refresh(game=gg.pk)
    return gg


@LIVE.write
def settings_edit(w: Write, *, actor, hint_offsets_min: Sequence[float],
                  sliv_penalty_min: float, max_duration_h: float, max_wrong: int,
                  wrong_window_s: int) -> GorodGame:
    """Change the game's settings; [decision] until the start (afterwards the record would
    change under the teams' feet)."""
    _require_organizer(actor)
    gg = w.game
    _require_setup(gg, _("The settings can only be changed before the start."))
    settings = _check_settings(hint_offsets_min=list(hint_offsets_min),
                               sliv_penalty_min=sliv_penalty_min, max_duration_h=max_duration_h,
                               max_wrong=max_wrong, wrong_window_s=wrong_window_s)
    for key, value in settings.items():
        setattr(gg, key, value)
    gg.save(update_fields=list(settings))
    return gg


@LIVE.write
def level_add(w: Write, *, actor, codes: dict, label: str | None = None,
              task: str = "", hint1: str = "", hint2: str = "",
              duration_min: float = rules.DEFAULT_LIMIT_MIN, danger: int | None = None,
              images: Sequence[str] = (), photo_proof: bool = False) -> Level:
    """Add a level at the end of the game order (before the start only); ``images`` name the
    game's uploaded task images it shows."""
    _require_organizer(actor)
    gg = w.game
    _require_setup(gg, _("Levels can only be added before the start."))
    order = Level.objects.filter(gorod=gg).count() + 1
    label, codes = _check_level(gg, label=label or order, duration_min=duration_min,
                                danger=danger, codes=codes)
    return Level.objects.create(gorod=gg, order=order, label=label, task=task, hint1=hint1,
                                hint2=hint2, duration_min=duration_min, danger=danger,
                                codes=codes, images=_check_images(gg, list(images), label),
                                photo_proof=bool(photo_proof))


def _level(gg: GorodGame, level: Level | int) -> Level:
    level_id = level if isinstance(level, int) else level.pk
    found = Level.objects.filter(gorod=gg, pk=level_id).first()
    if found is None:
        raise DomainError(_("There is no such level in this game."))
    return found


@LIVE.write
def level_edit(w: Write, *, actor, level: Level | int, label=KEEP, task=KEEP,
               hint1=KEEP, hint2=KEEP, duration_min=KEEP, danger=KEEP, codes=KEEP,
               images=KEEP, photo_proof=KEEP) -> Level:
    """Change a level before the start (only the fields given). A new level id is followed in
    the routes, which name levels by id."""
    _require_organizer(actor)
    gg = w.game
    _require_setup(gg, _("Levels can only be changed before the start."))
    row = _level(gg, level)
    old_label = row.label
    changes = {key: value for key, value in (
        ("label", label), ("task", task), ("hint1", hint1), ("hint2", hint2),
        ("duration_min", duration_min), ("danger", danger), ("codes", codes),
        ("images", images), ("photo_proof", photo_proof)) if value is not KEEP}
    for key, value in changes.items():
        setattr(row, key, value)
    row.label, row.codes = _check_level(gg, label=row.label, duration_min=row.duration_min,
                                        danger=row.danger, codes=row.codes, exclude=row.pk)
    row.images = _check_images(gg, row.images, row.label)
    row.photo_proof = bool(row.photo_proof)
    for key in ("task", "hint1", "hint2"):
        setattr(row, key, str(getattr(row, key) or ""))
    row.save()
    if row.label != old_label:
        for route in Route.objects.filter(gorod=gg):
            route.levels = [row.label if lv == old_label else lv for lv in route.levels]
            route.save(update_fields=["levels"])
    return row


def _renumber(gg: GorodGame, rows: list[Level]) -> None:
    # Orders are unique per game: park every row out of the way first, then number them.
    for i, row in enumerate(rows):
        Level.objects.filter(pk=row.pk).update(order=10000 + i)
    for i, row in enumerate(rows, start=1):
        Level.objects.filter(pk=row.pk).update(order=i)
    signals.bump([gg.pk])  # the updates send no signal


@LIVE.write
def level_move(w: Write, *, actor, level: Level | int, to: int) -> list[Level]:
    """Move a level to place ``to`` (1 = first) of the game order before the start; the others
    keep their relative order. Returns the levels in their new order. Routes are each team's
    own order and do not change."""
    _require_organizer(actor)
    gg = w.game
    _require_setup(gg, _("Levels can only be moved before the start."))
    row = _level(gg, level)
    rows = [lv for lv in selectors.levels(gg) if lv.pk != row.pk]
    if isinstance(to, bool) or not isinstance(to, int) or not 1 <= to <= len(rows) + 1:
        raise DomainError(_("A level moves to a place from 1 to %(n)d.") % {"n": len(rows) + 1})
    rows.insert(to - 1, row)
    _renumber(gg, rows)
    return selectors.levels(gg)


@LIVE.write
def level_delete(w: Write, *, actor, level: Level | int) -> None:
    """Remove a level before the start; the later levels move up one place. [decision] Routes
    list every level, so a deletion drops them: generate them again."""
    _require_organizer(actor)
    gg = w.game
    _require_setup(gg, _("Levels can only be deleted before the start."))
    found = _level(gg, level)
    found.delete()
    _renumber(gg, selectors.levels(gg))
    Route.objects.filter(gorod=gg).delete()


@LIVE.write
def routes_generate(w: Write, *, actor, seed: int | str | None = None) -> dict:
    """Routes for a non-linear game (Latin-square rotation of a seeded shuffle), before the
    start; returns ``{application id: [level ids]}``."""
    _require_organizer(actor)
    gg = w.game
    _require_setup(gg, _("Routes can only be changed before the start."))
    labels = [lv.label for lv in selectors.levels(gg)]
    teams = selectors.entries(gg)
    if not labels or not teams:
        raise DomainError(_("Routes need levels and approved teams."))
    seed = seed if seed is not None else uuid.uuid4().hex
    routes = rules.generate_routes(labels, [str(a.pk) for a in teams], seed)
    Route.objects.filter(gorod=gg).delete()
    Route.objects.bulk_create([Route(gorod=gg, application_id=int(pk), levels=route)
                               for pk, route in routes.items()])
    return {int(pk): route for pk, route in routes.items()}


IMAGE_MAX_BYTES = images.MAX_BYTES


def _checked_image(data: bytes, name: str) -> tuple[str, bytes]:
    """The image's type and its bytes without metadata (``core.images``), or the refusal."""
    try:
        return clean_image(data, name)
    except ImageRefused as exc:
        raise DomainError(str(exc)) from None


def image_add(*, game, actor, name: str, data: bytes, now=None) -> TaskImage:
    """Upload a task image (PNG, JPEG, GIF or WebP, at most 5 MB) under its file name, before
    the start, stored without its metadata (``core.images``: a photo's GPS position would give
    the place away). [decision] A name already uploaded is replaced: the levels showing it show
    the new one."""
    _require_organizer(actor)
    # Decoded before the game is locked: a 5 MB photo takes a moment to re-encode.
    kind, data = _checked_image(data, str(name or "")[:100])
    return _image_store(game=game, now=now, actor=actor, name=name, kind=kind, data=data)


@LIVE.write
def _image_store(w: Write, *, actor, name: str, kind: str, data: bytes) -> TaskImage:
    _require_organizer(actor)
    gg = w.game
    _require_setup(gg, _("Images can only be uploaded before the start."))
    name = str(name or "").replace("\\", "/").rsplit("/", 1)[-1].strip()
    if not name or len(name) > 100:
        raise DomainError(_("An image needs a file name of at most 100 characters."))
    image, _created = TaskImage.objects.update_or_create(
        gorod=gg, name=name, defaults={"content_type": kind, "data": data, "size": len(data)})
    return image


@LIVE.write
def image_delete(w: Write, *, actor, name: str) -> None:
    """Remove a task image before the start; refused while a level shows it."""
    _require_organizer(actor)
    gg = w.game
    _require_setup(gg, _("Images can only be deleted before the start."))
    image = TaskImage.objects.filter(gorod=gg, name=name).first()
    if image is None:
        raise DomainError(_("There is no image %(name)s.") % {"name": name})
    users = [lv.label for lv in selectors.levels(gg) if name in (lv.images or [])]
    if users:
        raise DomainError(_("Level(s) %(levels)s show %(name)s: remove it from them first.")
                          % {"levels": ", ".join(users), "name": name})
    image.delete()


@LIVE.write
def scenario_import(w: Write, *, actor, scenario) -> GorodGame:
    """Replace the whole set-up of a game not started yet — settings, levels, routes — by a
    checked scenario (``gorod.scenario.parse_scenario``), all or nothing. [decision] Routes
    name teams; each name must be an approved team of this game, and images name the game's
    uploaded task images (``ScenarioError`` lists every one that is not)."""
    from gorod.scenario import ScenarioError

    _require_organizer(actor)
    gg = w.game
    _require_setup(gg, _("A scenario can only be imported before the start."))
    by_name = {a.team.name: a for a in selectors.entries(gg)}
    problems = [_("routes: “%(team)s” is not an approved team of this game") % {"team": name}
                for name in scenario.routes if name not in by_name]
    uploaded = set(TaskImage.objects.filter(gorod=gg).values_list("name", flat=True))
    problems += [
        _("levels[%(i)d].images: no uploaded image “%(name)s” (upload it under Task images "
          "first)") % {"i": i, "name": name}
        for i, level in enumerate(scenario.levels) for name in level.get("images") or ()
        if name not in uploaded]
    if problems:
        raise ScenarioError(problems)
    settings_edit(actor=actor, game=gg, **scenario.settings)
    Route.objects.filter(gorod=gg).delete()
    Level.objects.filter(gorod=gg).delete()
    for level in scenario.levels:
        spec = dict(level)
        level_add(actor=actor, game=gg, label=spec.pop("id"), **spec)
    Route.objects.bulk_create([Route(gorod=gg, application=by_name[name], levels=list(route))
                               for name, route in scenario.routes.items()])
    gg.refresh_from_db()
    return gg


@LIVE.write
def game_start(w: Write, *, actor) -> GorodGame:
    """Every team receives its first level now."""
    _require_organizer(actor)
    gg = w.game
    _require_setup(gg, _("The game has already started."))
    level_rows = selectors.levels(gg)
    if not level_rows:
        raise DomainError(_("Add at least one level before the start."))
    teams = selectors.entries(gg)
    if not teams:
        raise DomainError(_("At least one approved team is needed to start."))
    names = [a.team.name for a in teams]
    for level in level_rows:
        missing = level_codes_from_dict(level.codes).missing_for(names)
        if missing:
            raise DomainError(_("Level %(level)s has no personal code for: %(teams)s.")
                              % {"level": level.label, "teams": ", ".join(missing)})
    gg.team_order = [a.pk for a in teams]
    gg.status = GorodGame.Status.RUNNING
    gg.started_at = w.now
    gg.save(update_fields=["team_order", "status", "started_at"])
    Game.objects.filter(pk=gg.pk, status=Game.Status.SCHEDULED).update(status=Game.Status.RUNNING)
    return gg


@LIVE.write
def game_end(w: Write, *, actor) -> GorodGame:
    """The organizer ends the game now; teams still playing are stopped."""
    _require_organizer(actor)
    gg = w.game
    _require_running(gg)
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
    _require_organizer(actor)
    gg = w.game
    before = gg.leaderboard_public
    gg.leaderboard_public = bool(public)
    gg.save(update_fields=["leaderboard_public"])
    audit.record(game=gg, actor=actor, action="gorod.leaderboard", at=w.now,
                 before={"public": before}, after={"public": gg.leaderboard_public})
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
    # The teams whose deadline passed move on (``selectors._advance_states``); when that cannot
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
    entry = _entry(gg, application)
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
    _require_running(gg)
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
        # The team's timeline moves on; the others' stand (``selectors._advance_states``).
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


# --- organizer rulings ------------------------------------------------------------------------


@LIVE.write
def ruling_add(w: Write, *, actor, application: Application | int, type: str,
               minutes: float | None = None, level: str | None = None,
               at: datetime | None = None, reason: str = "", confirm: bool = False) -> Ruling:
    """Record an organizer ruling (rules: penalty, bonus, sliv, force majeure, timeout,
    average time, disqualify). Fail, force majeure and timeout take effect at ``at`` (default
    now); a fail or force majeure without a level applies to the team's current level. The
    whole record is replayed through the engine: a ruling it refuses is not stored. After the
    night, once results are published, it needs ``confirm`` (``_confirm_after_results``)."""
    _require_organizer(actor)
    gg, now = w.game, w.now
    _require_started(gg)
    entry = _entry(gg, application)
    if type not in Ruling.Type.values:
        raise DomainError(_("Unknown ruling %(type)s.") % {"type": type})
    if type in rules.MINUTE_RULINGS:
        if minutes is None:
            raise DomainError(_("Give the minutes."))
    else:
        minutes = None
    level_row = None
    if type in rules.LEVEL_RULINGS:
        if not level:
            if type == "average_time":
                raise DomainError(_("Choose the level."))
            current = selectors.team_snapshot(gg, entry.pk, now).by_name[
                entry.team.name].current_level
            if current is None:
                raise DomainError(_("The team is not on a level now; choose the level."))
            level = current
        level_row = Level.objects.filter(gorod=gg, label=str(level)).first()
        if level_row is None:
            raise DomainError(_("There is no level %(level)s.") % {"level": level})
    at = (at or now) if type in rules.TIMED_RULINGS else None
    if at is not None and at > now:
        raise DomainError(_("A ruling cannot take effect in the future."))
    ruling = Ruling.objects.create(
        gorod=gg, application=entry, type=type, minutes=minutes, level=level_row, at=at,
        reason=(reason or "").strip(), by=actor, created_at=now)
    audit.record(game=gg, actor=actor, action="gorod.ruling", at=now, before=None,
                 after={"ruling": ruling.pk, "team": entry.team.name, "type": type,
                        "minutes": minutes, "level": level_row.label if level_row else None,
                        "at": at},
                 reason=ruling.reason)
    # The engine's refusal rolls the ruling back.
    w.change = changes.RulingAdded(team=entry.pk,
                                   snapshot=selectors.snapshot_or_refusal(gg, now))
    _confirm_after_results(w, confirm=confirm, what=_("A ruling for %(team)s was added.")
                           % {"team": entry.team.name})
    return ruling


def _ruling_of(gg: GorodGame, ruling: Ruling | int) -> Ruling:
    ruling_id = ruling if isinstance(ruling, int) else ruling.pk
    found = Ruling.objects.filter(gorod=gg, pk=ruling_id).select_related("level").first()
    if found is None:
        raise DomainError(_("There is no such ruling in this game."))
    if found.undone_at is not None:
        raise DomainError(_("This ruling has been undone already."))
    return found


def _ruling_value(ruling: Ruling) -> dict:
    """What a correction changes, as the history (and the audit log) keeps it."""
    return {"type": ruling.type, "minutes": ruling.minutes,
            "level": ruling.level.label if ruling.level_id else None,
            "at": selectors.iso(ruling.at), "reason": ruling.reason}


def _correction_reason(reason: str) -> str:
    reason = (reason or "").strip()
    if not reason:
        raise DomainError(_("Say why the ruling is corrected."))
    return within(reason, max_length=500, what=_("Reason"))


def _note_correction(ruling: Ruling, *, action: str, before: dict, reason: str, actor,
                     now: datetime) -> None:
    after = None if action == "undo" else _ruling_value(ruling)
    ruling.history = [*(ruling.history or []), {
        "action": action, "before": before, "after": after,
        "reason": reason, "by": actor.get_username(), "at": selectors.iso(now)}]
    audit.record(game=ruling.gorod_id, actor=actor, action=f"gorod.ruling_{action}", at=now,
                 before={"ruling": ruling.pk, **before},
                 after=None if after is None else {"ruling": ruling.pk, **after}, reason=reason)


@LIVE.write
def ruling_undo(w: Write, *, actor, ruling: Ruling | int, reason: str,
                confirm: bool = False) -> Ruling:
    """Undo a ruling with a reason: it leaves the game's record (the engine replays the game
    without it and refuses an undo that makes the game impossible, e.g. a failed level the team
    has played past), its history keeps what it was, who undid it, when and why. After the
    night, once results are published, it needs ``confirm`` (``_confirm_after_results``)."""
    _require_organizer(actor)
    gg, now = w.game, w.now
    _require_started(gg)
    row = _ruling_of(gg, ruling)
    reason = _correction_reason(reason)
    before = _ruling_value(row)
    row.undone_at = now
    _note_correction(row, action="undo", before=before, reason=reason, actor=actor, now=now)
    row.save(update_fields=["undone_at", "history"])
    w.change = changes.Computed(selectors.snapshot_or_refusal(gg, now))
    _confirm_after_results(w, confirm=confirm, what=_("A ruling was undone: %(reason)s")
                           % {"reason": reason})
    return row


@LIVE.write
def ruling_edit(w: Write, *, actor, ruling: Ruling | int, reason: str, minutes=KEEP,
                level=KEEP, at=KEEP, ruling_reason=KEEP, confirm: bool = False) -> Ruling:
    """Correct a ruling's minutes, level, moment or stated reason (its type and team stay: undo
    it and rule anew for another). Checked as a new ruling is: by the engine, on the whole
    record; the history keeps the previous value, who, when and why. After the night, once
    results are published, it needs ``confirm`` (``_confirm_after_results``)."""
    _require_organizer(actor)
    gg, now = w.game, w.now
    _require_started(gg)
    row = _ruling_of(gg, ruling)
    reason = _correction_reason(reason)
    before = _ruling_value(row)
    if minutes is not KEEP and row.type in rules.MINUTE_RULINGS:
        if minutes is None:
            raise DomainError(_("Give the minutes."))
        row.minutes = minutes
    if level is not KEEP and row.type in rules.LEVEL_RULINGS:
        level_row = Level.objects.filter(gorod=gg, label=str(level or "")).first()
        if level_row is None:
            raise DomainError(_("There is no level %(level)s.") % {"level": level})
        row.level = level_row
    if at is not KEEP and row.type in rules.TIMED_RULINGS and at is not None:
        if at > now:
            raise DomainError(_("A ruling cannot take effect in the future."))
        row.at = at
    if ruling_reason is not KEEP:
        row.reason = str(ruling_reason or "").strip()
    if _ruling_value(row) == before:
        raise DomainError(_("Nothing to change: the ruling already says this."))
    _note_correction(row, action="edit", before=before, reason=reason, actor=actor, now=now)
    row.save(update_fields=["minutes", "level", "at", "reason", "history"])
    w.change = changes.Computed(selectors.snapshot_or_refusal(gg, now))
    _confirm_after_results(w, confirm=confirm, what=_("A ruling was corrected: %(reason)s")
                           % {"reason": reason})
    return row


# --- timeouts (3.10): asked by the team, confirmed by the organizer ----------------------------


def _timeout_taken(gg: GorodGame, entry: Application) -> bool:
    return Ruling.objects.filter(gorod=gg, application=entry, type=Ruling.Type.TIMEOUT,
                                 undone_at__isnull=True).exists()


TIMEOUT_REFUSALS = {
    "not_on_level": lambda: _("A timeout is taken during a level: your team is not playing one."),
    "taken": lambda: _("Your team has had its timeout: one per game (rules, 3.10)."),
    "pending": lambda: _("Your team's request for a timeout waits for the organizer already."),
    "length": lambda: _("A timeout lasts from 1 to 30 minutes (rules, 3.10)."),
}


@LIVE.write
def timeout_request(w: Write, *, application: Application | int, minutes: float,
                    reason: str) -> TimeoutRequest:
    """A team asks for its timeout from a phone, with a reason and a length; the clock runs on
    until the organizer confirms it (``timeout_decide``)."""
    gg, now = w.game, w.now
    _require_running(gg)
    entry = _entry(gg, application)
    reason = (reason or "").strip()
    if not reason:
        raise DomainError(_("Say why your team needs a timeout."))
    snap = selectors.snapshot_or_refusal(gg, now)
    pending = TimeoutRequest.objects.filter(
        gorod=gg, application=entry, status=TimeoutRequest.Status.PENDING).exists()
    refusal = rules.timeout_request_refusal(
        snap.by_name[entry.team.name], minutes=minutes, taken=_timeout_taken(gg, entry),
        pending=pending)
    if refusal is not None:
        raise DomainError(TIMEOUT_REFUSALS[refusal]())
    w.change = changes.Computed(snap)  # a request changes no result
    return TimeoutRequest.objects.create(gorod=gg, application=entry, minutes=float(minutes),
                                         reason=within(reason, max_length=500, what=_("Reason")),
                                         asked_at=now)


@LIVE.write
def timeout_decide(w: Write, *, actor, request: TimeoutRequest | int, confirm: bool,
                   answer: str = "") -> TimeoutRequest:
    """The organizer confirms a team's timeout request (the TIMEOUT ruling starts now, checked
    by the engine) or refuses it (with an answer the team reads)."""
    _require_organizer(actor)
    gg, now = w.game, w.now
    _require_running(gg)
    request_id = request if isinstance(request, int) else request.pk
    row = TimeoutRequest.objects.filter(gorod=gg, pk=request_id).select_related(
        "application__team").first()
    if row is None:
        raise DomainError(_("There is no such timeout request in this game."))
    if row.status != TimeoutRequest.Status.PENDING:
        raise DomainError(_("This timeout request has been answered already."))
    row.decided_at, row.decided_by, row.answer = now, actor, within(
        (answer or "").strip(), max_length=500, what=_("Answer"))
    if confirm:
        if _timeout_taken(gg, row.application):
            raise DomainError(_("This team has had its timeout: one per game (rules, 3.10)."))
        row.ruling = Ruling.objects.create(
            gorod=gg, application=row.application, type=Ruling.Type.TIMEOUT,
            minutes=row.minutes, at=now, reason=row.reason, by=actor, created_at=now)
        row.status = TimeoutRequest.Status.CONFIRMED
        w.change = changes.Computed(selectors.snapshot_or_refusal(gg, now))
    else:
        row.status = TimeoutRequest.Status.REFUSED
    row.save(update_fields=["decided_at", "decided_by", "answer", "ruling", "status"])
    audit.record(game=gg, actor=actor, action="gorod.timeout", at=now,
                 before={"request": row.pk, "team": row.application.team.name,
                         "minutes": row.minutes, "status": TimeoutRequest.Status.PENDING},
                 after={"request": row.pk, "status": row.status,
                        "ruling": row.ruling_id}, reason=row.answer)
    return row


# --- photo proof (3.23) ------------------------------------------------------------------------


def photo_submit(*, game, application: Application | int, data: bytes, now=None) -> PhotoProof:
    """A team sends the photo of its current level, a photo-proof one (an image of at most
    5 MB stored without its metadata, like a task image; cleaned before the game is locked).
    [decision] One photo waits at a time per level; a rejected one may be followed by
    another."""
    kind, data = _checked_image(bytes(data or b""), _("The photo"))
    return _photo_store(game=game, now=now, application=application, kind=kind, data=data)


@LIVE.write
def _photo_store(w: Write, *, application: Application | int, kind: str,
                 data: bytes) -> PhotoProof:
    gg, now = w.game, w.now
    _require_running(gg)
    entry = _entry(gg, application)
    snap = selectors.snapshot_or_refusal(gg, now)
    result = snap.by_name[entry.team.name]
    if result.status != "playing" or result.current_level is None:
        raise DomainError(_("Your team is not playing a level now."))
    level = snap.level(result.current_level)
    if not level.photo_proof:
        raise DomainError(_("This level is closed by its code, not by a photo."))
    if rules.timeout_until(result, now) is not None:
        raise DomainError(_("Your team is on a timeout: photos are not accepted."))
    if PhotoProof.objects.filter(application=entry, level=level,
                                 status=PhotoProof.Status.PENDING).exists():
        raise DomainError(_("Your photo of this level waits for the organizer already."))
    w.change = changes.Computed(snap)  # a photo changes no result until it is accepted
    return PhotoProof.objects.create(gorod=gg, application=entry, level=level,
                                     content_type=kind, data=bytes(data), size=len(data),
                                     uploaded_at=now)


@LIVE.write
def photo_decide(w: Write, *, actor, photo: PhotoProof | int, accept: bool,
                 answer: str = "") -> PhotoProof:
    """The organizer accepts a team's photo — the level closes at the moment it was sent, as
    a code sent then would have (the record's ``code`` event, checked by the engine) — or
    rejects it with an answer the team reads. [decision] Accepted only while the team is still
    on that level: once it left it (a code, a fail) the photo has nothing left to close."""
    _require_organizer(actor)
    gg, now = w.game, w.now
    _require_running(gg)
    photo_id = photo if isinstance(photo, int) else photo.pk
    row = PhotoProof.objects.filter(gorod=gg, pk=photo_id).select_related(
        "application__team", "level").first()
    if row is None:
        raise DomainError(_("There is no such photo in this game."))
    if row.status != PhotoProof.Status.PENDING:
        raise DomainError(_("This photo has been answered already."))
    row.decided_at, row.decided_by, row.answer = now, actor, within(
        (answer or "").strip(), max_length=500, what=_("Answer"))
    if accept:
        current = selectors.snapshot_or_refusal(gg, now).by_name[
            row.application.team.name].current_level
        if current != row.level.label:
            raise DomainError(_("The team is no longer on level %(level)s: reject the photo.")
                              % {"level": row.level.label})
        CodeAttempt.objects.create(
            gorod=gg, application=row.application, level=row.level, text=PHOTO_SECTOR,
            normalized="", at=row.uploaded_at, verdict=CodeAttempt.Verdict.ACCEPTED,
            sector=PHOTO_SECTOR, closes_level=True)
        row.status = PhotoProof.Status.ACCEPTED
    else:
        row.status = PhotoProof.Status.REJECTED
    row.save(update_fields=["decided_at", "decided_by", "answer", "status"])
    audit.record(game=gg, actor=actor, action="gorod.photo", at=now,
                 before={"photo": row.pk, "team": row.application.team.name,
                         "level": row.level.label, "status": PhotoProof.Status.PENDING},
                 after={"photo": row.pk, "status": row.status}, reason=row.answer)
    if accept:
        w.change = changes.Computed(selectors.snapshot_or_refusal(gg, now))
    return row


# --- the record -------------------------------------------------------------------------------


def game_record(game: GorodGame | int, *, now: datetime | None = None) -> dict:
    """The game's record in the contract format (``docs/spec/record-format.md``). For a running
    game it carries ``now`` (the live moment); replaying it gives exactly the live
    statistics."""
    gg = selectors.gorod_game(game if isinstance(game, int) else game.pk)
    if gg.started_at is None:
        raise DomainError(_("The game has not started yet."))
    running = gg.status == GorodGame.Status.RUNNING
    return selectors.build_record(gg, now=(now or timezone.now()) if running else None)
