"""King of the Hill real time: the group names and the broadcasts. Nobody else names a group.

Groups, per game (``<id>`` is the ``teams.Game`` id, which is also ``KothGame.pk``):

- public ``koth.<id>.public`` — the projector and anyone; socket ``/ws/koth/<id>/public/``,
  resync ``GET /koth/api/games/<id>/state/`` (no auth);
- host ``koth.<id>.host`` — host/organizer logins; ``/ws/koth/<id>/host/``, resync
  ``GET /koth/api/games/<id>/host/state/``;
- team ``koth.<id>.team.<application id>`` — the phones of one team; ``/ws/koth/<id>/team/``,
  resync ``GET /koth/api/games/<id>/team/state/``.

Each group is a stream with its own version, and a write sends, after the transaction commits,
one message ``{"type": "koth.state", "version": N, "state": S}`` to each group whose view it
changed, with that stream's next version; a client that sees a gap (or reconnects) fetches its
state URL, which answers ``{"version": N, "state": S}`` for the same stream:

- public and host: ``KothGame.version``, bumped by every write; both groups get every write;
- team: ``KothGame.team_versions[str(application id)]``, bumped only by the writes that change
  that team's view: all of them except another team's answer and the judging of answers to the
  open question (its verdicts are news only once the move is played). So 64 answers make 64
  pushes to the projector and the host but one to each team.

The public state ``S`` (the projector relies on exactly this)::

    {
      "game": {"id", "title", "status": "setup" | "running" | "finished",
               "summit", "main_questions", "reserve_questions"},
      "teams": [{"name", "colour"}],          # registration order = slope order
      "board": kingofhill.rules.board_to_dict(board) without "moves",
               # summit, question, finished, finish_reason, winner, king, king_holds,
               # teams [{team, place, step, points, revolution_right}] in standings order
               # (the moves are in the record, GET /koth/api/games/<id>/record/)
      "question": null | {"number", "phase": "declaring" | "answering" | "closed",
                          "partner", "answered", "total",
                          "revolutions": [team names whose revolution counts],
                          "jumps": [team names whose jump counts]},
    }

The host state is ``S`` plus ``"host"``: the current question's text and key, its declarations
(with whether each counts and the engine's reason when not), its answers grouped by normalised
text with verdicts, the "answered of total" counter, every question's history (answers with
verdicts, partner mark, ignored declarations) so earlier verdicts can be changed, and the
challengers. The team state is ``S`` without ``question.answered`` (other teams' answers do
not push to a team) plus ``"me"``: the team's own place, step, points, right,
what it may declare now (with reasons), what each kind would give (``projected_outcome``), its
declaration and its own answer with the server's arrival time — never another team's answer.
"""

from __future__ import annotations

from core.realtime import send_to_groups, state_group_message

STATE = "koth.state"


def public_group(game_id: int) -> str:
    return f"koth.{game_id}.public"


def host_group(game_id: int) -> str:
    return f"koth.{game_id}.host"


def team_group(game_id: int, application_id: int) -> str:
    return f"koth.{game_id}.team.{application_id}"


def group_message(version: int, state: dict) -> dict:
    return state_group_message(STATE, version, state)


def broadcast_states(
    game_id: int, version: int, *, public: dict, host: dict, teams: dict[int, tuple[int, dict]]
) -> int:
    """Send the public and host states with ``version`` and each team in ``teams``
    (``{application id: (team version, state)}``) its own; returns the number of messages.

    Called from ``transaction.on_commit`` only, so nobody sees a state that was rolled back.
    """
    messages = [(public_group(game_id), group_message(version, public)),
                (host_group(game_id), group_message(version, host))]
    messages += [(team_group(game_id, app_id), group_message(team_version, state))
                 for app_id, (team_version, state) in teams.items()]
    return send_to_groups(messages)
