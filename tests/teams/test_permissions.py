"""Permission matrix over every team endpoint and page.

Actors: anonymous, another team's phone (Бета joined), own team's phone (Альфа joined), another
captain (beta), the captain (alpha), a host, an organizer. Each row says the status code for
each actor (``login``: redirect to the log-in page; ``join``: redirect to the join page) and,
for readable responses, whether Альфа's private member data (full name, phone, e-mail) and join
secret may appear.
"""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from teams import profiles, services
from teams.models import Application, Ban, Game, Member, Team
from tests.shared_data import built_once, fresh_client
from tests.teams.conftest import _team, _user, apply, login, phone_for

pytestmark = pytest.mark.django_db

ACTORS = ["anonymous", "other_phone", "own_phone", "other_captain", "captain", "host", "organizer"]
MANAGERS = {"captain", "organizer"}


@pytest.fixture(scope="module")
def built_world(django_db_setup, django_db_blocker):
    """Every actor and object of the matrix, made once for the module (``tests.shared_data``):
    the rows, and each actor's session cookies."""
    with built_once(django_db_blocker):
        organizer, host = _user("organizer", "organizer"), _user("host", "host")
        alpha, beta = _user("alpha"), _user("beta")
        game = services.game_create(actor=organizer, title="Ночной ГоРоД",
                                    game_format=Game.Format.GOROD,
                                    starts_at=timezone.now() + timedelta(days=10))
        app_alpha, app_beta = (
            services.application_approve(application=apply(_team(captain, name, nicks), game),
                                         actor=organizer)
            for captain, name, nicks in ((alpha, "Альфа", ["Ann", "Bob", "Cat"]),
                                         (beta, "Бета", ["Dan", "Eve", "Fox"])))
        clients = {
            "anonymous": APIClient(),
            "other_phone": phone_for(app_beta),
            "own_phone": phone_for(app_alpha),
            "other_captain": login(beta),
            "captain": login(alpha),
            "host": login(host),
            "organizer": login(organizer),
        }
        member = app_alpha.team.members.get(nickname="Ann")
        # An old, expired ban: something for the lift-a-ban endpoints to act on.
        ban = services.ban_create(team=app_alpha.team, actor=organizer, reason="old",
                                  until=timezone.now() - timedelta(days=1))
        yield {
            "cookies": {actor: client.cookies for actor, client in clients.items()},
            "team": app_alpha.team_id, "member": member.pk, "game": game.pk,
            "app": app_alpha.pk, "ban": ban.pk, "token": app_alpha.join_token,
            "private": [member.full_name, member.phone, member.email],
        }


@pytest.fixture
def world(built_world, db):
    """The module's world for one test: fresh instances and clients (a test's writes, a
    replaced session cookie included, go with its rollback)."""
    return {
        "clients": {actor: fresh_client(cookies, APIClient)
                    for actor, cookies in built_world["cookies"].items()},
        "team": Team.objects.get(pk=built_world["team"]),
        "member": Member.objects.get(pk=built_world["member"]),
        "game": Game.objects.get(pk=built_world["game"]),
        "app": Application.objects.get(pk=built_world["app"]),
        "private": built_world["private"],
        "token": built_world["token"],
        "ban": Ban.objects.get(pk=built_world["ban"]),
    }


def row(codes: dict | str | int, **overrides):
    if not isinstance(codes, dict):
        codes = dict.fromkeys(ACTORS, codes)
    return {**codes, **overrides}


MANAGE_PAGE = row(
    403, anonymous="login", other_phone="login", own_phone="login", captain=200, organizer=200
)
ORGANIZER_PAGE = row(403, anonymous="login", other_phone="login", own_phone="login", organizer=200)
MANAGE_API = row(403, captain=200, organizer=200)

