"""``core.realtime.send_to_groups``: in a server a write hands its pushes to the event loop and
returns; the loop sends every batch in the order it was handed over."""

from __future__ import annotations

import asyncio
import threading

import pytest
from asgiref.sync import async_to_sync, sync_to_async
from channels.layers import InMemoryChannelLayer

from core import realtime


class GatedLayer(InMemoryChannelLayer):
    """The in-memory layer whose sends wait for a gate: a layer slow to deliver (Redis with
    thousands of sockets in the group)."""

    def __init__(self):
        super().__init__()
        self.gate = asyncio.Event()

    async def group_send(self, group, message):
        await self.gate.wait()
        await super().group_send(group, message)


@pytest.fixture
def layer(monkeypatch):
    gated = GatedLayer()
    monkeypatch.setattr(realtime, "get_channel_layer", lambda: gated)
    return gated


def _push(version: int) -> dict:
    return {"type": "koth.state", "version": version, "text": f'{{"version":{version}}}'}


@pytest.mark.fast_internals
async def test_a_write_in_a_server_thread_returns_before_its_pushes_are_delivered(layer):
    channel = await layer.new_channel()
    await layer.group_add("koth.1.public", channel)
    # A sync write in a server's thread (sync_to_async records the loop, as the ASGI handler's
    # does): it returns while the layer has not taken a single message.
    handed = await asyncio.wait_for(sync_to_async(realtime.send_to_groups)(
        [("koth.1.public", _push(1))]), timeout=5)
    assert handed == 1
    assert layer.channels.get(channel) is None or layer.channels[channel].empty()
    layer.gate.set()
    await realtime.flush()
    assert (await layer.receive(channel))["version"] == 1


@pytest.mark.fast_internals
async def test_batches_from_several_writes_reach_a_screen_in_the_order_they_were_handed_over(
        layer):
    channel = await layer.new_channel()
    await layer.group_add("koth.1.public", channel)
    for version in range(1, 6):
        await sync_to_async(realtime.send_to_groups)([("koth.1.public", _push(version))])
    layer.gate.set()
    await realtime.flush()
    assert [(await layer.receive(channel))["version"] for _ in range(5)] == [1, 2, 3, 4, 5]


async def test_a_failing_layer_is_logged_and_the_next_batch_still_goes(layer, caplog, monkeypatch):
    channel = await layer.new_channel()
    await layer.group_add("koth.1.public", channel)
    layer.gate.set()
    send = layer.group_send
    calls = {"n": 0}

    async def down_once(group, message):
        calls["n"] += 1
        if calls["n"] == 1:
            raise ConnectionError("Redis is down")
        await send(group, message)

    monkeypatch.setattr(layer, "group_send", down_once)
    await sync_to_async(realtime.send_to_groups)([("koth.1.public", _push(1))])
    await sync_to_async(realtime.send_to_groups)([("koth.1.public", _push(2))])
    await realtime.flush()
    assert "live broadcast of 1 messages failed" in caplog.text
    assert (await layer.receive(channel))["version"] == 2


def test_outside_a_server_the_sends_complete_before_it_returns(monkeypatch):
    plain = InMemoryChannelLayer()
    monkeypatch.setattr(realtime, "get_channel_layer", lambda: plain)
    channel = async_to_sync(plain.new_channel)()
    async_to_sync(plain.group_add)("koth.1.public", channel)
    assert realtime.send_to_groups([("koth.1.public", _push(7))]) == 1
    assert async_to_sync(plain.receive)(channel)["version"] == 7


class SwallowingLayer(InMemoryChannelLayer):
    """A layer whose send takes a cancellation and returns, as a client library that turns it
    into its own error and handles that."""

    def __init__(self):
        super().__init__()
        self.sending = threading.Event()

    async def group_send(self, group, message):
        self.sending.set()
        try:
            await asyncio.sleep(30)
        except asyncio.CancelledError:
            pass


@pytest.mark.fast_internals
def test_a_loop_closing_while_its_sender_sends_closes_even_when_the_layer_takes_the_cancel(
        monkeypatch):
    swallowing = SwallowingLayer()
    monkeypatch.setattr(realtime, "get_channel_layer", lambda: swallowing)

    async def a_write_then_the_loop_ends():
        await sync_to_async(realtime.send_to_groups)([("koth.1.public", _push(1))])
        await asyncio.get_running_loop().run_in_executor(None, swallowing.sending.wait, 5)

    # asyncio.run cancels what is left on the loop and waits for it before closing.
    runner = threading.Thread(target=asyncio.run, args=(a_write_then_the_loop_ends(),),
                              daemon=True)
    runner.start()
    runner.join(timeout=10)
    assert swallowing.sending.is_set()
    assert not runner.is_alive(), "the loop's close waits for ever on its sender"
