"""Writes of the rating app: seasons, publishing results (preliminary → final → re-opened),
the organizer's table of places, the organizing team, the captains' votes and protests
(``docs/rules/rating.md``).

Every write is organizer-only (``NotAllowed``, 403, otherwise) — except filing a protest (the
team's captain or an organizer) and voting (the team's captain only) — and refuses with a
``DomainError`` saying why; a refusal changes nothing. Outcomes come from each game's record
and its pure engine, asked through the game-format registry (``core.formats``: each game
registers its outcome, with team ids; the rating imports no game). Everything stored
refers to teams by id. Every change of results lands in the audit log (``ResultChange``),
and captains get a notice on their team page and phones when results appear, when their
protest is answered and when results become final.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.db import transaction
from django.utils import formats, timezone
from django.utils.translation import gettext as _

from core import audit, engine_messages
from core import formats as game_formats
from core.errors import DomainError, NotAllowed
from core.formats import Outcome
from core.models import AuditEntry
from core.records import RecordError
from core.roles import is_organizer
from core.text import within
from rating import rules, selectors
from rating.models import (
    PROTEST_TEXT_MAX,
    GameResult,
    OrganizerVote,
    Protest,
    ResultChange,
    ResultRow,
    Season,
)
from teams.models import Application, Game, Notice, Team
from teams.services import benefits_grant


def _require_organizer(actor) -> None:
    if not is_organizer(actor):
        raise NotAllowed(_("Only organizers may do this."))


def default_scale(format: str) -> list[int]:
    """The format's default points list: the GoRoD table, or the King of the Hill band scale
    (the list up to "20 and below"; the season record names it so places past it repeat)."""
    scale = rules.KOTH_BAND_SCALE if format == Game.Format.KINGOFHILL else rules.GOROD_SCALE
    return list(scale.points)


def _check_scale(scale: Any) -> list[int]:
    try:
        return list(rules.scale_from_data(scale).points) if isinstance(scale, list) else []
    except RecordError as exc:
        raise DomainError(_("The points scale is not valid: %(error)s")
                          % {"error": engine_messages.translate(exc)}) from None


# --- seasons ---------------------------------------------------------------------------------


@transaction.atomic
def season_create(*, actor, title: str, format: str, scale: list[int] | None = None) -> Season:
    _require_organizer(actor)
    title = (title or "").strip()
    if not title:
        raise DomainError(_("A season needs a title."))
    if format not in Game.Format.values:
        raise DomainError(_("Unknown game format."))
    if scale:
        scale = _check_scale(scale)
        if not scale:
            raise DomainError(_("The points scale must be a list of points."))
    else:
        scale = default_scale(format)
    title = within(title, max_length=Season._meta.get_field("title").max_length, what=_("Title"))
    return Season.objects.create(title=title, format=format, scale=scale, created_by=actor)


@transaction.atomic
def season_game_add(*, actor, season: Season, game: Game) -> Season:
    _require_organizer(actor)
    if game.format != season.format:
        raise DomainError(_("This game is of another format than the season."))
    if game.test_of_id is not None or not game.rated:
        raise DomainError(_("Only rated games count in a season."))
    season.games.add(game)
    selectors.season_cache_forget(season.pk)
    return season


@transaction.atomic
def season_game_remove(*, actor, season: Season, game: Game) -> Season:
    _require_organizer(actor)
    season.games.remove(game)
    selectors.season_cache_forget(season.pk)
    return season


# --- results from the games' records --------------------------------------------------------


def _not_finished() -> DomainError:
    return DomainError(_("The game is not finished yet: results are published after it ends."))


def game_outcome(game: Game) -> Outcome:
    """The finished game's outcome, from its record and its pure engine (asked through the
    format registry: the rating imports no game)."""
    game_format = game_formats.get(game.format)
    if game_format is None:
        raise DomainError(_("Unknown game format."))
    try:
        outcome = game_format.outcome(game)
    except RecordError as exc:
        raise DomainError(_("The game's record cannot be computed: %(error)s")
                          % {"error": engine_messages.translate(exc)}) from None
    if outcome is None:
        raise _not_finished()
    return outcome


def _lock(game: Game) -> GameResult | None:
    return GameResult.objects.select_for_update().filter(game=game).first()


def _preliminary(game: Game) -> GameResult:
    result = _lock(game)
    if result is None:
        raise DomainError(_("The results of this game are not published yet."))
    if result.is_final:
        raise DomainError(_("The results are final; re-open them to change anything."))
    return result


def _log(result: GameResult, action: str, actor, now: datetime, *, team_id: int | None = None,
         detail: dict | None = None, reason: str = "", before=None, after=None) -> None:
    """The results' own log (``ResultChange``, shown on the results page) and the site's audit
    log (``core.audit``) with the value before and after. A row change's ``detail``
    (``{"field": [before, after]}``) gives both sides when they are not given."""
    ResultChange.objects.create(result=result, action=action, team_id=team_id,
                                detail=detail or {}, reason=reason, actor=actor, at=now)
    if detail and before is None and after is None:
        before = {key: pair[0] for key, pair in detail.items() if isinstance(pair, list)}
        after = {key: pair[1] for key, pair in detail.items() if isinstance(pair, list)}
    if team_id is not None:
        before = None if before is None else {"team": team_id, **before}
        after = None if after is None else {"team": team_id, **after}
    audit.record(game=result.game_id, actor=actor, action=f"rating.{_AUDIT[action]}",
                 before=before, after=after, reason=reason, at=now)


# The audit log's names of the results' actions ("row" reads better than "edit").
_AUDIT = {ResultChange.Action.PUBLISH: "publish", ResultChange.Action.EDIT: "row",
          ResultChange.Action.FINALIZE: "finalize",
          ResultChange.Action.EARLY_FINAL: "early_final",
          ResultChange.Action.REOPEN: "reopen", ResultChange.Action.ORGANIZER: "organizer",
          ResultChange.Action.PROTEST: "protest"}


def _rows(result: GameResult) -> list[dict]:
    return [{"team": team, "place": place, "disqualified": dq, "deduction": deduction}
            for team, place, dq, deduction in result.rows.order_by("standing").values_list(
                "team_id", "place", "disqualified", "deduction")]


def _notify(result: GameResult, kind: str, team_ids=None, text: str = "") -> None:
    if team_ids is None:
        team_ids = list(result.rows.values_list("team_id", flat=True))
        organizing = Game.objects.values_list("organizing_team_id", flat=True).get(
            pk=result.game_id)
        if organizing:
            team_ids.append(organizing)
    Notice.objects.bulk_create(
        Notice(team_id=team_id, game=result.game, kind=kind, text=text) for team_id in team_ids)


def _changed(result: GameResult) -> None:
    """The season tables that count this game are recomputed on their next read."""
    seasons = list(result.game.seasons.values_list("pk", flat=True))
    transaction.on_commit(lambda: [selectors.season_cache_forget(pk) for pk in seasons])


@transaction.atomic
def results_publish(*, actor, game: Game, now=None) -> GameResult:
    """Publish (or refresh) the preliminary results from the finished game's record.

    Places follow from the game's standings (disqualified teams drop out, the rest close up);
    refreshing replaces the places and disqualifications with the engine's and keeps the
    deductions of teams still in the game. Captains get a notice the first time.
    """
    _require_organizer(actor)
    if game.status == Game.Status.CANCELLED:
        raise DomainError(_("The game was cancelled."))
    if game.test_of_id is not None:
        raise DomainError(_("A test run has no results: nothing of it goes to the results or "
                            "the season."))
    result = _lock(game)
    if result is not None and result.is_final:
        raise DomainError(_("The results are final; re-open them to change anything."))
    outcome = game_outcome(game)
    if not outcome.rows:
        raise DomainError(_("No team played this game."))
    now = now or timezone.now()
    first = result is None
    if first:
        result = GameResult.objects.create(game=game, published_at=now, published_by=actor)
    result.published_at, result.published_by = now, actor
    result.ended_at, result.finish_reason = outcome.ended_at, outcome.finish_reason
    result.outdated_at, result.outdated_reason = None, ""  # published from the board as it is
    result.save(update_fields=["published_at", "published_by", "ended_at", "finish_reason",
                               "outdated_at", "outdated_reason"])
    places = rules.table_places(
        (team_id, standing, dq) for standing, (team_id, _place, dq, _f)
        in enumerate(outcome.rows, 1))
    deductions = dict(result.rows.values_list("team_id", "deduction"))
    before = None if first else _rows(result)
    result.rows.all().delete()
    ResultRow.objects.bulk_create(
        ResultRow(result=result, team_id=team_id, place=places[team_id], disqualified=dq,
                  deduction=deductions.get(team_id, 0), standing=standing, figures=figures)
        for standing, (team_id, _place, dq, figures) in enumerate(outcome.rows, 1))
    played = [row[0] for row in outcome.rows]
    result.votes.exclude(team_id__in=played).delete()
    _log(result, ResultChange.Action.PUBLISH, actor, now, before=before, after=_rows(result))
    if first:
        _notify(result, Notice.Kind.RESULTS_PRELIMINARY)
    return result


def _int_or_none(value: Any) -> Any:
    if value is None or value == "":
        return None
    return value


@transaction.atomic
def results_table_set(*, actor, game: Game, rows: list[dict], now=None) -> GameResult:
    """The organizer's edit of the whole preliminary table, checked as a whole.

    ``rows``: one ``{"team": id, "place": int | None, "disqualified": bool,
    "deduction": int, "reason": str}`` per team of the game (every team, once). Places keep
    the order asked for and close up to 1..n around the disqualified teams
    (``rules.table_places``); every row that changes needs its reason, and each change is
    logged with it.
    """
    _require_organizer(actor)
    result = _preliminary(game)
    now = now or timezone.now()
    current = {row.team_id: row for row in result.rows.select_related("team")}
    given: dict[int, dict] = {}
    for item in rows:
        team_id = item.get("team")
        if team_id not in current:
            raise DomainError(_("This team did not play this game."))
        if team_id in given:
            raise DomainError(_("Each team appears once in the table."))
        given[team_id] = item
    if set(given) != set(current):
        raise DomainError(_("The table must list every team of the game."))
    wanted: dict[int, dict] = {}
    for team_id, item in given.items():
        deduction = item.get("deduction", current[team_id].deduction)
        if type(deduction) is not int or deduction < 0:
            raise DomainError(_("A deduction is a whole number of points, 0 or more."))
        wanted[team_id] = {"disqualified": bool(item.get("disqualified", False)),
                           "place": _int_or_none(item.get("place")), "deduction": deduction}
    try:
        places = rules.table_places(
            (current[t].team.name, w["place"], w["disqualified"]) for t, w in wanted.items())
    except rules.PlacesError as exc:
        raise DomainError(_places_message(exc)) from None
    changes: list[tuple[ResultRow, dict, str]] = []
    reasons = []
    for team_id, w in wanted.items():
        row = current[team_id]
        place = places[row.team.name]
        asked = {"place": w["place"] if not w["disqualified"] else None,
                 "disqualified": w["disqualified"], "deduction": w["deduction"]}
        edited = (asked["disqualified"] != row.disqualified or asked["deduction"] != row.deduction
                  or (not asked["disqualified"] and asked["place"] != row.place))
        reason = (given[team_id].get("reason") or "").strip()
        if edited and not reason:
            raise DomainError(_("Say why the row of %(team)s changes.") % {"team": row.team.name})
        if edited:
            reasons.append(reason)
        after = {"place": place, "disqualified": w["disqualified"], "deduction": w["deduction"]}
        detail = {key: [getattr(row, key), value] for key, value in after.items()
                  if getattr(row, key) != value}
        if detail:
            changes.append((row, detail, reason))
    for row, detail, reason in changes:
        for key, (_before, value) in detail.items():
            setattr(row, key, value)
        row.save(update_fields=["place", "disqualified", "deduction"])
        # A team moved only because another row changed carries those rows' reasons.
        _log(result, ResultChange.Action.EDIT, actor, now, team_id=row.team_id, detail=detail,
             reason=reason or "; ".join(reasons))
    return result


def _places_message(exc: rules.PlacesError) -> str:
    if exc.code == "duplicate":
        return _("Two teams have the same place (%(team)s): every place is held once.") % {
            "team": exc.team}
    if exc.code == "missing":
        return _("%(team)s is not disqualified and needs a place.") % {"team": exc.team}
    return _("%(team)s: a place is a whole number, 1 or more.") % {"team": exc.team}


def _when(moment: datetime) -> str:
    return formats.date_format(timezone.localtime(moment), "DATETIME_FORMAT")


@transaction.atomic
def results_finalize(*, actor, game: Game, now=None, early: bool = False,
                     reason: str = "") -> GameResult:
    """Make the results final: they count in the season table; prizes go to places 1–3.

    Within the protest window (12 h after the game's end) this is refused unless the
    organizer confirms an early final (``early``) and says why.
    """
    _require_organizer(actor)
    result = _preliminary(game)
    now = now or timezone.now()
    open_protests = result.protests.filter(status=Protest.Status.OPEN).count()
    if open_protests:
        raise DomainError(
            _("Answer the open protests first (%(count)d open): results cannot be final while "
              "a protest is unanswered.") % {"count": open_protests})
    reason = (reason or "").strip()
    is_early = rules.final_is_early(selectors.game_ended_at(result), now)
    if is_early and not early:
        raise DomainError(
            _("Captains may protest until %(deadline)s. To make the results final before "
              "that, confirm an early final and say why.")
            % {"deadline": _when(selectors.protest_deadline(result))})
    if is_early and not reason:
        raise DomainError(_("Say why the results are made final before the protest window "
                            "closes."))
    if result.outdated_at is not None:
        raise DomainError(_("The game's board changed after these results were published: "
                            "refresh them from the game first."))
    rows = list(result.rows.all())
    if not rules.places_complete((row.place, row.disqualified) for row in rows):
        raise DomainError(_("The places must run 1, 2, 3, … with no gaps and no shared places."))
    result.status = GameResult.Status.FINAL
    result.finalized_at = now
    result.early_final_reason = reason if is_early else ""
    result.save(update_fields=["status", "finalized_at", "early_final_reason"])
    benefits_grant(game, {row.team_id: row.place for row in rows if not row.disqualified})
    _log(result, ResultChange.Action.EARLY_FINAL if is_early else ResultChange.Action.FINALIZE,
         actor, now, reason=result.early_final_reason,
         before={"status": GameResult.Status.PRELIMINARY}, after={"status": result.status})
    _notify(result, Notice.Kind.RESULTS_FINAL)
    _changed(result)
    return result


@transaction.atomic
def results_mark_outdated(*, game: Game | int, reason: str, now=None) -> GameResult | None:
    """The game's board changed after its results were published: the results page says so
    and asks the organizer to publish again (``results_publish`` clears the mark). Called by
    the game's own service, which has already authorized the change; None when nothing is
    published."""
    result = GameResult.objects.select_for_update().filter(game=game).first()
    if result is None:
        return None
    result.outdated_at = now or timezone.now()
    result.outdated_reason = reason
    result.save(update_fields=["outdated_at", "outdated_reason"])
    return result


class PublishedResults:
    """The rating as the games' ``core.formats.ResultsKeeper`` (registered in
    ``RatingConfig.ready``): a game asks whether its results are published and says when its
    board changed after them."""

    def published(self, game_id: int) -> bool:
        return selectors.results_published(game_id)

    def outdated(self, *, game_id: int, now: datetime, reason: str) -> None:
        results_mark_outdated(game=game_id, now=now, reason=reason)


@transaction.atomic
def results_reopen(*, actor, game: Game, reason: str, now=None) -> GameResult:
    """Back to preliminary (a protest upheld): the game leaves the season table and its prize
    benefits are withdrawn until the results are final again."""
    _require_organizer(actor)
    reason = (reason or "").strip()
    if not reason:
        raise DomainError(_("Say why the results are re-opened."))
    result = _lock(game)
    if result is None or not result.is_final:
        raise DomainError(_("Only final results can be re-opened."))
    result.status = GameResult.Status.PRELIMINARY
    result.finalized_at = None
    result.reopen_reason = reason
    result.save(update_fields=["status", "finalized_at", "reopen_reason"])
    benefits_grant(game, {})
    _log(result, ResultChange.Action.REOPEN, actor, now or timezone.now(), reason=reason,
         before={"status": GameResult.Status.FINAL}, after={"status": result.status})
    _changed(result)
    return result


@transaction.atomic
def organizer_set(*, actor, game: Game, team: Team | None, now=None) -> Game:
    """Name the team that prepares the game (it may not play it), or none. Changing it drops
    the votes on the previous one."""
    _require_organizer(actor)
    game = Game.objects.select_for_update().get(pk=game.pk)
    result = _lock(game)
    if team is not None:
        if result is not None and result.rows.filter(team=team).exists():
            raise DomainError(_("A team that played the game cannot be its organizing team."))
        if Application.objects.filter(
                game=game, team=team,
                status__in=(Application.Status.PENDING, Application.Status.APPROVED)).exists():
            raise DomainError(_("This team applied to play the game, so it cannot organize "
                                "it; it must withdraw its application first."))
    if game.organizing_team_id == (team.pk if team else None):
        return game
    if result is not None and result.is_final:
        raise DomainError(_("The results are final; re-open them to change anything."))
    previous = game.organizing_team_id
    game.organizing_team = team
    game.save(update_fields=["organizing_team"])
    if result is not None:
        result.votes.all().delete()
        _log(result, ResultChange.Action.ORGANIZER, actor, now or timezone.now(),
             team_id=team.pk if team else None, before={"organizing_team": previous},
             after={"organizing_team": team.pk if team else None})
    else:
        audit.record(game=game, actor=actor, action="rating.organizer", at=now,
                     before={"organizing_team": previous},
                     after={"organizing_team": team.pk if team else None})
    return game


def is_captain(user, team: Team | int) -> bool:
    team_captain = team.captain_id if isinstance(team, Team) else (
        Team.objects.filter(pk=team).values_list("captain_id", flat=True).first())
    return bool(getattr(user, "is_authenticated", False)) and team_captain == user.pk


@transaction.atomic
def vote_cast(*, actor, game: Game, team: Team | int, value: int, now=None) -> OrganizerVote:
    """A playing team's captain votes on the organizing team's game: 100, 75, 50, 25 or 0,
    within 72 h of the game's end, while the results are preliminary (10.6). Voting again
    replaces the vote."""
    team_id = team.pk if isinstance(team, Team) else team
    if not is_captain(actor, team_id):
        raise NotAllowed(_("Only the team's captain votes for the team."))
    result = _lock(game)
    if result is None:
        raise DomainError(_("The results of this game are not published yet."))
    if Game.objects.filter(pk=game.pk, organizing_team__isnull=False).count() == 0:
        raise DomainError(_("This game has no organizing team to vote on."))
    if not result.rows.filter(team_id=team_id).exists():
        raise DomainError(_("Only a team that played the game votes on its organizers."))
    if result.is_final:
        raise DomainError(_("The results are final: the vote is closed."))
    now = now or timezone.now()
    if not rules.vote_open(selectors.game_ended_at(result), now):
        raise DomainError(_("Votes are given within 72 hours of the game's end; the time ran "
                            "out at %(deadline)s.")
                          % {"deadline": _when(selectors.vote_deadline(result))})
    if type(value) is not int or value not in rules.VOTES:
        raise DomainError(_("A vote is one of 100, 75, 50, 25, 0."))
    cast = AuditEntry.objects.filter(game=result.game_id, action="rating.vote",
                                     after__team=team_id).count()
    if cast >= rules.VOTES_CAST_MAX:
        raise DomainError(_("Your team has voted %(max)d times on this game: the vote stays as "
                            "it is.") % {"max": rules.VOTES_CAST_MAX})
    previous = result.votes.filter(team_id=team_id).values_list("value", flat=True).first()
    vote, _created = OrganizerVote.objects.update_or_create(
        result=result, team_id=team_id,
        defaults={"value": value, "voted_by": actor, "voted_at": now})
    audit.record(game=result.game_id, actor=actor, action="rating.vote", at=now,
                 before=None if previous is None else {"team": team_id, "value": previous},
                 after={"team": team_id, "value": value})
    return vote


# --- protests ---------------------------------------------------------------------------------


def _protest_text(text: str, *, empty: str) -> str:
    text = (text or "").strip()
    if not text:
        raise DomainError(empty)
    if len(text) > PROTEST_TEXT_MAX:
        raise DomainError(_("At most %(max)d characters, please.") % {"max": PROTEST_TEXT_MAX})
    return text


@transaction.atomic
def protest_file(*, actor, game: Game, team: Team, text: str, now=None) -> Protest:
    """A playing team's captain (or an organizer on its behalf) protests the preliminary
    results, within 12 h of the game's end (``rules.protest_open``)."""
    if not (is_organizer(actor) or is_captain(actor, team)):
        raise NotAllowed(_("Only the team's captain or an organizer may file its protest."))
    result = _lock(game)
    if result is None:
        raise DomainError(_("The results of this game are not published yet."))
    if result.is_final:
        raise DomainError(_("The results are final: protests are filed on preliminary results."))
    if not result.rows.filter(team=team).exists():
        raise DomainError(_("This team did not play this game."))
    now = now or timezone.now()
    if not rules.protest_open(selectors.game_ended_at(result), now):
        raise DomainError(
            _("Protests are filed within 12 hours of the game's end; the time ran out at "
              "%(deadline)s.") % {"deadline": _when(selectors.protest_deadline(result))})
    text = _protest_text(text, empty=_("Write what the protest is about."))
    if result.protests.filter(team=team, status=Protest.Status.OPEN).count() >= (
            rules.PROTESTS_OPEN_MAX):
        raise DomainError(
            _("Your team has %(max)d protests waiting for the organizer's answer: wait for an "
              "answer before filing another.") % {"max": rules.PROTESTS_OPEN_MAX})
    return Protest.objects.create(result=result, team=team, text=text, created_at=now,
                                  created_by=actor)


