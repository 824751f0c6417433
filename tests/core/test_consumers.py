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


async def test_an_unknown_socket_path_is_refused():
    communicator = WebsocketCommunicator(application, "/ws/nowhere/", headers=HEADERS)
    with pytest.raises(ValueError):
        await communicator.connect()


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
