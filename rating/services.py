"""Writes of the rating app: seasons, publishing results (preliminary → final → re-opened),
editing preliminary rows, the organizing team and the captains' votes (``docs/rules/rating.md``).

Every function is organizer-only (``NotAllowed``, 403, otherwise) — except filing a protest,
which a playing team's captain may do too — and refuses with a ``DomainError`` saying why; a
refusal changes nothing. Places come from the live engines:
King of the Hill's stored board (standings order), GoRoD's ``gorod.rules.compute`` results.
"""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.utils import formats, timezone
from django.utils.translation import gettext as _

from core.errors import DomainError, NotAllowed
from core.records import RecordError
from core.roles import is_organizer
from rating import rules, selectors
from rating.models import PROTEST_TEXT_MAX, GameResult, OrganizerVote, Protest, ResultRow, Season
from teams.models import Game, Team
from teams.services import benefits_grant

UNSET: Any = object()


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
        raise DomainError(_("The points scale is not valid: %(error)s") % {"error": exc}) from None


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
    return Season.objects.create(title=title[:200], format=format, scale=scale, created_by=actor)


@transaction.atomic
def season_game_add(*, actor, season: Season, game: Game) -> Season:
    _require_organizer(actor)
    if game.format != season.format:
        raise DomainError(_("This game is of another format than the season."))
    if not game.rated:
        raise DomainError(_("Only rated games count in a season."))
    season.games.add(game)
    return season


@transaction.atomic
def season_game_remove(*, actor, season: Season, game: Game) -> Season:
    _require_organizer(actor)
    season.games.remove(game)
    return season


# --- results from the live games -------------------------------------------------------------


def _koth_rows(game: Game) -> list[tuple[Team, int | None, bool]]:
    from kingofhill import selectors as koth_selectors
    from kingofhill.models import KothGame

    koth = KothGame.objects.filter(pk=game.pk).first()
    if koth is None or koth.status != KothGame.Status.FINISHED or not koth.board.get("finished"):
        raise DomainError(_("The game is not finished yet: results are published after it ends."))
    teams = {a.team.name: a.team for a in koth_selectors.game_entries(koth)}
    rows = []
    for row in koth.board.get("teams", []):
        team = teams.get(row["team"])
        if team is not None:
            rows.append((team, row.get("place"), False))
    return rows


def _gorod_rows(game: Game) -> list[tuple[Team, int | None, bool]]:
    from gorod import selectors as gorod_selectors
    from gorod.models import GorodGame

    gg = GorodGame.objects.select_related("game").filter(pk=game.pk).first()
    if gg is None or gg.status != GorodGame.Status.FINISHED:
        raise DomainError(_("The game is not finished yet: results are published after it ends."))
    # As of its end: the record is complete then (and a night may be "in the future" in tests).
    snap = gorod_selectors.load_snapshot(gg, gg.ended_at)
    teams = {a.team.name: a.team for a in snap.entries}
    rows = []
    for result in snap.results.teams if snap.results else ():
        team = teams.get(result.team)
        if team is None:
            continue
        disqualified = result.status == "disqualified"
        rows.append((team, None if disqualified else result.place, disqualified))
    return rows


def live_rows(game: Game) -> list[tuple[Team, int | None, bool]]:
    """``(team, place, disqualified)`` in standings order, from the game's live engine."""
    if game.format == Game.Format.KINGOFHILL:
        return _koth_rows(game)
    if game.format == Game.Format.GOROD:
        return _gorod_rows(game)
    raise DomainError(_("Unknown game format."))


def _lock(game: Game) -> GameResult | None:
    return GameResult.objects.select_for_update().filter(game=game).first()


def _preliminary(game: Game) -> GameResult:
    result = _lock(game)
    if result is None:
        raise DomainError(_("The results of this game are not published yet."))
    if result.is_final:
        raise DomainError(_("The results are final; re-open them to change anything."))
    return result


@transaction.atomic
def results_publish(*, actor, game: Game, now=None) -> GameResult:
    """Publish (or refresh) the preliminary results from the finished live game.

    Refreshing replaces the places and disqualifications with the engine's; deductions of
    teams still in the game are kept.
    """
    _require_organizer(actor)
    if game.status == Game.Status.CANCELLED:
        raise DomainError(_("The game was cancelled."))
    result = _lock(game)
    if result is not None and result.is_final:
        raise DomainError(_("The results are final; re-open them to change anything."))
    rows = live_rows(game)
    if not rows:
        raise DomainError(_("No team played this game."))
    now = now or timezone.now()
    if result is None:
        result = GameResult.objects.create(game=game, published_at=now, published_by=actor)
    else:
        result.published_at, result.published_by = now, actor
        result.save(update_fields=["published_at", "published_by"])
    deductions = dict(result.rows.values_list("team_id", "deduction"))
    result.rows.all().delete()
    ResultRow.objects.bulk_create(
        ResultRow(result=result, team=team, place=place, disqualified=disqualified,
                  deduction=deductions.get(team.pk, 0))
        for team, place, disqualified in rows)
    played = [team.pk for team, _place, _dq in rows]
    if result.organizing_team_id in played:
        result.organizing_team = None
        result.save(update_fields=["organizing_team"])
    result.votes.exclude(team_id__in=played).delete()
    return result


