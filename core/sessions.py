"""Django's database sessions, read with constant SQL (``SESSION_ENGINE`` with Redis).

Every team phone's request reads its session; with Redis the sessions stay in the database
(``config.settings``), and building the ORM's ``get`` for it took a GoRoD code on PostgreSQL
about a twentieth of its server time. The read is the same query as Django's: the session of
that key that has not expired, or none.

It overrides the store's ``_get_session_from_db``, so it sits behind ``STOCK_INTERNALS``
(``config.settings``): with it on, the settings name Django's own database sessions.
"""

from __future__ import annotations

from django.contrib.sessions.backends import db
from django.contrib.sessions.models import Session
from django.utils import timezone

from core import sql

_LOAD = sql.Loader(Session)
_WHERE = (f"t.{sql.column(Session, 'session_key')} = %s "
          f"AND t.{sql.column(Session, 'expire_date')} > %s")


class SessionStore(db.SessionStore):
    def _get_session_from_db(self):
        found = _LOAD.load(_WHERE, [self.session_key,
                                    sql.param(Session, "expire_date", timezone.now())])
        if not found:
            self._session_key = None
            return None
        return found[0]
