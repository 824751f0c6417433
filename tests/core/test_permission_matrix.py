"""The permission matrix: every HTTP route and every WebSocket route has a row saying which
roles reach it; a route without a row fails the test, so a new route cannot ship unreviewed.

A role *reaches* a route when the answer is anything but a refusal. A refusal is 401/403 or a
redirect to a log-in page or to the team join page (how pages refuse). An allowed request
with an empty body may well be a 400 (validation) or a 404 (the object it names is not in the
world): the matrix is about who gets past the door; each app's tests check what is behind it.
[decision] Rows say who reaches a route, not exact status codes, for that reason.

The roles and the world are in ``tests/core/permission_world.py``. Rows that change or destroy
what they name get a fresh object for each role, and rows that end a browser's session get a
fresh browser, so no row decides another row's outcome.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest
from channels.routing import URLRouter
from django.contrib.auth.models import User
from django.urls import URLResolver, get_resolver, reverse

from teams import profiles
from teams.models import Member
from tests.core.permission_world import (
    ROLES,
    build_world,
    client_for,
    fresh_application,
    fresh_ban,
    fresh_game,
    fresh_member,
    fresh_proposal,
)

EVERYONE = frozenset(ROLES)
LOGGED_IN = frozenset({"captain", "other_captain", "host", "other_host", "organizer"})
ORGANIZER = frozenset({"organizer"})
KOTH_HOSTS = frozenset({"host", "organizer"})  # the game's host and organizers, not other_host
PHONES = frozenset({"phone_a", "phone_b"})  # each playing team's phone; never a revoked one
ALPHAS_CAPTAIN = frozenset({"captain", "organizer"})
NOBODY = frozenset()

ADMIN_FAMILY = "admin:"  # Django's admin: staff only, checked on its index and a list


@dataclass(frozen=True)
class Row:
    allowed: frozenset
    method: str = "get"
    kwargs: Any = None  # a dict, a callable(world) -> dict (a fresh object per role), or None
    body: dict | None = None
    fresh_client: bool = False  # the request ends the browser's session or binding
    # Leaving a team lands on the join page: there that redirect is the answer, not a refusal.
    join_page_refuses: bool = True


def koth(w):
    return {"game_id": w.ids["koth"]}


def gorod(w):
    return {"game_id": w.ids["gorod"]}


def finished(w):
    return {"game_id": w.ids["finished"]}


def alpha(w):
    return {"pk": w.ids["alpha"]}


def season(w):
    return {"season_id": w.ids["season"]}


def linked_profile(w) -> int:
    """A player's profile linked to a fresh roster entry of Alpha: its page is public."""
    member = Member.objects.get(pk=fresh_member(w)["member_pk"])
    member.user = User.objects.create_user(f"player-{member.nickname}")
    member.save(update_fields=["user"])
    return member.user_id