# (label, method, url template, data, expected per actor, private data allowed for)
MATRIX = [
    (
        "my teams page",
        "get",
        "/teams/",
        None,
        row(200, anonymous="login", other_phone="login", own_phone="login"),
        MANAGERS,
    ),
    ("public team list", "get", "/teams/all/", None, row(200), set()),
    ("public team page", "get", "/teams/all/{team}/", None, row(200), set()),
    ("team page", "get", "/teams/{team}/", None, MANAGE_PAGE, MANAGERS),
    ("member edit page", "get", "/teams/{team}/members/{member}/", None, MANAGE_PAGE, MANAGERS),
    ("apply page", "get", "/teams/{team}/apply/{game}/", None, MANAGE_PAGE, MANAGERS),
    ("games page", "get", "/teams/games/", None, row(200), set()),
    ("game page", "get", "/teams/games/{game}/about/", None, row(200), set()),
    ("game applications page", "get", "/teams/games/{game}/", None, ORGANIZER_PAGE, MANAGERS),
    ("join QR sheet", "get", "/teams/games/{game}/sheet/", None, ORGANIZER_PAGE, MANAGERS),
    ("join page", "get", "/teams/join/", None, row(200), set()),
    (
        "playing page",
        "get",
        "/teams/play/{game}/",
        None,
        row("join", other_phone=200, own_phone=200),
        set(),
    ),
    (
        "rename (page form)",
        "post",
        "/teams/{team}/rename/",
        {"name": "Альфа"},
        row(
            403,
            anonymous="login",
            other_phone="login",
            own_phone="login",
            captain=302,
            organizer=302,
        ),
        set(),
    ),
    (
        "add member (page form)",
        "post",
        "/teams/{team}/members/add/",
        {"nickname": "Newbie"},
        row(
            403,
            anonymous="login",
            other_phone="login",
            own_phone="login",
            captain=302,
            organizer=302,
        ),
        set(),
    ),
    (
        "mark paid (page form)",
        "post",
        "/teams/applications/{app}/paid/",
        {},
        row(403, anonymous="login", other_phone="login", own_phone="login", organizer=302),
        set(),
    ),
    (
        "ban (page form)",
        "post",
        "/teams/{team}/ban/",
        {"reason": "x", "until": "2099-01-01T10:00"},
        row(403, anonymous="login", other_phone="login", own_phone="login", organizer=302),
        set(),
    ),
    # API
    (
        "api: my teams",
        "get",
        "/teams/api/teams/",
        None,
        row(200, anonymous=403, other_phone=403, own_phone=403),
        MANAGERS,
    ),
    ("api: team", "get", "/teams/api/teams/{team}/", None, row(200), MANAGERS),
    ("api: members", "get", "/teams/api/teams/{team}/members/", None, row(200), MANAGERS),
    (
        "api: edit member",
        "patch",
        "/teams/api/teams/{team}/members/{member}/",
        {"nickname": "Ann"},
        MANAGE_API,
        MANAGERS,
    ),
    (
        "api: add member",
        "post",
        "/teams/api/teams/{team}/members/",
        {"nickname": "Zed"},
        row(403, captain=201, organizer=201),
        set(),
    ),
    ("api: rename", "patch", "/teams/api/teams/{team}/", {"name": "Альфа"}, MANAGE_API, MANAGERS),
    ("api: ledger", "get", "/teams/api/teams/{team}/ledger/", None, MANAGE_API, set()),
    ("api: notices", "get", "/teams/api/teams/{team}/notices/", None, MANAGE_API, set()),
    ("api: bans", "get", "/teams/api/teams/{team}/bans/", None, MANAGE_API, set()),
    (
        "api: ban",
        "post",
        "/teams/api/teams/{team}/bans/",
        {"reason": "x", "until": "2099-01-01T10:00:00+03:00"},
        row(403, organizer=201),
        set(),
    ),
    ("api: games", "get", "/teams/api/games/", None, row(200), set()),
    ("api: game", "get", "/teams/api/games/{game}/", None, row(200), set()),
    (
        "api: game applications",
        "get",
        "/teams/api/games/{game}/applications/",
        None,
        row(200, anonymous=403, other_phone=403, own_phone=403),
        MANAGERS,
    ),
    ("api: application", "get", "/teams/api/applications/{app}/", None, MANAGE_API, MANAGERS),
    (
        "api: mark paid",
        "post",
        "/teams/api/applications/{app}/paid/",
        {"paid": True},
        row(403, organizer=200),
        MANAGERS,
    ),
    (
        "api: approve",
        "post",
        "/teams/api/applications/{app}/approve/",
        None,
        row(403, organizer=400),
        set(),
    ),
    (
        "api: reject",
        "post",
        "/teams/api/applications/{app}/reject/",
        {"reason": ""},
        row(403, organizer=200),
        set(),
    ),
    (
        "api: revoke join",
        "post",
        "/teams/api/applications/{app}/revoke-join/",
        None,
        row(403, organizer=200),
        MANAGERS,
    ),
    (
        "api: withdraw",
        "post",
        "/teams/api/applications/{app}/withdraw/",
        None,
        MANAGE_API,
        MANAGERS,
    ),
    (
        "api: cancel game",
        "post",
        "/teams/api/games/{game}/cancel/",
        {"reason": ""},
        row(403, organizer=200),
        set(),
    ),
    (
        "api: team entry",
        "get",
        "/teams/api/games/{game}/entry/",
        None,
        row(403, other_phone=200, own_phone=200),
        set(),
    ),
    (
        "edit member (page form)",
        "post",
        "/teams/{team}/members/{member}/",
        {"nickname": "Ann"},
        row(
            403,
            anonymous="login",
            other_phone="login",
            own_phone="login",
            captain=302,
            organizer=302,
        ),
        set(),
    ),
    (
        "remove member (page form)",
        "post",
        "/teams/{team}/members/{member}/delete/",
        {},
        row(
            403,
            anonymous="login",
            other_phone="login",
            own_phone="login",
            captain=302,
            organizer=302,
        ),
        set(),
    ),
    (
        "apply (page form)",
        "post",
        "/teams/{team}/apply/{game}/",
        {},
        row(
            403,
            anonymous="login",
            other_phone="login",
            own_phone="login",
            captain=200,
            organizer=200,
        ),
        MANAGERS,
    ),
    (
        "withdraw (page form)",
        "post",
        "/teams/applications/{app}/withdraw/",
        {},
        row(
            403,
            anonymous="login",
            other_phone="login",
            own_phone="login",
            captain=302,
            organizer=302,
        ),
        set(),
    ),
    *[
        (
            f"{action} (page form)",
            "post",
            f"/teams/applications/{{app}}/{action}/",
            {},
            row(403, anonymous="login", other_phone="login", own_phone="login", organizer=302),
            set(),
        )
        for action in ("approve", "reject", "unpaid", "revoke")
    ],
    (
        "cancel game (page form)",
        "post",
        "/teams/games/{game}/cancel/",
        {"reason": ""},
        row(403, anonymous="login", other_phone="login", own_phone="login", organizer=302),
        set(),
    ),
    (
        "lift a PIN pause (page form)",
        "post",
        "/teams/games/{game}/pin-budget/lift/",
        {},
        row(403, anonymous="login", other_phone="login", own_phone="login", organizer=302),
        set(),
    ),
    (
        "lift ban (page form)",
        "post",
        "/teams/bans/{ban}/lift/",
        {},
        row(403, anonymous="login", other_phone="login", own_phone="login", organizer=302),
        set(),
    ),
    # Joining needs no account: whoever holds the link or PIN joins (that is the point), and
    # the answer names the team, never its private data or another team's secret.
    # Opening the link only asks (it names the team, binds nothing); the button's POST joins.
    # The page repeats its own address (the language switch returns there): whoever opened it
    # holds the token already.
    ("open join link", "get", "/teams/j/{token}/", None, row(200, own_phone=302), set(ACTORS)),
    ("join by link (button)", "post", "/teams/j/{token}/", {}, row(302), set()),
    (
        "join by PIN (page form)",
        "post",
        "/teams/join/",
        {"game": "{game}", "pin": "{pin}"},
        row(302),
        set(),
    ),
    ("leave (phone page form)", "post", "/teams/play/{game}/leave/", {}, row("join"), set()),
    # API
    (
        "api: apply",
        "post",
        "/teams/api/games/{game}/applications/",
        {"team": "{team}", "members": []},
        row(403, captain=400, organizer=400),
        set(),
    ),
    (
        "api: remove member",
        "delete",
        "/teams/api/teams/{team}/members/{member}/",
        None,
        row(403, captain=204, organizer=204),
        set(),
    ),
    ("api: lift ban", "delete", "/teams/api/bans/{ban}/", None, row(403, organizer=204), set()),
    *[(label, "post", f"/teams/{{team}}/members/{{member}}/{action}/", data,
       row(403, anonymous="login", other_phone="login", own_phone="login", captain=302,
           organizer=302), set())
      for label, action, data in (
          ("link a profile (page form)", "link", {"email": "nobody@example.org"}),
          ("unlink the profile (page form)", "unlink", {}),
          ("merge into another entry (page form)", "merge", {}))],
    # The invitation is public and shows the team and the nickname only.
    ("invitation page", "get", "/teams/invite/{invite}/", None, row(200), set()),
    (
        "api: link a profile",
        "post",
        "/teams/api/teams/{team}/members/{member}/profile/",
        {"email": "nobody@example.org"},
        row(403, captain=400, organizer=400),
        set(),
    ),
    (
        "api: merge into another entry",
        "post",
        "/teams/api/teams/{team}/members/{member}/merge/",
        {},
        row(403, captain=400, organizer=400),
        set(),
    ),
    (
        "api: claim an invitation",
        "post",
        "/teams/api/invites/claim/",
        {"token": "no-such-token"},
        row(400, anonymous=403, other_phone=403, own_phone=403),
        set(),
    ),
    ("api: join by link", "post", "/teams/api/join/", {"token": "{token}"}, row(200), set()),
    (
        "api: join by PIN",
        "post",
        "/teams/api/games/{game}/join/",
        {"pin": "{pin}"},
        row(200),
        set(),
    ),
    (
        "api: leave",
        "delete",
        "/teams/api/games/{game}/entry/",
        None,
        row(403, other_phone=204, own_phone=204),
        set(),
    ),
]

