"""The ASGI router and the configured channel layer carry messages to connected sockets."""

import asyncio
import sys
from pathlib import Path

import pytest
from asgiref.sync import sync_to_async
from channels.layers import get_channel_layer
from channels.testing import WebsocketCommunicator

from config.asgi import application
from core import health
from core.realtime import SITE_GROUP, announce_message

ROOT = Path(__file__).resolve().parents[2]
HEADERS = [(b"origin", b"http://127.0.0.1"), (b"host", b"127.0.0.1")]
# A socket reads the latest announcement when it connects.
pytestmark = pytest.mark.django_db(transaction=True)


async def connect(path="/ws/site/"):
    communicator = WebsocketCommunicator(application, path, headers=HEADERS)
    connected, _ = await communicator.connect()
    assert connected
    hello = await communicator.receive_json_from(timeout=5)
    assert hello["type"] == "site.hello"
    return communicator


async def test_a_socket_gets_a_hello_and_then_a_group_broadcast():
    communicator = await connect()
    await get_channel_layer().group_send(SITE_GROUP, announce_message("перерыв 10 минут"))
    message = await communicator.receive_json_from(timeout=5)
    assert message["type"] == "site.announce"
    assert message["text"] == "перерыв 10 минут"
    await communicator.disconnect()


@pytest.mark.fast_internals  # Channels' own dispatch takes that thread (STOCK_INTERNALS)
async def test_a_push_reaches_a_socket_while_the_workers_sync_thread_is_busy():
    """Forwarding a push needs no turn of the worker's one sync thread (the thread of the
    views and the connects): Channels' default dispatch queued every delivery there
    (core.sockets.ThreadFreeDispatch)."""
    import threading

    from asgiref.sync import sync_to_async

    communicator = await connect()
    release = threading.Event()
    busy = asyncio.ensure_future(sync_to_async(release.wait)(10))  # thread_sensitive: that thread
    try:
        await asyncio.sleep(0.1)
        await get_channel_layer().group_send(SITE_GROUP, announce_message("во время запроса"))
        message = await communicator.receive_json_from(timeout=2)
        assert message["text"] == "во время запроса"
    finally:
        release.set()
        await busy
    await communicator.disconnect()


@pytest.mark.fast_internals  # Channels' in-memory layer drops every emptied queue
async def test_repeated_health_probes_share_one_channel_of_the_layer():
    """A long-lived worker answers /healthz many times: no probe leaves a channel behind, and
    none subscribes a channel of its own."""
    layer = get_channel_layer()
    answers = await asyncio.gather(*(layer_health() for _ in range(5)))
    assert [*answers, await layer_health()] == ["ok"] * 6
    held = layer._get_layer().channels if hasattr(layer, "_get_layer") else layer.channels
    assert len([name for name in held if "healthz." in name]) == 1


async def test_a_health_probe_cut_short_leaves_the_next_one_a_working_channel(monkeypatch):
    layer = get_channel_layer()
    assert await layer_health() == "ok"
    real_send = layer.send

    async def down(channel, message):
        raise ConnectionError("the layer is down")

    monkeypatch.setattr(layer, "send", down)
    assert await layer_health() == "error: ConnectionError"
    monkeypatch.setattr(layer, "send", real_send)
    assert await asyncio.wait_for(layer_health(), 5) == "ok"


async def layer_health() -> str:
    """What /healthz reports of the channel layer, asked from its own thread as a request's
    view is (its probe runs on this event loop, as a server's on its one loop)."""
    return (await sync_to_async(health.check, thread_sensitive=False)())["channel_layer"]


async def test_a_socket_from_a_foreign_origin_is_refused():
    communicator = WebsocketCommunicator(application, "/ws/site/", headers=[(b"origin", b"http://evil.example")])
    connected, _ = await communicator.connect()
    assert not connected


@pytest.mark.parametrize(
    "path", ["/ws/nowhere/", "/ws/koth/99999999999999999999999/public/",
             "/ws/gorod/9223372036854775808/team/", "/ws/koth/0/public/", "/"])
async def test_an_unknown_socket_path_is_closed_with_4404(path):
    communicator = WebsocketCommunicator(application, path, headers=HEADERS)
    connected, _ = await communicator.connect()
    assert connected
    assert await communicator.receive_output(timeout=5) == {"type": "websocket.close", "code": 4404}


