"""The organizer and the captained teams the rating tests (and the audit's) start from."""

from __future__ import annotations

import pytest

from tests.rating.helpers import captained_teams, make_organizer

__all__ = ["organizer", "teams"]


@pytest.fixture
def organizer():
    return make_organizer()


@pytest.fixture
def teams():
    return captained_teams()
