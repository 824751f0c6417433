"""GoRoD real time: the group names and the broadcasts. Nobody else names a group.

Groups, per game (``<id>`` is the ``teams.Game`` id, which is also ``GorodGame.pk``):

- public ``gorod.<id>.public`` — the statistics screen and anyone; ``/ws/gorod/<id>/public/``,
  resync ``GET /gorod/api/games/<id>/state/``; the statistics table only once the game is over
  (rules: live statistics are for organizers);
- organizer ``gorod.<id>.organizer`` — organizer logins; ``/ws/gorod/<id>/organizer/``, resync
  ``GET /gorod/api/games/<id>/organizer/state/``: statistics, attempts log, rulings;
- team ``gorod.<id>.team.<application id>`` — the phones of one team; ``/ws/gorod/<id>/team/``,
  resync ``GET /gorod/api/games/<id>/team/state/``: its level, hints, deadlines, its own
  attempts — never another team's.

Every message is ``{"type": "gorod.state", "version": N, "state": S}``. Public and organizer
share ``GorodGame.version`` (bumped by every write and every clock tick); a team's stream is
``GorodGame.team_versions[str(application id)]``, bumped only when that team's view changed.
"""

from __future__ import annotations

from core.realtime import send_to_groups, state_group_message

STATE = "gorod.state"


def public_group(game_id: int) -> str:
    return f"gorod.{game_id}.public"


def organizer_group(game_id: int) -> str:
    return f"gorod.{game_id}.organizer"


def team_group(game_id: int, application_id: int) -> str:
    return f"gorod.{game_id}.team.{application_id}"


def group_message(version: int, state: dict) -> dict:
    return state_group_message(STATE, version, state)


def broadcast_states(game_id: int, version: int, *, public: dict, organizer: dict,
                     teams: dict[int, tuple[int, dict]]) -> int:
    """Send the public and organizer states with ``version`` and each team in ``teams``
    (``{application id: (team version, state)}``) its own; returns the number of messages.
    Called from ``transaction.on_commit`` (or by the clock, which writes nothing else)."""
    messages = [(public_group(game_id), group_message(version, public)),
                (organizer_group(game_id), group_message(version, organizer))]
    messages += [(team_group(game_id, app_id), group_message(team_version, state))
                 for app_id, (team_version, state) in teams.items()]
    return send_to_groups(messages)