@pytest.mark.parametrize(
    ("origin", "host", "allowed"),
    [
        pytest.param(b"http://127.0.0.1:8000", b"127.0.0.1:8000", True, id="same host and port"),
        pytest.param(b"http://127.0.0.1:9999", b"127.0.0.1:8000", False, id="another port"),
        pytest.param(b"http://127.0.0.1", b"127.0.0.1:8000", False, id="default port vs 8000"),
        pytest.param(b"http://127.0.0.1:80", b"127.0.0.1", True, id="explicit default port"),
        # A TLS proxy forwards Host without a port: the page's port is its scheme's default.
        pytest.param(b"https://127.0.0.1", b"127.0.0.1", True, id="https page through a proxy"),
        pytest.param(b"https://127.0.0.1", b"127.0.0.1:8000", False, id="https page vs 8000"),
        pytest.param(b"http://localhost:8000", b"127.0.0.1:8000", False, id="another host"),
        pytest.param(b"http://evil.example:8000", b"evil.example:8000", False,
                     id="a host not in ALLOWED_HOSTS"),
        pytest.param(b"null", b"127.0.0.1", False, id="opaque origin"),
        pytest.param(b"http://127.0.0.1:99999", b"127.0.0.1", False, id="bad port"),
    ],
)
async def test_the_origin_must_be_the_same_host_and_port_as_the_socket(origin, host, allowed):
    communicator = WebsocketCommunicator(application, "/ws/site/",
                                         headers=[(b"origin", origin), (b"host", host)])
    connected, _ = await communicator.connect()
    assert connected is allowed
    await communicator.disconnect()


async def test_a_socket_without_an_origin_is_refused():
    communicator = WebsocketCommunicator(application, "/ws/site/", headers=[(b"host", b"127.0.0.1")])
    connected, _ = await communicator.connect()
    assert not connected


async def test_an_origin_in_csrf_trusted_origins_is_allowed_behind_a_host_rewriting_proxy(settings):
    settings.CSRF_TRUSTED_ORIGINS = ["https://games.example.org"]
    headers = [(b"origin", b"https://games.example.org"), (b"host", b"127.0.0.1:8001")]
    communicator = WebsocketCommunicator(application, "/ws/site/", headers=headers)
    connected, _ = await communicator.connect()
    assert connected
    await communicator.disconnect()
    headers = [(b"origin", b"https://games.example.org:8443"), (b"host", b"127.0.0.1:8001")]
    communicator = WebsocketCommunicator(application, "/ws/site/", headers=headers)
    assert (await communicator.connect())[0] is False


@pytest.mark.parametrize(
    ("frame", "code"),
    [
        pytest.param({"text_data": "not json"}, 4400, id="not JSON"),
        pytest.param({"text_data": "[" * 100000 + "]" * 100000}, 4413, id="oversized"),
        pytest.param({"text_data": "[" * 5000 + "]" * 5000}, 4400, id="nested past the parser"),
        pytest.param({"bytes_data": b"\x00\x01"}, 4400, id="binary"),
    ],
)
async def test_a_bad_frame_closes_the_socket_with_a_4400_code_and_a_log_line(frame, code, caplog):
    communicator = await connect()
    await communicator.send_to(**frame)
    assert await communicator.receive_output(timeout=5) == {"type": "websocket.close", "code": code}
    assert any("socket /ws/site/: closed" in r.getMessage() for r in caplog.records)
    assert not any(r.exc_info for r in caplog.records)


