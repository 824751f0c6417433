"""GoRoD's adapter to the live core (``core.live``): every write of ``gorod.services`` goes
through ``LIVE.write``; ``gorod.selectors.build_states`` builds the audiences' states."""

from django.utils.translation import gettext as _

from core.errors import DomainError, NotFound
from core.live import LiveGame
from gorod import realtime, selectors
from gorod.models import GorodGame


def _missing(game_id: int) -> DomainError:
    return NotFound(_("No GoRoD game with id %(id)s.") % {"id": game_id})


LIVE = LiveGame(name=realtime.NAME, model=GorodGame, build=selectors.build_states,
                missing=_missing, merge=selectors.merged)
