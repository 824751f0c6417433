"""GoRoD's adapter to the live core (``live``): every write of ``gorod.services`` goes
through ``LIVE.write``; ``gorod.selectors.build_states`` builds the audiences' states."""

from django.utils.translation import gettext as _

from core.errors import DomainError, NotFound
from gorod import realtime, selectors
from gorod.models import GorodGame
from live.write import LiveGame


def _missing(game_id: int) -> DomainError:
    return NotFound(_("No GoRoD game with id %(id)s.") % {"id": game_id})


def _unsettled(w) -> None:
    # Until settling moves out of ``build_states``, it settles there (issue 31).
    return None


# A batch of codes pushes the organizer what changed in each code's team row, log line and,
# for a closing code, statistics row (~0.5-0.8 KiB a code at 200 teams × 30 levels, plus the
# table's order and re-ranked places): 12 keep it under the 16-KiB push limit
# (tests/gorod/test_push_sizes.py), where a larger push would make the organizer's page read
# its whole state over HTTP.
LIVE = LiveGame(name=realtime.NAME, model=GorodGame, settle=_unsettled,
                build=selectors.build_states, missing=_missing, merge=selectors.merged, batch_most=12)