@transaction.atomic
def protest_answer(*, actor, protest: Protest, upheld: bool, answer: str, now=None) -> Protest:
    """The organizer upholds or rejects an open protest, saying why; the team's captain gets
    a notice. Upholding changes nothing by itself: the organizer then corrects the table (or
    re-opens final results)."""
    _require_organizer(actor)
    protest = Protest.objects.select_for_update().select_related("result__game").get(
        pk=protest.pk)
    if not protest.is_open:
        raise DomainError(_("This protest is already answered."))
    protest.answer = _protest_text(answer, empty=_("Write the answer to the protest."))
    protest.status = Protest.Status.UPHELD if upheld else Protest.Status.REJECTED
    protest.answered_at = now or timezone.now()
    protest.answered_by = actor
    protest.save(update_fields=["answer", "status", "answered_at", "answered_by"])
    _log(protest.result, ResultChange.Action.PROTEST, actor, protest.answered_at,
         team_id=protest.team_id, detail={"status": protest.status}, reason=protest.answer,
         before={"protest": protest.pk, "status": Protest.Status.OPEN},
         after={"protest": protest.pk, "status": protest.status})
    _notify(protest.result, Notice.Kind.PROTEST_ANSWERED, [protest.team_id],
            text=protest.answer)
    return protest