@pytest.mark.services
@pytest.mark.django_db(transaction=True)
async def test_two_sockets_receive_a_broadcast_sent_by_another_process_over_redis(redis_url):
    """Proves the layer is really shared between processes, as several ASGI workers need."""
    from tests.conftest import server_env

    first, second = await connect(), await connect()
    env = server_env(REDIS_URL=redis_url, DJANGO_SETTINGS_MODULE="config.settings")
    process = await asyncio.create_subprocess_exec(
        sys.executable, "manage.py", "announce", "из другого процесса", cwd=ROOT, env=env,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    out, err = await asyncio.wait_for(process.communicate(), timeout=60)
    assert process.returncode == 0, err.decode()
    for communicator in (first, second):
        message = await communicator.receive_json_from(timeout=10)
        assert (message["type"], message["text"]) == ("site.announce", "из другого процесса")
        await communicator.disconnect()


@pytest.mark.django_db(transaction=True)
async def test_a_pending_announcement_reaches_connected_pages_when_deliver_pending_runs():
    """The command line on the in-memory layer only stores it; the server's scheduler round
    (``deliver_pending``) sends it to the site socket and to every game socket."""
    from datetime import timedelta

    from asgiref.sync import sync_to_async
    from django.utils import timezone

    from core.announcements import deliver_pending
    from core.roles import ORGANIZER
    from core.services import announcement_send
    from kingofhill import services as koth_services
    from teams.models import Game
    from tests.kingofhill.conftest import make_teams, make_user

    def make_game():
        organizer = make_user("organizer-ws", ORGANIZER)
        game = Game.objects.create(title="Царь Горы", format="kingofhill",
                                   starts_at=timezone.now() + timedelta(days=3))
        make_teams(game, ["Alpha", "Beta"], organizer)
        return koth_services.koth_create(actor=organizer, game=game, summit=3, main_questions=10,
                                         reserve_questions=0)

    koth = await sync_to_async(make_game)()
    site = await connect()
    game = WebsocketCommunicator(application, f"/ws/koth/{koth.pk}/public/", headers=HEADERS)
    assert (await game.connect())[0]
    assert (await game.receive_json_from(timeout=5))["type"] == "koth.state"

    await sync_to_async(announcement_send)(actor=None, text="перерыв 10 минут", deliver=False)
    assert await site.receive_nothing(timeout=0.2)
    assert await sync_to_async(deliver_pending)() == 1
    for communicator in (site, game):
        message = await communicator.receive_json_from(timeout=5)
        assert (message["type"], message["text"]) == ("site.announce", "перерыв 10 минут")
        assert message["sent_at"]
    assert await sync_to_async(deliver_pending)() == 0
    assert await game.receive_nothing(timeout=0.2)
    await site.disconnect()
    await game.disconnect()


async def test_a_socket_that_connects_gets_the_announcement_still_news():
    """A page that was reconnecting when the announcement went out still shows it."""
    from asgiref.sync import sync_to_async
    from django.utils import timezone

    from core.models import Announcement

    await sync_to_async(Announcement.objects.create)(text="Перерыв 10 минут",
                                                     delivered_at=timezone.now())
    communicator = await connect()
    message = await communicator.receive_json_from(timeout=5)
    assert (message["type"], message["text"]) == ("site.announce", "Перерыв 10 минут")
    await communicator.disconnect()


async def test_after_the_layer_reconnects_a_page_gets_the_announcement_sent_meanwhile():
    """What was published while Redis was unreachable is lost; the layer's ``layer.reconnected``
    (config.layers) makes the site socket send the announcement still news."""
    from asgiref.sync import sync_to_async
    from django.utils import timezone

    from config.layers import RECONNECTED
    from core.models import Announcement

    communicator = await connect()
    await sync_to_async(Announcement.objects.create)(text="Пока Redis лежал",
                                                     delivered_at=timezone.now())
    await get_channel_layer().group_send(SITE_GROUP, RECONNECTED)
    message = await communicator.receive_json_from(timeout=5)
    assert (message["type"], message["text"]) == ("site.announce", "Пока Redis лежал")
    await communicator.disconnect()


# --- sockets follow permissions (core.rights) ---------------------------------------------------


def _evening():
    """An organizer, a host assigned to a King of the Hill board in set-up, teams Alpha and
    Beta (their phones may watch before the start)."""
    from datetime import timedelta

    from django.utils import timezone

    from core.roles import HOST, ORGANIZER
    from kingofhill import services as koth_services
    from teams.models import Game
    from tests.kingofhill.conftest import make_teams, make_user

    organizer = make_user("organizer-rights", ORGANIZER)
    host = make_user("host-rights", HOST)
    game = Game.objects.create(title="Царь Горы", format="kingofhill",
                               starts_at=timezone.now() + timedelta(days=3))
    alpha, beta = make_teams(game, ["Alpha", "Beta"], organizer)
    koth = koth_services.koth_create(actor=organizer, game=game, summit=3, main_questions=10,
                                     reserve_questions=0)
    koth_services.host_assign(actor=organizer, game=koth, user=host, assigned=True)
    return {"organizer": organizer, "host": host, "koth": koth, "alpha": alpha, "beta": beta}


def _client_headers(client) -> list[tuple[bytes, bytes]]:
    cookie = "; ".join(f"{k}={v.value}" for k, v in client.cookies.items())
    return HEADERS + [(b"cookie", cookie.encode())]


def _phone(entry):
    from django.test import Client

    from tests.kingofhill.conftest import join_session

    client = Client()
    join_session(client, entry)
    return _client_headers(client)


def _staff(user):
    from django.test import Client

    client = Client()
    client.force_login(user)
    return client, _client_headers(client)


async def _open(path, headers):
    communicator = WebsocketCommunicator(application, path, headers=headers)
    assert (await communicator.connect())[0]
    first = await communicator.receive_json_from(timeout=5)
    assert first["type"].endswith(".state"), first
    return communicator


async def _closed_with_4403(communicator) -> bool:
    """Whether the socket's next output is the 4403 close (pushes before it would fail)."""
    return await communicator.receive_output(timeout=5) == {"type": "websocket.close",
                                                            "code": 4403}


@pytest.fixture
async def evening():
    from asgiref.sync import sync_to_async

    return await sync_to_async(_evening)()


async def test_revoking_a_binding_closes_the_teams_open_sockets_and_only_those(evening):
    from asgiref.sync import sync_to_async

    from teams.services import application_revoke_join

    koth, alpha, beta = evening["koth"], evening["alpha"], evening["beta"]
    path = f"/ws/koth/{koth.pk}/team/"
    alpha_phone = await _open(path, await sync_to_async(_phone)(alpha))
    beta_phone = await _open(path, await sync_to_async(_phone)(beta))

    await sync_to_async(application_revoke_join)(application=alpha)

    assert await _closed_with_4403(alpha_phone)
    assert await beta_phone.receive_nothing(timeout=0.3)
    await beta_phone.disconnect()


@pytest.mark.parametrize("how", ["reject", "withdraw"])
async def test_rejecting_or_withdrawing_an_application_closes_its_sockets_before_any_push(
        evening, how):
    from asgiref.sync import sync_to_async

    from teams import services as teams_services

    koth, alpha = evening["koth"], evening["alpha"]
    phone = await _open(f"/ws/koth/{koth.pk}/team/", await sync_to_async(_phone)(alpha))
    public = await _open(f"/ws/koth/{koth.pk}/public/", HEADERS)

    if how == "reject":
        await sync_to_async(teams_services.application_reject)(
            application=alpha, actor=evening["organizer"], reason="без оплаты")
    else:
        await sync_to_async(teams_services.application_withdraw)(application=alpha)

    # The team list changed for everybody; the team's phone gets the close, not the push.
    assert (await public.receive_json_from(timeout=5))["type"] == "koth.state"
    assert await _closed_with_4403(phone)
    await public.disconnect()


async def test_logging_out_closes_that_sessions_host_sockets_and_not_another_devices(evening):
    from asgiref.sync import sync_to_async

    koth, host = evening["koth"], evening["host"]
    path = f"/ws/koth/{koth.pk}/host/"
    laptop, laptop_headers = await sync_to_async(_staff)(host)
    phone, phone_headers = await sync_to_async(_staff)(host)
    on_laptop = await _open(path, laptop_headers)
    on_phone = await _open(path, phone_headers)

    await sync_to_async(laptop.logout)()

    assert await _closed_with_4403(on_laptop)
    assert await on_phone.receive_nothing(timeout=0.3)
    await on_phone.disconnect()


async def test_losing_the_host_role_closes_the_users_host_sockets(evening):
    from asgiref.sync import sync_to_async

    from core.accounts.services import role_set

    koth, host = evening["koth"], evening["host"]
    _client, headers = await sync_to_async(_staff)(host)
    socket = await _open(f"/ws/koth/{koth.pk}/host/", headers)

    await sync_to_async(role_set)(actor=evening["organizer"], user=host, role="host",
                                  granted=False)

    assert await _closed_with_4403(socket)


async def test_an_organizer_socket_of_gorod_closes_when_the_organizer_logs_out(evening):
    from asgiref.sync import sync_to_async

    from gorod import services as gorod_services

    def night():
        from datetime import timedelta

        from django.utils import timezone

        return gorod_services.gorod_create(actor=evening["organizer"], title="Ночной ГоРоД",
                                           starts_at=timezone.now() + timedelta(days=1))

    gorod = await sync_to_async(night)()
    client, headers = await sync_to_async(_staff)(evening["organizer"])
    socket = await _open(f"/ws/gorod/{gorod.pk}/organizer/", headers)

    await sync_to_async(client.logout)()

    assert await _closed_with_4403(socket)


async def test_a_socket_rechecks_its_right_once_it_is_bound(evening, monkeypatch):
    """A revoke committed between the handshake's check and the group join sent its message
    before the socket listened: the check after the join still closes it."""
    from asgiref.sync import sync_to_async

    from live.consumers import GameStateConsumer
    from teams.services import application_revoke_join

    koth, alpha = evening["koth"], evening["alpha"]
    headers = await sync_to_async(_phone)(alpha)
    first_check = GameStateConsumer.authorise_team

    def revoked_right_after_the_check(self):
        audience = first_check(self)
        if not getattr(self, "revoked", False):
            self.revoked = True
            application_revoke_join(application=alpha)
        return audience

    monkeypatch.setattr(GameStateConsumer, "authorise_team", revoked_right_after_the_check)
    communicator = WebsocketCommunicator(application, f"/ws/koth/{koth.pk}/team/",
                                         headers=headers)
    assert (await communicator.connect())[0]
    assert await _closed_with_4403(communicator)
