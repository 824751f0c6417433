"""The world the permission matrix runs in (``tests/core/test_permission_matrix.py``): every
role of the issue, and an object of every kind a route names.

Roles: ``anonymous``; ``phone_a`` and ``phone_b`` (each team's phone, bound to Alpha and Beta
in the King of the Hill and the GoRoD game); ``revoked`` (a phone of Alpha whose binding was
revoked); ``captain`` (of Alpha); ``other_captain`` (of Gamma, a team that plays neither live
game); ``host`` (assigned to the King of the Hill game); ``other_host`` (assigned to another
game); ``organizer``.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field
from datetime import timedelta

from django.contrib.auth.models import Group, User
from django.test import Client
from django.utils import timezone

from core.roles import HOST, ORGANIZER
from gorod import services as gorod_services
from gorod.models import ScenarioProposal
from kingofhill import services as koth_services
from rating import services as rating_services
from teams import services as teams_services
from teams.models import Application, Game, Member, Team
from tests.gorod.fixtures_live import LEVELS

PROPOSAL = "format: gorod-scenario\nversion: 1\nlevels:\n  - id: '1'\n    codes: {code: G1R1D}\n"

ROLES = ("anonymous", "phone_a", "phone_b", "revoked", "captain", "other_captain", "host",
         "other_host", "organizer")


def _user(name: str, group: str | None = None) -> User:
    user = User.objects.create_user(username=name, password="pw-" + name)
    if group:
        user.groups.add(Group.objects.get_or_create(name=group)[0])
    return user


def _team(name: str, captain: User) -> Team:
    team = Team.objects.create(name=name, name_key=name.casefold(), captain=captain)
    Member.objects.create(team=team, nickname=f"{name} 1", nickname_key=f"{name.casefold()} 1")
    return team


def _enter(game: Game, team: Team, pin: int) -> Application:
    return Application.objects.create(game=game, team=team, status=Application.Status.APPROVED,
                                      join_token=secrets.token_urlsafe(24),
                                      join_pin=f"{pin:06d}", join_version=1)


def _bind(client: Client, application: Application) -> None:
    application.refresh_from_db()
    session = client.session
    teams_services.join_by_token(session=session, token=application.join_token)
    session.save()
    client.cookies["sessionid"] = session.session_key


@dataclass
class World:
    users: dict[str, User | None] = field(default_factory=dict)
    ids: dict[str, object] = field(default_factory=dict)
    applications: dict[str, list[Application]] = field(default_factory=dict)

    def client(self, role: str) -> Client:
        """A fresh browser of ``role`` (a request cannot change another row's browser)."""
        client = Client()
        user = self.users.get(role)
        if user is not None:
            client.force_login(user)
        for application in self.applications.get(role, []):
            _bind(client, application)
        return client


def build_world() -> World:
    w = World()
    organizer = _user("organizer", ORGANIZER)
    # Organizers use the admin too, with every model permission (core.demo).
    organizer.is_staff = organizer.is_superuser = True
    organizer.save(update_fields=["is_staff", "is_superuser"])
    host, other_host = _user("host", HOST), _user("other-host", HOST)
    captain, other_captain, captain_b = _user("captain"), _user("other-captain"), _user("cap-b")
    alpha, beta = _team("Alpha", captain), _team("Beta", captain_b)
    gamma, delta = _team("Gamma", other_captain), _team("Delta", captain)
    soon = timezone.now() + timedelta(days=5)

    koth_game = Game.objects.create(title="КвГ", format="kingofhill", starts_at=soon)
    koth_a, koth_b = _enter(koth_game, alpha, 1), _enter(koth_game, beta, 2)
    koth = koth_services.koth_create(actor=organizer, game=koth_game, summit=3,
                                     main_questions=10, reserve_questions=0)
    koth_services.host_assign(actor=organizer, game=koth, user=host)
    koth_services.game_start(actor=host, game=koth)
    other_game = Game.objects.create(title="КвГ 2", format="kingofhill", starts_at=soon)
    _enter(other_game, gamma, 3), _enter(other_game, delta, 4)
    other_koth = koth_services.koth_create(actor=organizer, game=other_game)
    koth_services.host_assign(actor=organizer, game=other_koth, user=other_host)

    gorod_game = Game.objects.create(title="ГоРоД", format="gorod", starts_at=soon)
    gorod_a, gorod_b = _enter(gorod_game, alpha, 5), _enter(gorod_game, beta, 6)
    gorod = gorod_services.gorod_create(actor=organizer, game=gorod_game, levels=LEVELS)
    gorod_services.game_start(actor=organizer, game=gorod)
    # Ended by the "end" row, so the live game above stays running for the other rows.
    spare_night = Game.objects.create(title="ГоРоД 2", format="gorod", starts_at=soon)
    _enter(spare_night, gamma, 7), _enter(spare_night, delta, 8)
    spare_gorod = gorod_services.gorod_create(actor=organizer, game=spare_night, levels=LEVELS)
    gorod_services.game_start(actor=organizer, game=spare_gorod)

    # A finished, published game for the results routes (Alpha, Beta, Gamma played it).
    from tests.rating.helpers import koth_game as finished_koth

    finished = finished_koth(organizer, title="Сыгранная", teams=[alpha, beta, gamma])
    rating_services.results_publish(actor=organizer, game=finished)
    season = rating_services.season_create(actor=organizer, title="Сезон", format="kingofhill")
    rating_services.season_game_add(actor=organizer, season=season, game=finished)
    from rating.models import Protest

    protest = Protest.objects.create(result=finished.result, team=alpha, text="x",
                                     created_by=captain, created_at=timezone.now())

    # Spare objects for the routes that change or destroy what they name.
    spare_game = Game.objects.create(title="Запасная", format="gorod", starts_at=soon)
    spare_application = Application.objects.create(game=spare_game, team=alpha,
                                                   status=Application.Status.PENDING)
    spare_application.members.set(alpha.members.all())
    ban = teams_services.ban_create(team=beta, actor=organizer, reason="x",
                                    until=timezone.now() + timedelta(days=3))

    # Alpha's scenario proposal, rejected: confidential to its captain and organizers (10.3).
    proposal = ScenarioProposal.objects.create(
        team=alpha, file_name="ночь.yaml", content=PROPOSAL, levels=1, created_by=captain,
        created_at=timezone.now(), status=ScenarioProposal.Status.REJECTED, answer="x")

    revoked = Client()
    _bind(revoked, koth_a)
    _bind(revoked, gorod_a)
    teams_services.application_revoke_join(application=koth_a)
    teams_services.application_revoke_join(application=gorod_a)

    w.users = {"anonymous": None, "phone_a": None, "phone_b": None, "revoked": None,
               "captain": captain, "other_captain": other_captain, "host": host,
               "other_host": other_host, "organizer": organizer}
    w.applications = {"phone_a": [koth_a, gorod_a], "phone_b": [koth_b, gorod_b]}
    w.revoked_cookie = revoked.cookies["sessionid"].value
    w.organizer, w.alpha, w.beta = organizer, alpha, beta
    w.ids = {
        "koth": koth.pk, "gorod": gorod.pk, "finished": finished.pk, "season": season.pk,
        "alpha": alpha.pk, "beta": beta.pk, "member": alpha.members.first().pk,
        "alpha_koth_application": koth_a.pk, "spare_application": spare_application.pk,
        "spare_game": spare_game.pk, "ban": ban.pk, "protest": protest.pk,
        "spare_gorod": spare_gorod.pk, "proposal": proposal.pk,
        "join_token": koth_b.join_token, "image": "none.png",
    }
    return w


# --- objects a destroying row makes afresh for each role -----------------------------------------


def fresh_member(world: World) -> dict:
    member = Member.objects.create(team=world.alpha, nickname=secrets.token_hex(4),
                                   nickname_key=secrets.token_hex(4))
    return {"pk": world.alpha.pk, "member_pk": member.pk}


def fresh_ban(world: World) -> dict:
    ban = teams_services.ban_create(team=world.beta, actor=world.organizer, reason="x",
                                    until=timezone.now() + timedelta(days=3))
    return {"pk": ban.pk}


def fresh_game(world: World) -> dict:
    game = Game.objects.create(title=secrets.token_hex(4), format="gorod",
                               starts_at=timezone.now() + timedelta(days=5))
    return {"pk": game.pk}


def fresh_application(world: World) -> dict:
    """A pending application of Alpha (its captain is ``captain``) to a new game."""
    game = Game.objects.create(title=secrets.token_hex(4), format="gorod",
                               starts_at=timezone.now() + timedelta(days=5))
    application = Application.objects.create(game=game, team=world.alpha,
                                             status=Application.Status.PENDING)
    application.members.set(world.alpha.members.all()[:1])
    return {"pk": application.pk}


def fresh_proposal(world: World) -> dict:
    """A pending scenario proposal of Alpha for any game."""
    proposal = ScenarioProposal.objects.create(
        team=world.alpha, file_name="ночь.yaml", content=PROPOSAL, levels=1,
        created_by=world.alpha.captain, created_at=timezone.now())
    return {"proposal_id": proposal.pk}


def client_for(world: World, role: str) -> Client:
    if role == "revoked":
        client = Client()
        client.cookies["sessionid"] = world.revoked_cookie
        return client
    return world.client(role)
