"""The demo season: two GoRoD nights already played by the demo's GoRoD teams, their results
published, so the season pages show points and each team's captain (``DEMO_CAPTAINS``) can try
a protest and a vote on the organizing team at once.

The first night ended 26 hours before the demo was loaded, past its protest window, so its
results are final and the season table counts its points. The second night ended an hour
before: its results are preliminary, protests stay open for 12 hours after it, votes for 72
(``rating.deadlines``). Idempotent: a second run finds the season.
"""

from __future__ import annotations

from datetime import timedelta

from django.contrib.auth.models import User
from django.db import transaction
from django.urls import reverse
from django.utils import timezone

from core import deadlines
from core.demo import DEMO_CAPTAINS, DEMO_PASSWORD
from gorod import services as gorod_services
from rating import services as rating_services
from rating.models import Season
from teams import services as team_services
from teams.models import Game, Team

SEASON_TITLE = "Сезон GoRoD — демо"
#: (title, hours before the demo's load when the night ended)
NIGHTS = (("GoRoD — первая ночь сезона (демо)", 26), ("GoRoD — вторая ночь сезона (демо)", 1))
ORGANIZING_TEAM = "Совы"  # a King of the Hill demo team organizes the nights: captains vote on it
LEVELS = [
    {"label": "1", "task": "Фонтан на площади: код на его чаше.",
     "hint1": "Чаша с северной стороны.", "hint2": "Код под кромкой.",
     "codes": {"code": "S1R11111D"}},
    {"label": "2", "task": "Старая водонапорная башня.",
     "hint1": "У железной дороги.", "hint2": "Код на двери.",
     "codes": {"code": "S1R22222D"}},
]
#: team → the minutes after the start at which it found each level's code, per night
PLAY = ({"Полуночники": (12, 30), "Следопыты": (15, 41), "Сталкеры": (20,)},
        {"Полуночники": (18,), "Следопыты": (11, 27), "Сталкеры": (14, 33)})


def _captains() -> dict[str, User]:
    """The demo captains, each made the captain of its team (the apps' demos made the teams
    with the organizer as their captain)."""
    captains = {}
    for username, team_name in DEMO_CAPTAINS:
        user, created = User.objects.get_or_create(username=username)
        if created:
            user.set_password(DEMO_PASSWORD)
            user.save()
        team = Team.objects.filter(name_key=team_services.name_key(team_name)).first()
        if team is None:
            team = team_services.team_create(captain=user, name=team_name)
            for nickname in ("Капитан", "Штурман"):
                team_services.member_create(team=team, nickname=nickname)
        elif team.captain_id != user.pk:
            Team.objects.filter(pk=team.pk).update(captain=user)
        captains[team_name] = user
    return captains


def _night(organizer: User, title: str, ended_hours_ago: int, play: dict) -> Game:
    end = timezone.now() - timedelta(hours=ended_hours_ago)
    start = end - timedelta(hours=1)
    game = team_services.game_create(actor=organizer, title=title, game_format=Game.Format.GOROD,
                                     starts_at=timezone.now() + timedelta(days=5))
    entries = {}
    for name in play:
        team = Team.objects.get(name_key=team_services.name_key(name))
        application = team_services.application_submit(game=game, team=team,
                                                       members=list(team.members.all()))
        entries[name] = team_services.application_approve(application=application,
                                                          actor=organizer)
    # The teams applied before the night; its start then moves to when it was played.
    Game.objects.filter(pk=game.pk).update(starts_at=start)
    gg = gorod_services.gorod_create(actor=organizer, game=game, levels=LEVELS)
    gorod_services.game_start(actor=organizer, game=gg, now=start)
    moves = sorted((minute, name, level) for name, found in play.items()
                   for level, minute in enumerate(found))
    for minute, name, level in moves:
        gorod_services.code_submit(game=gg, application=entries[name],
                                   text=LEVELS[level]["codes"]["code"],
                                   now=start + timedelta(minutes=minute))
    gorod_services.game_end(actor=organizer, game=gg, now=end)
    game.refresh_from_db()
    organizing = Team.objects.filter(name_key=team_services.name_key(ORGANIZING_TEAM)).first()
    if organizing is not None:
        rating_services.organizer_set(actor=organizer, game=game, team=organizing, now=end)
    rating_services.results_publish(actor=organizer, game=game, now=end)
    if timezone.now() > deadlines.protest_deadline(end):
        # The season table counts final results: the first night's protest window is over.
        rating_services.results_finalize(actor=organizer, game=game)
    return game


@transaction.atomic
def build_season_demo() -> list[str]:
    organizer = User.objects.get(username="organizer")
    _captains()
    season = Season.objects.filter(title=SEASON_TITLE).first()
    if season is None:
        season = rating_services.season_create(actor=organizer, title=SEASON_TITLE,
                                               format=Game.Format.GOROD)
        for (title, hours), play in zip(NIGHTS, PLAY, strict=True):
            game = _night(organizer, title, hours, play)
            rating_services.season_game_add(actor=organizer, season=season, game=game)
    return [f"Season of both demo nights (points): {{base}}"
            f"{reverse('rating:season', args=[season.pk])}"]