HTTP_ROWS: dict[str, Row] = {
    # --- accounts and the site ----------------------------------------------------------------
    "accounts:signup": Row(EVERYONE),
    "accounts:verify": Row(EVERYONE, kwargs={"uidb64": "MQ", "token": "wrong"}),
    "accounts:profile": Row(LOGGED_IN),
    "accounts:roles": Row(ORGANIZER),
    "login": Row(EVERYONE),
    "logout": Row(EVERYONE, "post", fresh_client=True),
    "password_change": Row(LOGGED_IN),
    "password_change_done": Row(LOGGED_IN),
    "password_reset": Row(EVERYONE),
    "password_reset_done": Row(EVERYONE),
    "password_reset_confirm": Row(EVERYONE, kwargs={"uidb64": "MQ", "token": "wrong"}),
    "password_reset_complete": Row(EVERYONE),
    "set_language": Row(EVERYONE, "post", body={"language": "en"}, fresh_client=True),
    "api-schema": Row(EVERYONE),
    "api-docs": Row(EVERYONE),
    "core:home": Row(EVERYONE),
    "core:healthz": Row(EVERYONE),
    "core:favicon": Row(EVERYONE),
    "core:announce": Row(ORGANIZER),
    "core:lockouts": Row(ORGANIZER),
    "core:audit": Row(ORGANIZER),
    "core:backup": Row(ORGANIZER, "post"),
    "core:api_audit": Row(ORGANIZER),
    "core:audit_game": Row(ORGANIZER, kwargs=finished),
    "core:api_audit_game": Row(ORGANIZER, kwargs=finished),
    # --- teams: Alpha is the captain's team; phones act only through their game's routes -------
    "teams:api_teams": Row(LOGGED_IN),
    "teams:api_team": Row(EVERYONE, kwargs=alpha),
    "teams:api_members": Row(ALPHAS_CAPTAIN, "post", kwargs=alpha),
    "teams:api_member": Row(ALPHAS_CAPTAIN, "delete", kwargs=fresh_member),
    "teams:api_ledger": Row(ALPHAS_CAPTAIN, kwargs=alpha),
    "teams:api_notices": Row(ALPHAS_CAPTAIN, kwargs=alpha),
    "teams:api_team_bans": Row(ALPHAS_CAPTAIN, kwargs=alpha),
    "teams:api_ban": Row(ORGANIZER, "delete", kwargs=fresh_ban),
    "teams:api_games": Row(EVERYONE),
    "teams:api_game": Row(EVERYONE, kwargs=lambda w: {"pk": w.ids["spare_game"]}),
    "teams:api_game_cancel": Row(ORGANIZER, "post", kwargs=fresh_game),
    # Every login reads it; a captain gets only their own teams' applications (tests/teams).
    "teams:api_game_applications": Row(LOGGED_IN, kwargs=lambda w: {"pk": w.ids["spare_game"]}),
    "teams:api_join_pin": Row(EVERYONE, "post", kwargs=koth, body={"pin": "999999"}),
    "teams:api_entry": Row(PHONES, kwargs=koth),
    "teams:api_join_token": Row(EVERYONE, "post", body={"token": "no-such-token"}),
    "teams:api_application": Row(ALPHAS_CAPTAIN,
                                 kwargs=lambda w: {"pk": w.ids["spare_application"]}),
    "teams:api_approve": Row(ORGANIZER, "post", kwargs=fresh_application),
    "teams:api_reject": Row(ORGANIZER, "post", kwargs=fresh_application),
    "teams:api_paid": Row(ORGANIZER, "post", kwargs=fresh_application),
    "teams:api_revoke": Row(ORGANIZER, "post", kwargs=fresh_application),
    "teams:api_withdraw": Row(ALPHAS_CAPTAIN, "post", kwargs=fresh_application),
    "teams:my_teams": Row(LOGGED_IN),
    "teams:public_list": Row(EVERYONE),
    "teams:team_public": Row(EVERYONE, kwargs=alpha),
    "teams:game_detail": Row(EVERYONE, kwargs=lambda w: {"pk": w.ids["spare_game"]}),
    "teams:team_detail": Row(ALPHAS_CAPTAIN, kwargs=alpha),
    "teams:team_rename": Row(ALPHAS_CAPTAIN, "post", kwargs=alpha),
    "teams:member_add": Row(ALPHAS_CAPTAIN, "post", kwargs=alpha),
    "teams:member_edit": Row(ALPHAS_CAPTAIN, kwargs=lambda w: {"pk": w.ids["alpha"],
                                                               "member_pk": w.ids["member"]}),
    "teams:member_delete": Row(ALPHAS_CAPTAIN, "post", kwargs=fresh_member),
    "teams:member_link": Row(ALPHAS_CAPTAIN, "post", kwargs=fresh_member),
    "teams:member_unlink": Row(ALPHAS_CAPTAIN, "post", kwargs=fresh_member),
    "teams:member_merge": Row(ALPHAS_CAPTAIN, "post", kwargs=fresh_member),
    # The invitation is public: the page asks a visitor to log in before linking anything.
    "teams:invite": Row(EVERYONE, kwargs=lambda w: {"token": profiles.invite_token(
        Member.objects.get(pk=w.ids["member"]))}),
    "teams:api_member_profile": Row(ALPHAS_CAPTAIN, "post", kwargs=fresh_member),
    "teams:api_member_merge": Row(ALPHAS_CAPTAIN, "post", kwargs=fresh_member),
    "teams:api_invite_claim": Row(LOGGED_IN, "post", body={"token": "no-such-token"}),
    "teams:apply": Row(ALPHAS_CAPTAIN, kwargs=lambda w: {"pk": w.ids["alpha"],
                                                         "game_pk": w.ids["spare_game"]}),
    "teams:ban_create": Row(ORGANIZER, "post", kwargs=alpha),
    "teams:ban_lift": Row(ORGANIZER, "post", kwargs=fresh_ban),
    "teams:application_withdraw": Row(ALPHAS_CAPTAIN, "post", kwargs=fresh_application),
    "teams:application_action": Row(ORGANIZER, "post", kwargs=lambda w: {
        **fresh_application(w), "action": "approve"}),
    "teams:games": Row(EVERYONE),
    "teams:game_manage": Row(ORGANIZER, kwargs=lambda w: {"pk": w.ids["spare_game"]}),
    "teams:game_cancel": Row(ORGANIZER, "post", kwargs=fresh_game),
    "teams:join_sheet": Row(ORGANIZER, kwargs=lambda w: {"pk": w.ids["koth"]}),
    "teams:pin_budget_lift": Row(ORGANIZER, "post", kwargs=lambda w: {"pk": w.ids["koth"]}),
    "teams:join": Row(EVERYONE),
    "teams:join_token": Row(EVERYONE, kwargs=lambda w: {"token": w.ids["join_token"]}),
    "teams:playing": Row(PHONES, kwargs=lambda w: {"game_pk": w.ids["koth"]}),
    "teams:leave": Row(EVERYONE, "post", kwargs=lambda w: {"game_pk": w.ids["koth"]},
                       fresh_client=True, join_page_refuses=False),
    # --- King of the Hill: `host` is assigned to this game, `other_host` to another ------------
    "kingofhill:api_create": Row(ORGANIZER, "post"),
    "kingofhill:api_state": Row(EVERYONE, kwargs=koth),
    "kingofhill:api_host_state": Row(KOTH_HOSTS, kwargs=koth),
    "kingofhill:api_team_state": Row(PHONES, kwargs=koth),
    "kingofhill:api_record": Row(ORGANIZER, kwargs=koth),
    "kingofhill:api_start": Row(KOTH_HOSTS, "post", kwargs=koth),
    "kingofhill:api_announce": Row(KOTH_HOSTS, "post", kwargs=koth, body={"text": 5}),
    "kingofhill:api_close": Row(KOTH_HOSTS, "post", kwargs=koth),
    "kingofhill:api_judge": Row(KOTH_HOSTS, "post", kwargs=koth),
    "kingofhill:api_verdict": Row(KOTH_HOSTS, "post", kwargs=koth),
    "kingofhill:api_groups_merge": Row(KOTH_HOSTS, "post", kwargs=koth),
    "kingofhill:api_groups_split": Row(KOTH_HOSTS, "post", kwargs=koth),
    "kingofhill:api_groups_apart": Row(KOTH_HOSTS, "post", kwargs=koth),
    "kingofhill:api_partner": Row(KOTH_HOSTS, "post", kwargs=koth),
    "kingofhill:api_hosts": Row(ORGANIZER, kwargs=koth),
    "kingofhill:api_countdown": Row(KOTH_HOSTS, "post", kwargs=koth),
    "kingofhill:api_countdown_pause": Row(KOTH_HOSTS, "post", kwargs=koth),
    "kingofhill:api_countdown_resume": Row(KOTH_HOSTS, "post", kwargs=koth),
    "kingofhill:api_countdown_adjust": Row(KOTH_HOSTS, "post", kwargs=koth),
    "kingofhill:api_answers_after_zero": Row(KOTH_HOSTS, "post", kwargs=koth),
    "kingofhill:api_reveal": Row(KOTH_HOSTS, "post", kwargs=koth),
    "kingofhill:api_screens": Row(KOTH_HOSTS, "post", kwargs=koth),
    # No question of the world has an image: its hosts learn that (404), anyone else is
    # refused without learning it (tests/kingofhill/test_question_screens.py: when it shows).
    "kingofhill:question_image": Row(KOTH_HOSTS, kwargs=lambda w: {
        "game_id": w.ids["koth"], "number": 1, "screen": "projector"}),
    "kingofhill:bank": Row(KOTH_HOSTS, kwargs=koth),
    "kingofhill:api_bank": Row(KOTH_HOSTS, kwargs=koth),
    "kingofhill:api_bank_edit": Row(KOTH_HOSTS, "post", kwargs=koth),
    "kingofhill:api_bank_move": Row(KOTH_HOSTS, "post", kwargs=koth),
    "kingofhill:api_declare": Row(PHONES, "post", kwargs=koth),
    "kingofhill:api_answer": Row(PHONES, "post", kwargs=koth),
    "kingofhill:api_appeal": Row(PHONES, "post", kwargs=koth),
    "kingofhill:api_appeal_accept": Row(KOTH_HOSTS, "post", kwargs=koth),
    "kingofhill:api_appeal_reject": Row(KOTH_HOSTS, "post", kwargs=koth),
    "kingofhill:index": Row(EVERYONE),
    "kingofhill:create": Row(ORGANIZER, "post"),
    "kingofhill:host": Row(KOTH_HOSTS, kwargs=koth),
    "kingofhill:hosts": Row(ORGANIZER, "post", kwargs=koth),
    "kingofhill:play": Row(PHONES, kwargs=koth),
    "kingofhill:projector": Row(EVERYONE, kwargs=koth),
    # --- GoRoD: organizers run it; phones play -------------------------------------------------
    "gorod:api_create": Row(ORGANIZER, "post"),
    "gorod:api_state": Row(EVERYONE, kwargs=gorod),
    "gorod:api_organizer_state": Row(ORGANIZER, kwargs=gorod),
    "gorod:api_team_state": Row(PHONES, kwargs=gorod),
    "gorod:api_record": Row(ORGANIZER, kwargs=gorod),
    "gorod:api_routes": Row(ORGANIZER, "post", kwargs=gorod),
    "gorod:api_start": Row(ORGANIZER, "post", kwargs=gorod),
    "gorod:api_end": Row(ORGANIZER, "post", kwargs=lambda w: {"game_id": w.ids["spare_gorod"]}),
    "gorod:api_pause": Row(ORGANIZER, "post", kwargs=lambda w: {"game_id": w.ids["spare_gorod"]}),
    "gorod:api_resume": Row(ORGANIZER, "post",
                            kwargs=lambda w: {"game_id": w.ids["spare_gorod"]}),
    "gorod:api_end_force_majeure": Row(ORGANIZER, "post",
                                       kwargs=lambda w: {"game_id": w.ids["spare_gorod"]}),
    "gorod:api_ruling": Row(ORGANIZER, "post", kwargs=gorod),
    "gorod:api_ruling_preview": Row(ORGANIZER, "post", kwargs=gorod),
    "gorod:api_ruling_edit_preview": Row(ORGANIZER, "post", kwargs=lambda w: {
        "game_id": w.ids["gorod"], "ruling_id": 999999}),
    "gorod:api_ruling_undo_preview": Row(ORGANIZER, "post", kwargs=lambda w: {
        "game_id": w.ids["gorod"], "ruling_id": 999999}),
    "gorod:api_code": Row(PHONES, "post", kwargs=gorod),
    "gorod:api_leaderboard": Row(ORGANIZER, "post", kwargs=gorod),
    "gorod:api_autostart": Row(ORGANIZER, "post", kwargs=gorod),
    "gorod:api_scenario_publish": Row(ORGANIZER, "post", kwargs=gorod),
    "gorod:api_ruling_edit": Row(ORGANIZER, "post", kwargs=lambda w: {
        "game_id": w.ids["gorod"], "ruling_id": 999999}),
    "gorod:api_ruling_undo": Row(ORGANIZER, "post", kwargs=lambda w: {
        "game_id": w.ids["gorod"], "ruling_id": 999999}),
    "gorod:api_timeout_decide": Row(ORGANIZER, "post", kwargs=lambda w: {
        "game_id": w.ids["gorod"], "request_id": 999999}),
    "gorod:api_photo_decide": Row(ORGANIZER, "post", kwargs=lambda w: {
        "game_id": w.ids["gorod"], "photo_id": 999999}),
    "gorod:api_timeout": Row(PHONES, "post", kwargs=gorod),
    "gorod:api_photo": Row(PHONES, "post", kwargs=gorod),
    "gorod:api_checkin": Row(PHONES, "post", kwargs=gorod),
    "gorod:api_alarm_acknowledge": Row(ORGANIZER, "post", kwargs=lambda w: {
        "game_id": w.ids["gorod"], "application_id": 999999}),
    "gorod:api_message": Row(ORGANIZER, "post", kwargs=gorod),
    # The world's GoRoD is a real night: the organizer reaches these and is answered 400.
    "gorod:api_test_runs": Row(ORGANIZER, "post", kwargs=gorod),
    "gorod:api_test_run": Row(ORGANIZER, "delete", kwargs=gorod),
    "gorod:api_test_run_reset": Row(ORGANIZER, "post", kwargs=gorod),
    "gorod:api_level_fix": Row(ORGANIZER, kwargs=gorod),
    "gorod:api_level_fix_preview": Row(ORGANIZER, "post", kwargs=gorod),
    "gorod:api_messages_seen": Row(PHONES, "post", kwargs=gorod),
    "gorod:team_image": Row(PHONES, kwargs=lambda w: {"game_id": w.ids["gorod"], "level": "1",
                                                     "name": "none.png"}),
    "gorod:photo": Row(ORGANIZER, kwargs=lambda w: {"game_id": w.ids["gorod"],
                                                   "photo_id": 999999}),
    "gorod:index": Row(EVERYONE),
    "gorod:setup_index": Row(ORGANIZER),
    "gorod:setup": Row(ORGANIZER, kwargs=gorod),
    "gorod:manage": Row(ORGANIZER, kwargs=gorod),
    "gorod:play": Row(PHONES, kwargs=gorod),
    "gorod:statistics": Row(EVERYONE, kwargs=gorod),
    # The running night's table is the organizers' (rules); everyone's once it is over.
    "gorod:statistics_csv": Row(ORGANIZER, kwargs=gorod),
    "gorod:statistics_xlsx": Row(ORGANIZER, kwargs=gorod),
    "gorod:task_image": Row(ORGANIZER, kwargs=lambda w: {"game_id": w.ids["gorod"],
                                                        "name": "none.png"}),
    # Public once published after the night, a 404 to everyone until then.
    "gorod:scenario": Row(EVERYONE, kwargs=gorod),
    "gorod:scenario_yaml": Row(ORGANIZER, kwargs=gorod),
    "gorod:scenario_json": Row(ORGANIZER, kwargs=gorod),
    # Scenario proposals (10.1–10.4): a proposal is its team's captain's and the organizers'
    # only, whatever its status; the list shows each login only what it may see.
    "gorod:api_proposals": Row(LOGGED_IN),
    "gorod:api_proposal": Row(ALPHAS_CAPTAIN, kwargs=lambda w: {"proposal_id": w.ids["proposal"]}),
    "gorod:api_proposal_withdraw": Row(frozenset({"captain"}), "post", kwargs=fresh_proposal),
    "gorod:api_proposal_accept": Row(ORGANIZER, "post", kwargs=fresh_proposal),
    "gorod:api_proposal_reject": Row(ORGANIZER, "post", kwargs=fresh_proposal),
    "gorod:team_proposals": Row(ALPHAS_CAPTAIN, kwargs=lambda w: {"team_id": w.ids["alpha"]}),
    "gorod:proposals": Row(ORGANIZER),
    "gorod:proposal_file": Row(ALPHAS_CAPTAIN,
                               kwargs=lambda w: {"proposal_id": w.ids["proposal"]}),
    "gorod:proposal_action": Row(ORGANIZER, "post", kwargs=lambda w: {
        **fresh_proposal(w), "action": "accept"}),
    # --- results and seasons ---------------------------------------------------------------------
    "rating:api_results": Row(EVERYONE, kwargs=finished),
    "rating:api_publish": Row(ORGANIZER, "post", kwargs=finished),
    "rating:api_finalize": Row(ORGANIZER, "post", kwargs=finished),
    "rating:api_reopen": Row(ORGANIZER, "post", kwargs=finished),
    "rating:api_table": Row(ORGANIZER, "post", kwargs=finished),
    "rating:api_organizer": Row(ORGANIZER, "post", kwargs=finished),
    # Only the team's captain votes for the team (the service refuses everyone else).
    "rating:api_vote": Row(frozenset({"captain"}), "post",
                           kwargs=lambda w: {**finished(w), "team_id": w.ids["alpha"]},
                           body={"value": 100}),
    "rating:api_protests": Row(ALPHAS_CAPTAIN, "post", kwargs=finished,
                               body={"team": None, "text": "code lost"}),
    "rating:api_protest_answer": Row(ORGANIZER, "post", kwargs=lambda w: {
        **finished(w), "protest_id": w.ids["protest"]}),
    "rating:api_seasons": Row(EVERYONE),
    "rating:api_season": Row(EVERYONE, kwargs=season),
    "rating:api_season_games": Row(ORGANIZER, "post", kwargs=season),
    "rating:api_season_game_remove": Row(ORGANIZER, "delete", kwargs=lambda w: {
        **season(w), "game_id": w.ids["finished"]}),
    "rating:api_season_record": Row(ORGANIZER, kwargs=season),
    "rating:results": Row(EVERYONE, kwargs=finished),
    "rating:results_export": Row(EVERYONE, kwargs=lambda w: {**finished(w), "ext": "csv"}),
    "rating:table_set": Row(ORGANIZER, "post", kwargs=finished),
    "rating:organizer_set": Row(ORGANIZER, "post", kwargs=finished),
    # A page: any login reaches it, the service lets only the team's captain vote and says
    # why to anyone else (tests/rating).
    "rating:vote_cast": Row(LOGGED_IN, "post",
                            kwargs=lambda w: {**finished(w), "team_id": w.ids["alpha"]}),
    "rating:protest_file": Row(LOGGED_IN, "post", kwargs=finished),
    "rating:protest_answer": Row(ORGANIZER, "post", kwargs=lambda w: {
        **finished(w), "protest_id": w.ids["protest"]}),
    "rating:results_action": Row(ORGANIZER, "post", kwargs=lambda w: {
        **finished(w), "action": "finalize"}),
    "rating:seasons": Row(EVERYONE),
    "rating:season_create": Row(ORGANIZER, "post"),
    "rating:season": Row(EVERYONE, kwargs=season),
    "rating:season_game": Row(ORGANIZER, "post", kwargs=season),
    "rating:season_team": Row(EVERYONE, kwargs=lambda w: {**season(w), "team_id": w.ids["alpha"]}),
    "rating:season_player": Row(EVERYONE, kwargs=lambda w: {**season(w),
                                                            "member_id": w.ids["member"]}),
    "rating:player": Row(EVERYONE, kwargs=lambda w: {"user_id": linked_profile(w)}),
    "rating:season_export": Row(EVERYONE, kwargs=lambda w: {**season(w), "what": "table",
                                                            "ext": "csv"}),
    "rating:season_record": Row(ORGANIZER, kwargs=season),
    # --- the admin (one row for the family) ------------------------------------------------------
    "admin:index": Row(ORGANIZER),
    "admin:teams_team_changelist": Row(ORGANIZER),
}