CASES = [
    pytest.param(
        label, method, url, data, expected[actor], actor in private, actor, id=f"{label} as {actor}"
    )
    for (label, method, url, data, expected, private) in MATRIX
    for actor in ACTORS
]


@pytest.mark.parametrize(("label", "method", "url", "data", "expected", "may_see", "actor"), CASES)
def test_permission_matrix(world, label, method, url, data, expected, may_see, actor):
    client = world["clients"][actor]
    names = {
        "team": world["team"].pk,
        "member": world["member"].pk,
        "game": world["game"].pk,
        "app": world["app"].pk,
        "ban": world["ban"].pk,
        "token": world["token"],
        "pin": world["app"].join_pin,
        "invite": profiles.invite_token(world["member"]),
    }
    path = url.format(**names)
    data = {k: v.format(**names) if isinstance(v, str) else v for k, v in (data or {}).items()}
    kwargs = {"format": "json"} if path.startswith("/teams/api/") else {}
    if method == "get":
        response = client.get(path)
    else:
        response = getattr(client, method)(path, data, **kwargs)
    if expected == "login":
        assert response.status_code == 302 and "/accounts/login/" in response["Location"]
    elif expected == "join":
        assert response.status_code == 302 and response["Location"].endswith("/teams/join/")
    else:
        assert response.status_code == expected, response.content[:300]
    body = response.content.decode()
    if not may_see:
        for secret in world["private"]:
            assert secret not in body, f"{label}: {secret!r} shown to {actor}"
        assert world["token"] not in body or actor in MANAGERS


