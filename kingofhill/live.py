"""King of the Hill's adapter to the live core (``live``): every write of
``kingofhill.services`` goes through ``LIVE.write``; ``kingofhill.selectors.build_states``
builds the audiences' states."""

from django.utils.translation import gettext as _

from core.errors import DomainError, NotFound
from kingofhill import realtime, selectors
from kingofhill.models import KothGame
from live.write import LiveGame


def _missing(game_id: int) -> DomainError:
    return NotFound(_("No King of the Hill game with id %(id)s.") % {"id": game_id})


def _unsettled(w) -> None:
    # Until settling moves out of ``build_states``, it settles there (issue 31).
    return None


LIVE = LiveGame(name=realtime.NAME, model=KothGame, settle=_unsettled, build=selectors.build_states, missing=_missing,
                merge=selectors.merged)
