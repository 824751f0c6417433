"""GoRoD real time: the audiences, their group names and the state shapes. Nobody else names a
group (the names come from ``live.messages.group_name``).

Audiences, per game (``<id>`` is the ``teams.Game`` id, which is also ``GorodGame.pk``):

- ``public`` → group ``gorod.<id>.public`` — the statistics screen and anyone;
  ``/ws/gorod/<id>/public/``, resync ``GET /gorod/api/games/<id>/state/``; the statistics
  table only once the game is over (rules: live statistics are for organizers);
- ``organizer`` → ``gorod.<id>.organizer`` — organizer logins; ``/ws/gorod/<id>/organizer/``,
  resync ``GET /gorod/api/games/<id>/organizer/state/``: statistics, attempts log, rulings;
- ``team:<application id>`` → ``gorod.<id>.team.<application id>`` — the phones of one team;
  ``/ws/gorod/<id>/team/``, resync ``GET /gorod/api/games/<id>/team/state/``: its level, hints,
  deadlines, its own attempts — never another team's.

Every message is ``{"type": "gorod.state", "version": N, "state": S}``; each audience is a
stream with its own version (``live.models.LiveStream``), pushed only when its state changed —
by a write or by the clock at a deadline (``gorod.clock``). No state carries the current time;
a resync answers ``{"version", "state", "server_time"}`` so countdowns use the server's clock.
"""

from __future__ import annotations

from live.messages import PUBLIC, group_name, team_audience

NAME = "gorod"
ORGANIZER = "organizer"


def public_group(game_id: int) -> str:
    return group_name(NAME, game_id, PUBLIC)


def organizer_group(game_id: int) -> str:
    return group_name(NAME, game_id, ORGANIZER)


def team_group(game_id: int, application_id: int) -> str:
    return group_name(NAME, game_id, team_audience(application_id))
