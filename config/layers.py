"""The channel layers: Channels' in-memory layer made cheap per message (the embedded default);
for Redis, channels-redis' pub/sub layer with a connection pool that waits instead of failing,
a page resync after Redis comes back, and a way to drop a channel that is done.

Why pub/sub rather than channels-redis' list-based ``RedisChannelLayer``: a live change goes to
groups of hundreds of sockets (a projector group, a game's phones). The list layer pushes one
copy per member socket into Redis and every worker pops them one by one, so one change to 2 000
sockets was 2 000 Redis writes and reads; pub/sub publishes it once per group, each worker
receives it once and hands it to its own sockets (fan-out p95 on 2 workers, both with
``core.sockets.ThreadFreeDispatch``: 0.47–0.53 s on the list layer, 0.39–0.43 s on pub/sub). The list layer also lost messages: a stopping consumer's cancelled receive dropped a
message it had already popped for another socket of the same worker. Pub/sub keeps a queue per
socket, and what it cannot deliver (a socket gone, Redis restarting) is lost the same way a
dropped phone loses it: the page sees a gap in the versions and resyncs over HTTP.

The pool: redis-py's plain ``ConnectionPool`` fails every command past ``max_connections`` at
once with ``MaxConnectionsError``; a mass disconnect (a venue's Wi-Fi dropping 600 phones) makes
that many unsubscribe and publish calls at the same moment. A ``BlockingConnectionPool`` queues
a command until a connection is free (``timeout`` seconds at most), with the same options (see
``config.env.channel_layers_config``).
"""

from __future__ import annotations

import asyncio
import logging
import time
from copy import deepcopy

from channels import layers
from channels_redis import pubsub
from channels_redis.utils import _wrap_close, decode_hosts
from redis import asyncio as aioredis
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

log = logging.getLogger(__name__)

#: What every socket of a worker receives once its subscriptions are back after Redis was
#: unreachable: pushes published meanwhile are lost, so each socket sends its page the
#: current state (``core.consumers``).
RECONNECTED = {"type": "layer.reconnected"}


class InMemoryChannelLayer(layers.InMemoryChannelLayer):
    """Channels' in-memory layer (the embedded default, one process), made cheap per message.

    With 2 000 sockets one change is 2 000 sends and receives, and Channels' layer made each
    cost far more than the delivery: every ``receive`` first walked every channel and every
    group's members for expired messages (two thirds of the server's time in the fan-out,
    py-spy, ``make bench``), and every send and receive built a new ``asyncio.Queue`` (with its
    ``Event``) whether or not the channel had one, since each receive dropped the queue it had
    just emptied. Here expired messages are swept once a second (they expire after a minute;
    a page sees no difference), a channel's queue lives while somebody waits on it or it holds
    messages (the sweep drops the others), a message whose values are all immutable is
    copied shallowly, which is all a deep copy would do with it, and a group's message goes
    into its members' queues without a task each.

    It overrides Channels' ``_clean_expired`` and reads ``asyncio.Queue``'s waiters, so it
    sits behind ``STOCK_INTERNALS`` (``config.settings``): with it on, the settings name
    Channels' own layer."""

    SWEEP_S = 1.0
    _swept = float("-inf")

    def _queue(self, channel: str) -> asyncio.Queue:
        queue = self.channels.get(channel)
        if queue is None:
            queue = self.channels[channel] = asyncio.Queue(maxsize=self.get_capacity(channel))
        return queue

    async def send(self, channel, message):
        assert isinstance(message, dict), "message is not a dict"
        self.require_valid_channel_name(channel)
        assert "__asgi_channel__" not in message
        self._put(channel, message, _flat(message))

    def _put(self, channel: str, message: dict, flat: bool) -> None:
        try:
            self._queue(channel).put_nowait(
                (time.time() + self.expiry, dict(message) if flat else deepcopy(message)))
        except asyncio.QueueFull:
            raise layers.ChannelFull(channel) from None

    async def group_send(self, group, message):
        """Put the message in each member's queue at once. Channels' own starts a task per
        member and awaits them as they complete: for one change to 2 000 sockets, 2 000 tasks
        that each only put a message in a queue, a sixth of the server's time in the fan-out
        (py-spy). The members' names were checked when they joined."""
        assert isinstance(message, dict), "message is not a dict"
        self.require_valid_group_name(group)
        self._clean_expired()
        flat = _flat(message)
        for channel in list(self.groups.get(group, ())):
            try:
                self._put(channel, message, flat)
            except layers.ChannelFull:
                pass  # as Channels' own: a full channel misses this message

    async def receive(self, channel):
        self.require_valid_channel_name(channel)
        self._clean_expired()
        _, message = await self._queue(channel).get()
        return message

    async def delete_channel(self, channel: str) -> None:
        """Forget a channel nobody will receive on again (as the Redis layer's)."""
        self.channels.pop(channel, None)

    def _clean_expired(self):
        now = time.monotonic()
        if now - self._swept < self.SWEEP_S:
            return
        self._swept = now
        super()._clean_expired()
        for channel, queue in list(self.channels.items()):
            # Nobody waits on it (a receive cancelled by a closing socket leaves none) and it
            # holds nothing: a later send or receive makes a new one.
            if queue.empty() and not queue._getters:
                del self.channels[channel]


