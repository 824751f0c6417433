"""The in-memory channel layer of the embedded default (config.layers.InMemoryChannelLayer):
Channels' layer, cheap per message, with the same deliveries."""

from __future__ import annotations

import asyncio

from channels import layers as channels_layers

from config.layers import InMemoryChannelLayer


async def test_a_group_message_reaches_every_member_once_in_order():
    layer = InMemoryChannelLayer()
    channels = [await layer.new_channel() for _ in range(50)]
    for channel in channels:
        await layer.group_add("g", channel)
    for n in range(3):
        await layer.group_send("g", {"type": "push", "version": n, "text": "{}"})
    got = [[(await layer.receive(c))["version"] for _ in range(3)] for c in channels]
    assert got == [[0, 1, 2]] * 50


async def test_a_burst_of_deliveries_walks_the_layer_for_expired_messages_once(monkeypatch):
    """Channels walked every channel and group before each receive: 2 000 sockets made one
    change cost 2 000 walks."""
    walks = []
    original = channels_layers.InMemoryChannelLayer._clean_expired
    monkeypatch.setattr(channels_layers.InMemoryChannelLayer, "_clean_expired",
                        lambda self: walks.append(1) or original(self))
    layer = InMemoryChannelLayer()
    channels = [await layer.new_channel() for _ in range(500)]
    for channel in channels:
        await layer.group_add("g", channel)
    await layer.group_send("g", {"type": "push", "text": "{}"})
    assert [(await layer.receive(c))["type"] for c in channels] == ["push"] * 500
    assert len(walks) == 1


async def test_a_message_that_waited_past_its_expiry_is_dropped_at_the_next_sweep():
    layer = InMemoryChannelLayer(expiry=0)
    channel = await layer.new_channel()
    await layer.group_add("g", channel)
    await layer.send(channel, {"type": "old"})
    await asyncio.sleep(0.01)
    layer._swept = float("-inf")  # a second has passed
    layer._clean_expired()
    assert channel not in layer.channels and channel not in layer.groups["g"]


async def test_a_closed_sockets_channel_is_forgotten_but_a_waiting_one_is_kept():
    layer = InMemoryChannelLayer()
    waiting, closed = await layer.new_channel(), await layer.new_channel()
    receive = asyncio.ensure_future(layer.receive(waiting))
    stopped = asyncio.ensure_future(layer.receive(closed))
    await asyncio.sleep(0)
    stopped.cancel()  # a consumer stopping cancels its receive
    await asyncio.gather(stopped, return_exceptions=True)
    layer._swept = float("-inf")
    layer._clean_expired()
    assert waiting in layer.channels and closed not in layer.channels
    await layer.send(waiting, {"type": "push"})
    assert (await asyncio.wait_for(receive, 1)) == {"type": "push"}


async def test_a_message_is_copied_so_a_receiver_cannot_change_what_others_get():
    layer = InMemoryChannelLayer()
    a, b = await layer.new_channel(), await layer.new_channel()
    for channel in (a, b):
        await layer.group_add("g", channel)
    await layer.group_send("g", {"type": "push", "teams": [1, 2], "text": "{}"})
    first = await layer.receive(a)
    first["teams"].append(3)
    first["text"] = "changed"
    assert await layer.receive(b) == {"type": "push", "teams": [1, 2], "text": "{}"}