@transaction.atomic
def results_finalize(*, actor, game: Game, now=None) -> GameResult:
    """Make the results final: they count in the season table; prizes go to places 1–3."""
    _require_organizer(actor)
    result = _preliminary(game)
    open_protests = result.protests.filter(status=Protest.Status.OPEN).count()
    if open_protests:
        raise DomainError(
            _("Answer the open protests first (%(count)d open): results cannot be final while "
              "a protest is unanswered.") % {"count": open_protests})
    rows = list(result.rows.all())
    if any(row.place is None and not row.disqualified for row in rows):
        raise DomainError(_("Every team that is not disqualified needs a place."))
    # The season record scores a game by its order of finish, so the places must be that order.
    places = sorted(row.place for row in rows if not row.disqualified)
    if places != list(range(1, len(places) + 1)):
        raise DomainError(_("The places must run 1, 2, 3, … with no gaps and no shared places."))
    result.status = GameResult.Status.FINAL
    result.finalized_at = now or timezone.now()
    result.save(update_fields=["status", "finalized_at"])
    benefits_grant(game, {row.team_id: row.place for row in rows if not row.disqualified})
    return result


@transaction.atomic
def results_reopen(*, actor, game: Game, reason: str) -> GameResult:
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
    return result


def _row(result: GameResult, team: Team | int) -> ResultRow:
    team_id = team.pk if isinstance(team, Team) else team
    row = result.rows.select_related("team").filter(team_id=team_id).first()
    if row is None:
        raise DomainError(_("This team did not play this game."))
    return row


@transaction.atomic
def result_row_set(*, actor, game: Game, team: Team | int, place: int | None = UNSET,
                   disqualified: bool = UNSET, deduction: int = UNSET) -> ResultRow:
    """Edit a preliminary row. A disqualified team has no place; taking the disqualification
    back needs a place."""
    _require_organizer(actor)
    result = _preliminary(game)
    row = _row(result, team)
    if disqualified is not UNSET:
        row.disqualified = bool(disqualified)
        if row.disqualified:
            row.place = None
    if place is not UNSET and not row.disqualified:
        if place is not None and (type(place) is not int or place < 1):
            raise DomainError(_("A place is a whole number, 1 or more."))
        row.place = place
    if not row.disqualified and row.place is None:
        raise DomainError(_("A team that is not disqualified needs a place."))
    if deduction is not UNSET:
        if type(deduction) is not int or deduction < 0:
            raise DomainError(_("A deduction is a whole number of points, 0 or more."))
        row.deduction = deduction
    row.save(update_fields=["place", "disqualified", "deduction"])
    return row


@transaction.atomic
def organizer_set(*, actor, game: Game, team: Team | None) -> GameResult:
    """Name the team that organized the game (it did not play it), or none."""
    _require_organizer(actor)
    result = _lock(game)
    if result is None:
        raise DomainError(_("The results of this game are not published yet."))
    if team is not None and result.rows.filter(team=team).exists():
        raise DomainError(_("A team that played the game cannot be its organizing team."))
    result.organizing_team = team
    result.save(update_fields=["organizing_team"])
    if team is None:
        result.votes.all().delete()
    return result


@transaction.atomic
def vote_set(*, actor, game: Game, team: Team | int, value: int | None) -> OrganizerVote:
    """Record a playing team's captain's vote (100, 75, 50, 25, 0; ``None``: no vote)."""
    _require_organizer(actor)
    result = _lock(game)
    if result is None:
        raise DomainError(_("The results of this game are not published yet."))
    if result.organizing_team_id is None:
        raise DomainError(_("Name the organizing team first."))
    if value is not None and value not in rules.VOTES:
        raise DomainError(_("A vote is one of 100, 75, 50, 25, 0."))
    row = _row(result, team)
    vote, _created = OrganizerVote.objects.update_or_create(
        result=result, team=row.team, defaults={"value": value})
    return vote


# --- protests ---------------------------------------------------------------------------------


def is_captain(user, team: Team) -> bool:
    return bool(getattr(user, "is_authenticated", False)) and team.captain_id == user.pk


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
    results, within 12 h of the game's end (``selectors.protest_deadline``)."""
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
    deadline = selectors.protest_deadline(result)
    if now > deadline:
        raise DomainError(
            _("Protests are filed within 12 hours of the game's end; the time ran out at "
              "%(deadline)s.")
            % {"deadline": formats.date_format(timezone.localtime(deadline), "DATETIME_FORMAT")})
    text = _protest_text(text, empty=_("Write what the protest is about."))
    return Protest.objects.create(result=result, team=team, text=text, created_at=now,
                                  created_by=actor)


@transaction.atomic
def protest_answer(*, actor, protest: Protest, upheld: bool, answer: str, now=None) -> Protest:
    """The organizer upholds or rejects an open protest, saying why. Upholding changes nothing
    by itself: the organizer then corrects the rows (or re-opens final results)."""
    _require_organizer(actor)
    protest = Protest.objects.select_for_update().get(pk=protest.pk)
    if not protest.is_open:
        raise DomainError(_("This protest is already answered."))
    protest.answer = _protest_text(answer, empty=_("Write the answer to the protest."))
    protest.status = Protest.Status.UPHELD if upheld else Protest.Status.REJECTED
    protest.answered_at = now or timezone.now()
    protest.answered_by = actor
    protest.save(update_fields=["answer", "status", "answered_at", "answered_by"])
    return protest