WS_ROWS: dict[str, frozenset] = {
    "ws/site/": EVERYONE,
    "ws/koth/<id:game_id>/public/": EVERYONE,
    "ws/koth/<id:game_id>/host/": KOTH_HOSTS,
    "ws/koth/<id:game_id>/team/": PHONES,
    "ws/gorod/<id:game_id>/public/": EVERYONE,
    "ws/gorod/<id:game_id>/organizer/": ORGANIZER,
    "ws/gorod/<id:game_id>/team/": PHONES,
    "": NOBODY,  # the catch-all: 4404
}


def http_routes() -> list[str]:
    """Every named HTTP route of the project (the admin's as one family)."""
    found = []

    def walk(patterns, namespace=None):
        for pattern in patterns:
            if isinstance(pattern, URLResolver):
                ns = pattern.namespace
                walk(pattern.url_patterns, f"{namespace}:{ns}" if namespace and ns
                     else ns or namespace)
            else:
                name = f"{namespace}:{pattern.name}" if namespace else pattern.name
                found.append(name or str(pattern.pattern))

    walk(get_resolver().url_patterns)
    return found


def ws_routes() -> list[str]:
    from config.routing import websocket_urlpatterns

    return [str(p.pattern) for p in websocket_urlpatterns if not isinstance(p, URLRouter)]


