"""The ``<id:...>`` path converter every app's URLs and WebSocket routes use for row ids.

``<int:...>`` accepts any run of digits; an id past the BigAutoField range then reaches the
database and fails there (SQLite ``OverflowError``, PostgreSQL ``DataError``: a 500). An id
here is 1..2**63-1 and anything else is simply no match (404 for a page or API call, 4404 for a
socket).
"""

from __future__ import annotations

from django.urls import register_converter

#: BigAutoField's range (signed 64-bit); also the upper bound serializers use for ids
ID_MAX = 2**63 - 1


class IdConverter:
    regex = "[0-9]{1,19}"

    def to_python(self, value: str) -> int:
        number = int(value)
        if not 1 <= number <= ID_MAX:
            raise ValueError(f"{value} is not a row id")
        return number

    def to_url(self, value) -> str:
        return str(int(value))


register_converter(IdConverter, "id")
