"""Finished live games for the rating tests, played through the real services.

``koth_finished``: a King of the Hill game (Alpha, Beta, Gamma; summit 3) that Alpha wins.
``gorod_finished``: a GoRoD night (Alpha, Beta, Gamma) that Alpha wins, Beta second, Gamma
disqualified. The teams are the same ``teams.Team`` rows when ``teams`` is passed, so both
games can count in one season.
"""

from __future__ import annotations

import secrets
from datetime import UTC, datetime, timedelta

from django.contrib.auth.models import Group, User
from django.utils import timezone

from core.roles import ORGANIZER
from gorod import services as gorod_services
from kingofhill import services as koth_services
from kingofhill.models import Answer, KothGame
from teams.models import Application, Game, Member, Team
from tests.gorod.fixtures_live import LEVELS, T0, minutes

NAMES = ("Alpha", "Beta", "Gamma")


def make_user(username: str, group: str | None = None) -> User:
    user = User.objects.create_user(username=username, password="pw-" + username)
    if group:
        user.groups.add(Group.objects.get_or_create(name=group)[0])
    return user


def make_organizer() -> User:
    return make_user("organizer", ORGANIZER)


def get_teams(captain: User, names=NAMES) -> list[Team]:
    teams = []
    for name in names:
        team = Team.objects.filter(name=name).first() or Team.objects.create(
            name=name, name_key=name.casefold(), captain=captain)
        teams.append(team)
    return teams


def captained_teams(names=NAMES) -> list[Team]:
    """One team per name, each with its own captain (``captain-<name>``)."""
    return [Team.objects.create(name=name, name_key=name.casefold(),
                                captain=make_user(f"captain-{name.casefold()}"))
            for name in names]


def make_game(fmt: str, organizer: User, *, title: str, days: int = 0, rated: bool = True
              ) -> Game:
    return Game.objects.create(title=title, format=fmt, rated=rated, created_by=organizer,
                               starts_at=timezone.now() - timedelta(days=30 - days))


def enter(game: Game, teams: list[Team]) -> list[Application]:
    return [Application.objects.create(game=game, team=team, status=Application.Status.APPROVED,
                                       join_token=secrets.token_urlsafe(24),
                                       join_pin=f"{i + 20:06d}")
            for i, team in enumerate(teams)]


def _play(koth, host, answers: dict, declarations: dict | None = None) -> None:
    for entry, kind in (declarations or {}).items():
        koth_services.declaration_submit(game=koth, application=entry, kind=kind)
    number = koth_services.question_announce(actor=host, game=koth).number
    for entry, correct in answers.items():
        koth_services.answer_submit(game=koth, application=entry,
                                    text="right" if correct else f"wrong {entry.pk}",
                                    client_id=secrets.token_hex(16))
    verdicts = {"right": True, **{f"wrong {e.pk}": False for e, ok in answers.items() if not ok}}
    for normalized, verdict in verdicts.items():
        if Answer.objects.filter(question__koth=koth, question__number=number,
                                 normalized=normalized).exists():
            koth_services.answers_judge(actor=host, game=koth, question=number,
                                        normalized=normalized, verdict=verdict)
    koth_services.question_close(actor=host, game=koth)


def koth_game(organizer: User, *, title: str = "Царь Горы", days: int = 0, teams=None,
              finish: bool = True) -> Game:
    game = make_game(Game.Format.KINGOFHILL, organizer, title=title, days=days)
    alpha, beta, gamma = enter(game, teams or get_teams(organizer))
    koth = koth_services.koth_create(actor=organizer, game=game, summit=3, main_questions=10,
                                     reserve_questions=2)
    koth_services.game_start(actor=organizer, game=koth)
    _play(koth, organizer, {alpha: True, beta: True, gamma: False})
    _play(koth, organizer, {alpha: True, beta: True, gamma: True}, {alpha: "jump"})
    while finish and KothGame.objects.get(pk=koth.pk).status == KothGame.Status.RUNNING:
        _play(koth, organizer, {alpha: True, beta: False, gamma: False})
    return game


def gorod_game(organizer: User, *, title: str = "ГоРоД", days: int = 0, teams=None,
               finish: bool = True, disqualify: bool = True) -> Game:
    game = make_game(Game.Format.GOROD, organizer, title=title, days=days)
    alpha, beta, gamma = enter(game, teams or get_teams(organizer))
    gg = gorod_services.gorod_create(actor=organizer, game=game, levels=LEVELS)
    gorod_services.game_start(actor=organizer, game=gg, now=minutes(0))
    for m, code in enumerate(("G1R1D", "G1R2D", "G1R31D", "G1R32D"), start=1):
        gorod_services.code_submit(game=gg, application=alpha, text=code, now=minutes(m))
    gorod_services.code_submit(game=gg, application=beta, text="G1R1D", now=minutes(10))
    if disqualify:
        gorod_services.ruling_add(actor=organizer, game=gg, application=gamma,
                                  type="disqualify", reason="rules", now=minutes(20))
    if finish:
        gorod_services.game_end(actor=organizer, game=gg, now=minutes(60))
    return game


# Well past every fixture game's protest window (the GoRoD nights end on T0's evening, the King
# of the Hill games now).
AFTER = T0 + timedelta(days=60)


def finalize(organizer: User, game: Game, **kwargs):
    """Make the results final once the protest window has closed."""
    from rating import services

    return services.results_finalize(actor=organizer, game=game, now=AFTER, **kwargs)


def table_rows(game: Game, **changes) -> list[dict]:
    """The game's current table as ``results_table_set`` takes it, with ``changes`` by team
    name: ``{"Beta": {"place": 1, "reason": "…"}}``."""
    from rating.models import ResultRow

    rows = []
    for row in ResultRow.objects.filter(result__game=game).select_related("team"):
        item = {"team": row.team_id, "place": row.place, "disqualified": row.disqualified,
                "deduction": row.deduction, "reason": ""}
        item.update(changes.get(row.team.name, {}))
        rows.append(item)
    return rows


def ended(game):
    """When a game's results say it ended (the protest and final windows count from it)."""
    from rating import selectors
    from rating.models import GameResult

    return selectors.game_ended_at(GameResult.objects.get(game=game))


LONG_AGO = datetime(2020, 1, 1, tzinfo=UTC)  # before every fixture game


def player(team: Team, nickname: str, *, surname: str = "", first_name: str = "",
           user: User | None = None, linked_at: datetime | None = LONG_AGO) -> Member:
    """A roster entry of ``team``; with a ``surname`` (or a ``user``) it is linked to that
    profile at ``linked_at`` (rule 2.6: before the game, it counts in the players' table)."""
    if user is None and surname:
        user = User.objects.create_user(  # no password: hashing is slow
            username=f"{surname}-{first_name}-{secrets.token_hex(3)}", last_name=surname,
            first_name=first_name)
    return Member.objects.create(team=team, nickname=nickname, nickname_key=nickname.casefold(),
                                 user=user, linked_at=linked_at if user else None)