def test_every_http_route_has_a_row_in_the_matrix():
    missing = [name for name in http_routes()
               if not name.startswith(ADMIN_FAMILY) and name not in HTTP_ROWS]
    assert missing == [], f"routes without a permission row: {missing}"
    stale = [name for name in HTTP_ROWS
             if not name.startswith(ADMIN_FAMILY) and name not in http_routes()]
    assert stale == [], f"rows of routes that are gone: {stale}"


def test_every_websocket_route_has_a_row_in_the_matrix():
    assert sorted(ws_routes()) == sorted(WS_ROWS)


def refused(response, *, join_page_refuses: bool = True) -> bool:
    if response.status_code in (401, 403):
        return True
    if response.status_code in (301, 302):
        location = response.get("Location", "")
        pages = ("/accounts/login/", "/admin/login/") + (
            ("/teams/join/",) if join_page_refuses else ())
        return any(part in location for part in pages)
    return False


def _body(name: str, row: Row, world) -> dict:
    body = dict(row.body or {})
    if name == "rating:api_protests":
        body["team"] = world.ids["alpha"]
    return body


def http_mismatches(world) -> list[str]:
    clients = {role: client_for(world, role) for role in ROLES}
    wrong = []
    for name, row in HTTP_ROWS.items():
        for role in ROLES:
            kwargs = row.kwargs(world) if callable(row.kwargs) else (row.kwargs or {})
            url = reverse(name, kwargs=kwargs or None)
            client = client_for(world, role) if row.fresh_client else clients[role]
            send = getattr(client, row.method)
            if row.method == "get":
                response = send(url)
            else:
                response = send(url, _body(name, row, world), content_type="application/json")
            reached = not refused(response, join_page_refuses=row.join_page_refuses)
            if reached != (role in row.allowed):
                wrong.append(f"{name} {row.method.upper()} {url} as {role}: "
                             f"{response.status_code} {response.get('Location', '')}")
    return wrong


