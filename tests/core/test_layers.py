"""The in-memory channel layer of the embedded default (config.layers.InMemoryChannelLayer):
Channels' layer, cheap per message, with the same deliveries."""

from __future__ import annotations

import asyncio

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


async def test_a_burst_of_deliveries_walks_the_layer_for_expired_messages_once():
    """Channels walked every channel and group before each receive: 2 000 sockets made one
    change cost 2 000 walks. A message that expires during the burst is still there after it:
    no receive of the burst walked the layer again."""
    layer = InMemoryChannelLayer()
    channels = [await layer.new_channel() for _ in range(500)]
    late = await layer.new_channel()
    for channel in channels:
        await layer.group_add("g", channel)
    await layer.group_send("g", {"type": "push", "text": "{}"})
    got = [(await layer.receive(c))["type"] for c in channels[:250]]  # the first one walked
    await send_expired(layer, late, {"type": "late"})
    got += [(await layer.receive(c))["type"] for c in channels[250:]]
    assert got == ["push"] * 500
    assert (await asyncio.wait_for(layer.receive(late), 1))["type"] == "late"


async def send_expired(layer, channel: str, message: dict) -> None:
    """``message`` sent to ``channel`` a second past its expiry (the layer's own setting)."""
    kept, layer.expiry = layer.expiry, -1
    await layer.send(channel, message)
    layer.expiry = kept


async def sweep(layer) -> None:
    """The next receive walks the layer (its sweep once a second made every time), as a
    receive of another socket does."""
    layer.SWEEP_S = 0
    other = await layer.new_channel()
    await layer.send(other, {"type": "other"})
    assert (await layer.receive(other))["type"] == "other"


async def test_a_message_that_waited_past_its_expiry_is_dropped_at_the_next_sweep():
    layer = InMemoryChannelLayer()
    channel = await layer.new_channel()
    await layer.group_add("g", channel)
    await send_expired(layer, channel, {"type": "old"})
    await sweep(layer)
    assert channel not in layer.channels and channel not in layer.groups["g"]


async def test_a_closed_sockets_channel_is_forgotten_but_a_waiting_one_is_kept():
    layer = InMemoryChannelLayer()
    waiting, closed = await layer.new_channel(), await layer.new_channel()
    receive = asyncio.ensure_future(layer.receive(waiting))
    stopped = asyncio.ensure_future(layer.receive(closed))
    await asyncio.sleep(0)
    stopped.cancel()  # a consumer stopping cancels its receive
    await asyncio.gather(stopped, return_exceptions=True)
    await sweep(layer)
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


async def test_a_group_message_goes_into_its_members_queues_without_a_task_each(monkeypatch):
    """Channels' layer started a task per member for a group message: 2 000 tasks for one
    change to 2 000 sockets, only to put it in their queues."""
    layer = InMemoryChannelLayer()
    channels = [await layer.new_channel() for _ in range(200)]
    for channel in channels:
        await layer.group_add("g", channel)
    loop = asyncio.get_running_loop()
    started, real = [], loop.create_task
    monkeypatch.setattr(loop, "create_task",
                        lambda coro, **kw: started.append(coro) or real(coro, **kw))
    await layer.group_send("g", {"type": "push", "text": "{}"})
    monkeypatch.undo()
    assert started == []
    assert all(layer.channels[c].qsize() == 1 for c in channels)


async def test_a_full_members_channel_misses_the_group_message_and_the_others_get_it():
    layer = InMemoryChannelLayer(capacity=1)
    full, other = await layer.new_channel(), await layer.new_channel()
    for channel in (full, other):
        await layer.group_add("g", channel)
    await layer.send(full, {"type": "first"})
    await layer.group_send("g", {"type": "push"})
    assert await layer.receive(full) == {"type": "first"}
    assert await layer.receive(other) == {"type": "push"}
    assert layer.channels.get(full) is None or layer.channels[full].empty()
