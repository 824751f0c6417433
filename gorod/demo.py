"""The GoRoD demo: a night game open for registration, with approved and pending teams.

GoRoD has its rules engine (``gorod.rules``) but no live pages yet, so the demo shows the part
of a GoRoD evening that exists: registration, approval, fees and the join-code sheet.
Registered in ``core.demo.DEMO_BUILDERS`` by ``GorodConfig.ready``; idempotent.
"""

from __future__ import annotations

from datetime import timedelta

from django.contrib.auth.models import User
from django.db import transaction
from django.urls import reverse
from django.utils import timezone

from teams import services as team_services
from teams.models import Application, Game, Team

DEMO_TITLE = "ГоРоД — ночная игра (демо)"
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
