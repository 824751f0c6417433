import pytest

from rating import services
from tests.rating.fixtures import *  # noqa: F403 (the fixtures)
from tests.rating.helpers import gorod_game


@pytest.fixture(autouse=True)
def _fresh_cache():
    """Each test starts with no cached season table: ids and timestamps repeat between tests
    (rolled-back transactions reuse them), so a table cached by one test could match another's."""
    from django.core.cache import cache

    cache.clear()
    yield
    cache.clear()


@pytest.fixture
def game(organizer, teams):
    """A published GoRoD night (Alpha 1st, Beta 2nd, Gamma disqualified), each team with its
    own captain."""
    game = gorod_game(organizer, teams=teams)
    services.results_publish(actor=organizer, game=game)
    return game
