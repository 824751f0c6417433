"""The King of the Hill demo: a game with 8 approved teams, ready for the host to start.

Registered in ``core.demo.DEMO_BUILDERS`` by ``KingOfHillConfig.ready``. Idempotent: a second
run finds the game, its teams and applications and only prints the links again.
"""

from __future__ import annotations

from datetime import timedelta

from django.contrib.auth.models import User
from django.db import transaction
from django.urls import reverse
from django.utils import timezone

from kingofhill import services
from kingofhill.models import KothGame
from teams import services as team_services
from teams.models import Application, Game, Team

DEMO_TITLE = "Царь Горы — демо"
DEMO_TEAMS = ("Совы", "Еноты", "Лисы", "Барсуки", "Ежи", "Бобры", "Выдры", "Рыси")
ROSTER = ("Капитан", "Эрудит", "Скептик")


@transaction.atomic
def build_demo() -> list[str]:
    organizer = User.objects.get(username="organizer")  # core.demo creates the staff first
    game = Game.objects.filter(title=DEMO_TITLE, format=Game.Format.KINGOFHILL).first()
    if game is None:
        game = team_services.game_create(
            actor=organizer, title=DEMO_TITLE, game_format=Game.Format.KINGOFHILL,
            starts_at=timezone.now() + timedelta(days=2))
    for name in DEMO_TEAMS:
        team = Team.objects.filter(name_key=team_services.name_key(name)).first()
        if team is None:
            team = team_services.team_create(captain=organizer, name=name)
        have = set(team.members.values_list("nickname", flat=True))
        for nickname in ROSTER:
            if nickname not in have:  # a team another demo made may lack a full roster
                team_services.member_create(team=team, nickname=nickname)
        application = Application.objects.filter(game=game, team=team).first()
        if application is None and game.status == Game.Status.SCHEDULED:
            application = team_services.application_submit(
                game=game, team=team, members=list(team.members.all()))
        if application is not None and application.status == Application.Status.PENDING:
            team_services.application_approve(application=application, actor=organizer)
    if not KothGame.objects.filter(pk=game.pk).exists():
        services.koth_create(actor=organizer, game=game)
    # The demo host runs this game (hosts control only the games they are assigned to).
    services.host_assign(actor=organizer, game=game.pk,
                         user=User.objects.get(username="host"), assigned=True)
    lines = [
        f"King of the Hill host:      {{base}}{reverse('kingofhill:host', args=[game.pk])}",
        f"King of the Hill projector: {{base}}{reverse('kingofhill:projector', args=[game.pk])}",
    ]
    entries = (Application.objects.filter(game=game, status=Application.Status.APPROVED)
               .select_related("team").order_by("created_at", "pk"))
    for entry in entries:
        if entry.join_token:
            link = reverse("teams:join_token", args=[entry.join_token])
            lines.append(f"King of the Hill team {entry.team.name} (PIN {entry.join_pin}): "
                         f"{{base}}{link}")
    return lines