@pytest.mark.django_db(transaction=True)
async def test_each_role_reaches_exactly_the_routes_its_row_allows():
    """Over HTTP, and over WebSocket: a socket is reached when its first message is a state
    (or the site's hello), refused when it is closed with 4403; the catch-all closes every
    role's socket with 4404. One world for both (it takes a while to build)."""
    from asgiref.sync import sync_to_async
    from channels.testing import WebsocketCommunicator

    from config.asgi import application

    world = await sync_to_async(build_world)()
    wrong = await sync_to_async(http_mismatches)(world)

    def cookie_headers():
        headers = {}
        for role in ROLES:
            client = client_for(world, role)
            cookie = "; ".join(f"{k}={v.value}" for k, v in client.cookies.items())
            headers[role] = [(b"origin", b"http://127.0.0.1"), (b"host", b"127.0.0.1"),
                             (b"cookie", cookie.encode())]
        return headers

    headers = await sync_to_async(cookie_headers)()
    ids = {"koth": world.ids["koth"], "gorod": world.ids["gorod"]}
    for route, allowed in WS_ROWS.items():
        app = "koth" if "koth" in route else "gorod"
        path = "/" + route.replace("<id:game_id>", str(ids[app])) if route else "/ws/nowhere/"
        for role in ROLES:
            socket = WebsocketCommunicator(application, path, headers=headers[role])
            connected, _ = await socket.connect()
            first = await socket.receive_output(timeout=5) if connected else None
            reached = bool(first) and first.get("type") == "websocket.send"
            if not reached and first != {"type": "websocket.close",
                                         "code": 4403 if route else 4404}:
                wrong.append(f"{path} as {role}: unexpected {first}")
            elif reached != (role in allowed):
                wrong.append(f"{path} as {role}: {'reached' if reached else 'refused'}")
            await socket.disconnect()
    assert wrong == [], "\n".join(wrong)
