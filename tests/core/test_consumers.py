"""The ASGI router and the configured channel layer carry messages to connected sockets."""

import asyncio
import os
import sys
from pathlib import Path

import pytest
from channels.layers import get_channel_layer
from channels.testing import WebsocketCommunicator

from config.asgi import application
from core.realtime import SITE_GROUP, announce_message

ROOT = Path(__file__).resolve().parents[2]
HEADERS = [(b"origin", b"http://127.0.0.1"), (b"host", b"127.0.0.1")]


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
async def test_two_sockets_receive_a_broadcast_sent_by_another_process_over_redis(redis_url):
    """Proves the layer is really shared between processes, as several ASGI workers need."""
    first, second = await connect(), await connect()
    env = dict(os.environ, REDIS_URL=redis_url, DJANGO_SETTINGS_MODULE="config.settings")
    process = await asyncio.create_subprocess_exec(
        sys.executable, "manage.py", "announce", "из другого процесса", cwd=ROOT, env=env,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    out, err = await asyncio.wait_for(process.communicate(), timeout=60)
    assert process.returncode == 0, err.decode()
    for communicator in (first, second):
        message = await communicator.receive_json_from(timeout=10)
        assert (message["type"], message["text"]) == ("site.announce", "из другого процесса")
        await communicator.disconnect()