def _flat(message: dict) -> bool:
    """Every value immutable: a shallow copy is all a deep copy would make of it."""
    return all(isinstance(v, (str, int, float, bool, type(None))) for v in message.values())


def create_pool(host: dict):
    """The pool for one ``hosts`` entry: waiting when it is an address (the settings' form),
    channels-redis' own for a sentinel or host/port entry."""
    host = dict(host)
    if "address" not in host:
        return pubsub.create_pool(host)
    return aioredis.BlockingConnectionPool.from_url(host.pop("address"), **host)


class _PubSub(aioredis.client.PubSub):
    """Counts its reconnections (redis-py calls ``on_connect`` on each, not on the first
    connection): after a short outage it reconnects and subscribes again inside a read,
    without raising, and the pushes published meanwhile are lost all the same."""

    connects = 0

    async def on_connect(self, connection):
        await super().on_connect(connection)
        self.connects += 1


class _Shard(pubsub.RedisSingleShardConnection):
    def _ensure_redis(self):
        if self._redis is None:
            self._redis = aioredis.Redis(connection_pool=create_pool(self.host))
            self._pubsub = _PubSub(self._redis.connection_pool)

    async def _do_receiving(self):
        # channels-redis' loop, but a lost connection is one warning (not a traceback a
        # second), retried every 0.1 s rather than 1 s, and each reconnection is followed by
        # RECONNECTED to every channel.
        seen, lost = 0, False
        while True:
            try:
                if self._pubsub and self._pubsub.subscribed:
                    # Reconnects, and subscribes the channels again, before reading.
                    message = await self._pubsub.get_message(ignore_subscribe_messages=True,
                                                             timeout=0.1)
                    if self._pubsub.connects != seen:
                        seen, lost = self._pubsub.connects, False
                        log.warning("Redis is back: live sockets resend their state")
                        self._tell_every_channel(RECONNECTED)
                    self._receive_message(message)
                else:
                    await asyncio.sleep(0.1)
            except (RedisConnectionError, RedisTimeoutError, OSError) as exc:
                if not lost:
                    log.warning("Redis unreachable (%s); live pushes wait for it", exc)
                lost = True
                await asyncio.sleep(0.1)
            except (asyncio.CancelledError, GeneratorExit):
                raise
            except Exception:  # noqa: BLE001 - as channels-redis: keep receiving
                log.exception("unexpected error in the channel layer's receive loop")
                await asyncio.sleep(1)

    def _tell_every_channel(self, message: dict) -> None:
        data = self.channel_layer.channel_layer.serialize(message)
        for queue in self.channel_layer.channels.values():
            queue.put_nowait(data)


class _LoopLayer(pubsub.RedisPubSubLoopLayer):
    def __init__(self, hosts=None, *args, **kwargs):
        super().__init__(hosts, *args, **kwargs)
        # The same shards with the waiting pool (channels-redis' own hold no connection yet).
        self._shards = [_Shard(host, self) for host in decode_hosts(hosts)]

    async def delete_channel(self, channel: str) -> None:
        """Forget a channel made by ``new_channel`` that nobody will receive on again.

        The pub/sub layer unsubscribes a channel only when a receive on it is cancelled (a
        consumer stopping); a one-off channel (the health check's round trip) would otherwise
        stay subscribed, with its queue, for the life of the worker."""
        if self.channels.pop(channel, None) is not None:
            await self._get_shard(channel).unsubscribe(channel)


class RedisChannelLayer(pubsub.RedisPubSubChannelLayer):
    """``channels_redis.pubsub.RedisPubSubChannelLayer`` with the waiting pool; one
    ``_LoopLayer`` per event loop, as there."""

    def __getattr__(self, name):
        if name == "delete_channel":
            return lambda channel: self._get_layer().delete_channel(channel)
        return super().__getattr__(name)

    def _get_layer(self):
        loop = asyncio.get_running_loop()
        layer = self._layers.get(loop)
        if layer is None:
            layer = self._layers[loop] = _LoopLayer(*self._args, **self._kwargs,
                                                    channel_layer=self)
            _wrap_close(self, loop)
        return layer
