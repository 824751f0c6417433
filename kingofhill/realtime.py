"""King of the Hill real time: the audiences, their group names and the state shapes. Nobody
else names a group (the names come from ``live.messages.group_name``).

Audiences, per game (``<id>`` is the ``teams.Game`` id, which is also ``KothGame.pk``):

- ``public`` → group ``koth.<id>.public`` — the projector and anyone; socket
  ``/ws/koth/<id>/public/``, resync ``GET /koth/api/games/<id>/state/`` (no auth);
- ``host`` → ``koth.<id>.host`` — host/organizer logins; ``/ws/koth/<id>/host/``, resync
  ``GET /koth/api/games/<id>/host/state/``;
- ``team:<application id>`` → ``koth.<id>.team.<application id>`` — the phones of one team;
  ``/ws/koth/<id>/team/``, resync ``GET /koth/api/games/<id>/team/state/``.

Each audience is a stream with its own version (``live.models.LiveStream``). A write pushes,
after its transaction commits, one message ``{"type": "koth.state", "version": N, "state": S}``
to each audience whose state it changed, and only to those (``live`` compares the new
states with the stored ones). A socket's first message is its stream's stored state; a client
that sees a gap fetches its state URL, which answers ``{"version": N, "state": S,
"server_time": T}`` for the same stream. So an answer changes the public and host states and the
answering team's, never another team's.

The public state ``S`` (the projector relies on exactly this)::

    {
      "game": {"id", "title", "status": "setup" | "running" | "finished",
               "summit", "main_questions", "reserve_questions", "holds_to_win",
               "answers_after_zero"},  # whether answers are taken after the countdown's end
      "teams": [{"name", "colour"}],          # registration order = slope order
      "board": kingofhill.rules.board_to_dict(board) without "moves",
               # summit, question, finished, finish_reason, winner, king, king_holds,
               # teams [{team, place, step, points, revolution_right}] in standings order
               # (the moves are in the record, GET /koth/api/games/<id>/record/)
      "question": null | {"number", "phase": "declaring" | "answering" | "closed",
                          "partner", "answered", "total",
                          "revolutions": [team names whose revolution counts],
                          "jumps": [team names whose jump counts],
                          # the host's countdown: running, or paused with its seconds left
                          "countdown": null | {"seconds", "ends_at"}
                                            | {"seconds", "paused_left"}},
      "reveal": null | {"number", "text", "answer_key", "variants"},
               # the last closed question, once the host reveals it, until the next announcement
      "shown": {"question": null | {"number", "text", "image"},
                "after": null | {"number", "text", "image", "answer_key", "variants",
                                 "correct", "total"}},
               # what this screen shows of the questions (``states.shown_state``): the open
               # one once its rule shows it, else the last closed one until the next
               # announcement; "image" is a URL (or null) the image view checks by the same
               # rule; the projector's rule here, the phones' in a team state
    }

The host state is ``S`` plus ``"host"``: the current question's text and key, its declarations
(with whether each counts and the engine's reason when not), its answers grouped by normalised
text (or by the group the host merged a text into: each group's ``forms``) with verdicts, the
groups the console suggests merging (``suggestions``: ``[{"keys": [group keys, the first
kept], "reasons": [why each other key is the same answer as one before it]}]``), the "answered of total" counter, the teams that have not answered and the
number of answers not judged yet (why "close" waits), every question's history (answers with
verdicts, partner mark, ignored declarations, and ``counts``: false for a question a changed
verdict took out of the game by ending it earlier) so earlier verdicts can be changed, the
challengers, the question bank (``bank``: the next prepared question and how many are left),
the teams whose phones are connected (``connected``), whether the last question is revealed,
the current question's ``note`` for the host, its ``image`` and its ``show_projector`` and
``show_phones``, and the game's defaults (``screens``). The team state is ``S`` without ``question.answered`` (other teams' answers are not
its news), with ``shown`` by the phones' rule, plus ``"me"``: the team's own place, step, points, right, what it may declare now
(with reasons), what each kind would give (``projected_outcome``; its ``note`` is the engine's
stable ``Outcome.code``, shown through the page's labels), its declaration and its own
answer with the server's arrival time, its last closed move (``last_move``: answer, verdict,
kind, ignored declaration's reason, step/points/King before and after, crowned/deposed) and
its ``history`` per closed question, newest first — never another team's answer.
"""

from __future__ import annotations

from live.messages import PUBLIC, group_name, team_audience

NAME = "koth"
HOST = "host"


def public_group(game_id: int) -> str:
    return group_name(NAME, game_id, PUBLIC)


def host_group(game_id: int) -> str:
    return group_name(NAME, game_id, HOST)


def team_group(game_id: int, application_id: int) -> str:
    return group_name(NAME, game_id, team_audience(application_id))
