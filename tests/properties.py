"""Hypothesis profiles: ``quick`` on every run, ``thorough`` with ``HYPOTHESIS_PROFILE=thorough``
(``make test-thorough``, a separate bounded CI step).

Each property names the example count it was written for with ``examples(n)``: the thorough
profile runs exactly that, the quick one at most ``QUICK_EXAMPLES`` — enough to exercise every
branch a strategy reaches easily on each change, while the full volume searches the corners.
No deadline in either: on a loaded 2-core machine a slow example is not a failure.
"""

from __future__ import annotations

import os
import sys

from hypothesis import HealthCheck, settings

QUICK_EXAMPLES = 15
PROFILES = ("quick", "thorough")

settings.register_profile("quick", max_examples=QUICK_EXAMPLES, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])
# Hypothesis's own default volume, for the properties that do not name theirs.
settings.register_profile("thorough", max_examples=100, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])

PROFILE = os.environ.get("HYPOTHESIS_PROFILE", "").strip() or "quick"
if PROFILE not in PROFILES:
    sys.stderr.write(f"error: HYPOTHESIS_PROFILE={PROFILE!r} is not one of {', '.join(PROFILES)}\n")
    raise SystemExit(2)
settings.load_profile(PROFILE)


def examples(thorough: int) -> int:
    """How many examples a property written for ``thorough`` of them runs in this profile."""
    return thorough if PROFILE == "thorough" else min(thorough, QUICK_EXAMPLES)