def test_phone_entry_is_its_own_team(world):
    game = world["game"].pk
    own = world["clients"]["own_phone"].get(f"/teams/api/games/{game}/entry/").json()
    other = world["clients"]["other_phone"].get(f"/teams/api/games/{game}/entry/").json()
    assert own["team_name"] == "Альфа" and other["team_name"] == "Бета"


def test_phone_page_shows_only_its_team(world):
    page = world["clients"]["other_phone"].get(f"/teams/play/{world['game'].pk}/").content.decode()
    assert "Бета" in page and "Альфа" not in page


def test_revocation_logs_the_phone_out_of_pages_and_api(world):
    phone = world["clients"]["own_phone"]
    game = world["game"].pk
    assert phone.get(f"/teams/api/games/{game}/entry/").status_code == 200
    renewed = services.application_revoke_join(application=world["app"])
    assert phone.get(f"/teams/api/games/{game}/entry/").status_code == 403
    assert phone.get(f"/teams/play/{game}/").status_code == 302
    assert phone.post(f"/teams/j/{world['token']}/")["Location"].endswith("/teams/join/")
    assert phone.post(f"/teams/j/{renewed.join_token}/")["Location"].endswith(f"/teams/play/{game}/")
    assert phone.get(f"/teams/api/games/{game}/entry/").status_code == 200


def test_pin_join_page_binds_the_browser(world):
    phone = APIClient()
    app = Application.objects.get(pk=world["app"].pk)
    response = phone.post("/teams/join/", {"game": world["game"].pk, "pin": app.join_pin})
    assert response.status_code == 302 and response["Location"].endswith(
        f"/teams/play/{world['game'].pk}/"
    )
    assert "Альфа" in phone.get(response["Location"]).content.decode()


def test_wrong_pin_on_the_page_shows_a_message(world):
    phone = APIClient()
    wrong = "000000" if world["app"].join_pin != "000000" else "111111"
    response = phone.post("/teams/join/", {"game": world["game"].pk, "pin": wrong}, follow=True)
    assert response.status_code == 200
    assert "PIN" in response.content.decode()


def test_the_join_page_tells_a_guessing_address_how_long_to_wait(world):
    from teams.services import PIN_MAX_FAILURES_PER_ADDRESS

    game = world["game"].pk
    wrong = "000000" if world["app"].join_pin != "000000" else "111111"
    for _ in range(PIN_MAX_FAILURES_PER_ADDRESS):
        APIClient(REMOTE_ADDR="203.0.113.5").post("/teams/join/", {"game": game, "pin": wrong})
    phone = APIClient(REMOTE_ADDR="203.0.113.5")
    response = phone.post("/teams/join/", {"game": game, "pin": world["app"].join_pin}, follow=True)
    assert "Too many wrong PINs. Try again in 10 min or scan the QR code." in (
        response.content.decode()
    )
    assert phone.get(f"/teams/play/{game}/").status_code == 302


def test_the_matrix_has_a_row_for_every_teams_url():
    from django.urls import URLPattern

    from teams.urls import urlpatterns

    def as_regex(route: str) -> re.Pattern:
        return re.compile("^/teams/" + re.sub(r"<[^>]+>", "[^/]+", route) + "$")

    rows = [url.replace("{", "").replace("}", "") for _label, _m, url, *_rest in MATRIX]
    missing = [
        p.name
        for p in urlpatterns
        if isinstance(p, URLPattern) and not any(as_regex(str(p.pattern)).match(r) for r in rows)
    ]
    assert missing == []
