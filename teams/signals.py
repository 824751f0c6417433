"""What teams tells the apps above it (teams imports none of them)."""

from django.dispatch import Signal

# Games whose teams changed outside the game (a team renamed, an application confirmed or
# withdrawn): ``games``, an iterable of ``teams.Game``. The live pipeline refreshes their
# screens in the sender's transaction (``live.apps``).
games_changed = Signal()

# Roster entries whose profile changed (linked, unlinked, merged): ``teams``, team ids. The
# King of the Hill players' rating counts linked profiles, so the rating forgets its tables.
players_changed = Signal()
