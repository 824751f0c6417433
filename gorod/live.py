"""GoRoD's adapter to the live core (``live``): every write of the services goes through
``LIVE.write``; ``gorod.settle.settle`` settles the game after the action, and
``gorod.states.build_states`` renders the audiences' states from what it computed."""

from django.utils.translation import gettext as _

from core.errors import DomainError, NotFound
from gorod import realtime, settle, states
from gorod.models import GorodGame
from live.write import LiveGame


def _missing(game_id: int) -> DomainError:
    return NotFound(_("No GoRoD game with id %(id)s.") % {"id": game_id})


# A batch of codes pushes the organizer what changed in each code's team row, log line and,
# for a closing code, statistics row (~0.5-0.8 KiB a code at 200 teams × 30 levels, plus the
# table's order and re-ranked places): 12 keep it under the 16-KiB push limit
# (tests/gorod/test_push_sizes.py), where a larger push would make the organizer's page read
# its whole state over HTTP.
LIVE = LiveGame(name=realtime.NAME, model=GorodGame, settle=settle.settle,
                build=states.build_states, missing=_missing, merge=settle.merged, batch_most=12)
