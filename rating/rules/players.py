"""Who counts in the King of the Hill players' table (rule 2.6: «для участия в рейтинге
необходимо зарегистрироваться на сайте Клуба перед игрой, а также перед началом игры указать …
Фамилию и Имя, соответствующие Вашему профилю»).

A roster entry counts for a game when it was linked to the player's profile before the game's
announced start and the profile gives both a surname and a first name. Everybody else who
played is listed as not registered: shown, never ranked.
"""

from __future__ import annotations

from datetime import datetime


def counts_for_game(*, linked_at: datetime | None, starts_at: datetime, surname: str,
                    first_name: str) -> bool:
    """Does a roster entry linked at ``linked_at`` (None: not linked) count for a game that
    starts at ``starts_at``, its profile named ``surname`` ``first_name``?

    >>> from datetime import datetime, timezone
    >>> start = datetime(2026, 3, 1, 19, tzinfo=timezone.utc)
    >>> counts_for_game(linked_at=datetime(2026, 3, 1, 18, tzinfo=timezone.utc),
    ...                 starts_at=start, surname="Лисицына", first_name="Анна")
    True
    >>> counts_for_game(linked_at=start, starts_at=start, surname="Лисицына", first_name="Анна")
    False
    >>> counts_for_game(linked_at=None, starts_at=start, surname="Лисицына", first_name="Анна")
    False
    >>> counts_for_game(linked_at=datetime(2026, 2, 1, tzinfo=timezone.utc), starts_at=start,
    ...                 surname="Лисицына", first_name=" ")
    False
    """
    if linked_at is None or linked_at >= starts_at:
        return False
    return bool(surname.strip()) and bool(first_name.strip())
