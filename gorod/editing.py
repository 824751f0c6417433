"""GoRoD's set-up before the start: the game, its settings, levels, routes, task images and a
whole scenario imported. Each write but the creation goes through the live core
(``gorod.live.LIVE.write``): the organizer's screen shows the set-up as it is."""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Sequence
from datetime import datetime

from django.db import transaction
from django.utils.translation import gettext as _

from core import audit, engine_messages
from core.errors import DomainError
from core.records import RecordError
from gorod import rules, selectors, signals
from gorod.codes import DEFAULT_MAX_WRONG, DEFAULT_WINDOW_S, CodeSpecError, level_codes_from_dict
from gorod.guards import KEEP, checked_image, require_organizer, require_setup, start_problems
from gorod.live import LIVE
from gorod.models import GorodGame, Level, Route, TaskImage
from gorod.scenario import CHECKIN_MAX_MIN, ScenarioError
from live.write import Write
from teams import services as teams_services
from teams.models import Game


def _check_codes(spec: dict, where: str) -> dict:
    try:
        level_codes_from_dict(spec)
    except (CodeSpecError, TypeError) as exc:
        raise DomainError(_("Level %(level)s: %(why)s") % {"level": where, "why": exc}) from None
    return spec

def _check_settings(**settings) -> dict:
    """The engine's own check (``rules.check_settings``), so a game that can be set up can be
    played and replayed."""
    try:
        return rules.check_settings(**settings)
    except RecordError as exc:
        raise DomainError(_("The game engine refuses these settings: %(why)s")
                          % {"why": engine_messages.translate(exc)}) from None

def _check_checkin(every_min: int | None) -> int:
    """The interval of safety check-ins on grade 3–4 levels: 0 (or empty) is off."""
    if every_min is None or every_min == "":
        return 0
    if isinstance(every_min, bool) or not isinstance(every_min, int) or not (
            0 <= every_min <= CHECKIN_MAX_MIN):
        raise DomainError(_("Check-ins on dangerous levels: a whole number of minutes from 1 "
                            "to %(max)d, or 0 for none.") % {"max": CHECKIN_MAX_MIN})
    return every_min


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
                 wrong_window_s: int = DEFAULT_WINDOW_S,
                 checkin_every_min: int | None = 0) -> GorodGame:
    """Set up the live GoRoD of a scheduled ``teams.Game`` with its levels (dicts with
    ``label``, ``task``, ``hint1``, ``hint2``, ``duration_min``, ``danger``, ``codes``).
    Without ``game`` the night is published here too: a new GoRoD ``teams.Game`` with
    ``title`` and ``starts_at`` (teams apply to it as to any game)."""
    require_organizer(actor)
    settings = _check_settings(hint_offsets_min=list(hint_offsets_min),
                               sliv_penalty_min=sliv_penalty_min, max_duration_h=max_duration_h,
                               max_wrong=max_wrong, wrong_window_s=wrong_window_s)
    settings["checkin_every_min"] = _check_checkin(checkin_every_min)
    if game is None:
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
                  wrong_window_s: int, checkin_every_min: int | None = None) -> GorodGame:
    """Change the game's settings; [decision] until the start (afterwards the record would
    change under the teams' feet). ``checkin_every_min`` None: left as it is."""
    require_organizer(actor)
    gg = w.game
    require_setup(gg, _("The settings can only be changed before the start."))
    settings = _check_settings(hint_offsets_min=list(hint_offsets_min),
                               sliv_penalty_min=sliv_penalty_min, max_duration_h=max_duration_h,
                               max_wrong=max_wrong, wrong_window_s=wrong_window_s)
    if checkin_every_min is not None:
        settings["checkin_every_min"] = _check_checkin(checkin_every_min)
    for key, value in settings.items():
        setattr(gg, key, value)
    gg.save(update_fields=list(settings))
    return gg


