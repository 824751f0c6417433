"""The GoRoD demo: a night game open for registration, with approved and pending teams
(``build_demo``, registered in ``core.demo.DEMO_BUILDERS`` by ``GorodConfig.ready``), and a
running night game with three levels and codes (``build_live_demo``, ``manage.py gorod_demo``).
Both idempotent.

[decision] The running game is not part of ``manage.py demo`` yet: ``tests/core/test_demo.py``
expects exactly one GoRoD game there (``Game.objects.get(format=GOROD)``). Once that test
looks the registration game up by its title, ``build_demo`` can append ``build_live_demo()``.
"""

from __future__ import annotations

from datetime import timedelta

from django.contrib.auth.models import User
from django.db import transaction
from django.urls import reverse
from django.utils import timezone

from gorod import services as gorod_services
from gorod.models import GorodGame
from teams import services as team_services
from teams.models import Application, Game, Team

DEMO_TITLE = "GoRoD — ночная игра (демо)"
# name, roster, approved?
DEMO_TEAMS = (
    ("Полуночники", ("Штурман", "Водитель", "Связной"), True),
    ("Следопыты", ("Навигатор", "Фонарик"), True),
    ("Сталкеры", ("Ключник", "Картограф", "Радист"), False),
)


@transaction.atomic
def build_demo() -> list[str]:
    organizer = User.objects.get(username="organizer")  # core.demo creates the staff first
    game = Game.objects.filter(title=DEMO_TITLE, format=Game.Format.GOROD).first()
    if game is None:
        game = team_services.game_create(
            actor=organizer, title=DEMO_TITLE, game_format=Game.Format.GOROD,
            starts_at=timezone.now() + timedelta(days=10))
    for name, roster, approve in DEMO_TEAMS:
        team = Team.objects.filter(name_key=team_services.name_key(name)).first()
        if team is None:
            team = team_services.team_create(captain=organizer, name=name)
            for nickname in roster:
                team_services.member_create(team=team, nickname=nickname)
        application = Application.objects.filter(game=game, team=team).first()
        if application is None and game.status == Game.Status.SCHEDULED:
            application = team_services.application_submit(
                game=game, team=team, members=list(team.members.all()))
        if approve and application is not None and application.status == Application.Status.PENDING:
            team_services.application_approve(application=application, actor=organizer)
    return [
        f"GoRoD registration (organizer): {{base}}{reverse('teams:game_manage', args=[game.pk])}",
        f"GoRoD join-code sheet:          {{base}}{reverse('teams:join_sheet', args=[game.pk])}",
    ]


LIVE_TITLE = "GoRoD — ночная игра идёт (демо)"
LIVE_TEAMS = ("Полуночники", "Следопыты", "Сталкеры")
LIVE_LEVELS = [
    {"label": "1", "task": "Старт у фонтана. Найдите мост, у которого нет воды.",
     "hint1": "Мост стоит над железной дорогой.", "hint2": "Код на опоре с северной стороны.",
     "codes": {"code": "G7R11111D"}},
    {"label": "2", "task": "Часы, которые всегда показывают полночь.",
     "hint1": "Ищите на здании вокзала.", "hint2": "Код под циферблатом.",
     "duration_min": 45, "codes": {"code": "G7R22222D"}},
    {"label": "3", "task": "Два сектора: северный и южный вход в парк.",
     "hint1": "Оба кода на столбах ворот.", "hint2": "Южные ворота — у пруда.",
     "codes": {"sectors": [{"name": "север", "codes": ["G7R33301D"]},
                           {"name": "юг", "codes": ["G7R33302D"]}]}},
]


@transaction.atomic
def build_live_demo() -> list[str]:
    """A RUNNING GoRoD game (started 10 minutes ago) with three levels; returns the organizer
    page, the team join links and the codes."""
    organizer = User.objects.get(username="organizer")
    game = Game.objects.filter(title=LIVE_TITLE, format=Game.Format.GOROD).first()
    if game is None:
        game = team_services.game_create(
            actor=organizer, title=LIVE_TITLE, game_format=Game.Format.GOROD,
            starts_at=timezone.now() + timedelta(days=1))
    for name in LIVE_TEAMS:
        team = Team.objects.filter(name_key=team_services.name_key(name)).first()
        if team is None:
            team = team_services.team_create(captain=organizer, name=name)
            for nickname in ("Капитан", "Штурман"):
                team_services.member_create(team=team, nickname=nickname)
        application = Application.objects.filter(game=game, team=team).first()
        if application is None and game.status == Game.Status.SCHEDULED:
            application = team_services.application_submit(
                game=game, team=team, members=list(team.members.all()))
        if application is not None and application.status == Application.Status.PENDING:
            team_services.application_approve(application=application, actor=organizer)
    started = timezone.now() - timedelta(minutes=10)
    gg = GorodGame.objects.filter(pk=game.pk).first()
    if gg is None:
        # Registration closes before the start, so the teams applied "yesterday"; the game's
        # scheduled start then moves to the demo's start.
        Game.objects.filter(pk=game.pk).update(starts_at=started)
        gg = gorod_services.gorod_create(actor=organizer, game=game, levels=LIVE_LEVELS)
    if gg.status == GorodGame.Status.SETUP:
        gorod_services.game_start(actor=organizer, game=gg, now=started)
    lines = [f"GoRoD live game (organizer):   {{base}}{reverse('gorod:manage', args=[game.pk])}",
             f"GoRoD team page (after joining): {{base}}{reverse('gorod:play', args=[game.pk])}",
             "GoRoD live codes: 1 = G7R11111D, 2 = G7R22222D, 3 = G7R33301D + G7R33302D"]
    entries = (Application.objects.filter(game=game, status=Application.Status.APPROVED)
               .select_related("team").order_by("created_at", "pk"))
    for entry in entries:
        if entry.join_token:
            link = reverse("teams:join_token", args=[entry.join_token])
            lines.append(f"GoRoD live team {entry.team.name} (PIN {entry.join_pin}): {{base}}{link}")
    return lines
