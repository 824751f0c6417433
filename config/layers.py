"""The Redis channel layer with a connection pool that waits instead of failing.

channels-redis builds a plain ``redis.asyncio.ConnectionPool`` from the host's address; past its
``max_connections`` every further command fails at once with ``MaxConnectionsError``. A mass
disconnect (a venue's Wi-Fi dropping 600 phones) makes that many ``group_discard`` calls at
the same moment, so sockets were left in their groups and pushes went on to dead channels.
A ``BlockingConnectionPool`` queues a command until a connection is free (``timeout`` seconds
at most), with the same options (see ``config.env.channel_layers_config``).
"""

from __future__ import annotations

from channels_redis.core import RedisChannelLayer as _RedisChannelLayer
from redis.asyncio import BlockingConnectionPool


class RedisChannelLayer(_RedisChannelLayer):
    def create_pool(self, index):
        host = dict(self.hosts[index])
        if "address" not in host:  # a sentinel or host/port entry: channels-redis' own pool
            return super().create_pool(index)
        address = host.pop("address")
        return BlockingConnectionPool.from_url(address, **host)