@LIVE.write
def autostart_set(w: Write, *, actor, on: bool) -> GorodGame:
    """Arm (or disarm) the start by the clock at the announced time. [decision] Armed only
    before the start, while that time is still ahead (a time already past is a start now: the
    Start button) and when nothing in the set-up would stop the start (its checks, listed)."""
    require_organizer(actor)
    gg = w.game
    require_setup(gg, _("The game has already started."))
    before = gg.auto_start
    if on:
        starts_at = Game.objects.values_list("starts_at", flat=True).get(pk=gg.pk)
        if starts_at <= w.now:
            raise DomainError(_("The announced start time has passed: start the game with "
                                "the Start button, or move the start in the game's settings."))
        problems = start_problems(gg)
        if problems:
            raise DomainError(_("The game cannot start by itself yet: %(problems)s")
                              % {"problems": " ".join(problems)})
    gg.auto_start = bool(on)
    gg.save(update_fields=["auto_start"])
    audit.record(game=gg, actor=actor, action="gorod.autostart", at=w.now,
                 before={"on": before}, after={"on": gg.auto_start})
    return gg


@LIVE.write
def level_add(w: Write, *, actor, codes: dict, label: str | None = None,
              task: str = "", hint1: str = "", hint2: str = "",
              duration_min: float = rules.DEFAULT_LIMIT_MIN, danger: int | None = None,
              images: Sequence[str] = (), photo_proof: bool = False) -> Level:
    """Add a level at the end of the game order (before the start only); ``images`` name the
    game's uploaded task images it shows."""
    require_organizer(actor)
    gg = w.game
    require_setup(gg, _("Levels can only be added before the start."))
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
    require_organizer(actor)
    gg = w.game
    require_setup(gg, _("Levels can only be changed before the start."))
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
    require_organizer(actor)
    gg = w.game
    require_setup(gg, _("Levels can only be moved before the start."))
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
    require_organizer(actor)
    gg = w.game
    require_setup(gg, _("Levels can only be deleted before the start."))
    found = _level(gg, level)
    found.delete()
    _renumber(gg, selectors.levels(gg))
    Route.objects.filter(gorod=gg).delete()


@LIVE.write
def routes_generate(w: Write, *, actor, seed: int | str | None = None) -> dict:
    """Routes for a non-linear game (Latin-square rotation of a seeded shuffle), before the
    start; returns ``{application id: [level ids]}``."""
    require_organizer(actor)
    gg = w.game
    require_setup(gg, _("Routes can only be changed before the start."))
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


def image_add(*, game, actor, name: str, data: bytes, now=None) -> TaskImage:
    """Upload a task image (PNG, JPEG, GIF or WebP, at most 5 MB) under its file name, before
    the start, stored without its metadata (``core.images``: a photo's GPS position would give
    the place away). [decision] A name already uploaded is replaced: the levels showing it show
    the new one."""
    require_organizer(actor)
    # Decoded before the game is locked: a 5 MB photo takes a moment to re-encode.
    kind, data = checked_image(data, str(name or "")[:100])
    return _image_store(game=game, now=now, actor=actor, name=name, kind=kind, data=data)


@LIVE.write
def _image_store(w: Write, *, actor, name: str, kind: str, data: bytes) -> TaskImage:
    require_organizer(actor)
    gg = w.game
    require_setup(gg, _("Images can only be uploaded before the start."))
    name = str(name or "").replace("\\", "/").rsplit("/", 1)[-1].strip()
    if not name or len(name) > 100:
        raise DomainError(_("An image needs a file name of at most 100 characters."))
    image, _created = TaskImage.objects.update_or_create(
        gorod=gg, name=name, defaults={"content_type": kind, "data": data, "size": len(data)})
    return image


@LIVE.write
def image_delete(w: Write, *, actor, name: str) -> None:
    """Remove a task image before the start; refused while a level shows it."""
    require_organizer(actor)
    gg = w.game
    require_setup(gg, _("Images can only be deleted before the start."))
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
    require_organizer(actor)
    gg = w.game
    require_setup(gg, _("A scenario can only be imported before the start."))
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
        spec.pop("bonus_hints", None)  # what a played night sent: its account, not set-up
        level_add(actor=actor, game=gg, label=spec.pop("id"), **spec)
    Route.objects.bulk_create([Route(gorod=gg, application=by_name[name], levels=list(route))
                               for name, route in scenario.routes.items()])
    gg.refresh_from_db()
    return gg
