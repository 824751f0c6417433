import pytest
from django.db import connection

pytestmark = pytest.mark.django_db(transaction=True)
def test_pool_stats(running):
    print("POOL", connection.pool.get_stats() if connection.pool else None)
