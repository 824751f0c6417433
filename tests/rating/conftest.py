import pytest


@pytest.fixture(autouse=True)
def _fresh_cache():
    """Each test starts with no cached season table: ids and timestamps repeat between tests
    (rolled-back transactions reuse them), so a table cached by one test could match another's."""
    from django.core.cache import cache

    cache.clear()
    yield
    cache.clear()
