"""The hostile-input suite generated from the OpenAPI schema (schemathesis), bounded for CI.

Every operation of the published schema gets a fixed number of generated requests — valid and
invalid bodies, ids, query strings — sent in-process to the app, anonymously and as an
organizer (with the CSRF token, so writes get past the door). Whatever comes in, the answer is
never a 5xx, and every 4xx carries JSON ``{"detail": "..."}``.
"""

from __future__ import annotations

import pytest
import schemathesis
from hypothesis import HealthCheck, Phase, settings

from tests.properties import PROFILE

pytestmark = pytest.mark.django_db

EXAMPLES_PER_OPERATION = 6


def _load_schema():
    """The published schema, fetched once at collection from the app itself. Leaves nothing
    behind: settings restored, and no database connection opened outside pytest-django's
    control (async tests would trip over it)."""
    from django.core.wsgi import get_wsgi_application
    from django.db import connections
    from django.test import override_settings

    with override_settings(ALLOWED_HOSTS=["*"]):
        loaded = schemathesis.openapi.from_wsgi("/api/schema/?format=json", get_wsgi_application())
    connections.close_all()
    return loaded


schema = _load_schema()


@pytest.fixture(autouse=True)
def in_process_requests_keep_the_test_database(settings):
    """Like Django's test client: a request must not close the test's database connection
    (schemathesis calls the WSGI app directly, so Django's request signals would)."""
    from django.core.signals import request_finished, request_started
    from django.db import close_old_connections

    settings.ALLOWED_HOSTS = ["*"]
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    yield
    request_started.connect(close_old_connections)
    request_finished.connect(close_old_connections)


@pytest.fixture
def organizer_cookies(django_user_model):
    from django.contrib.auth.models import Group
    from django.middleware.csrf import _get_new_csrf_string, _mask_cipher_secret
    from django.test import Client

    user = django_user_model.objects.create_user("fuzz-organizer")
    user.groups.add(Group.objects.get_or_create(name="organizer")[0])
    client = Client()
    client.force_login(user)
    secret = _get_new_csrf_string()
    return ({"sessionid": client.cookies["sessionid"].value, "csrftoken": secret},
            {"X-CSRFToken": _mask_cipher_secret(secret)})


def assert_clear_answer(response, case) -> None:
    where = f"{case.method} {case.formatted_path}"
    assert response.status_code < 500, f"{where} answered {response.status_code}: {response.text[:300]}"
    if 400 <= response.status_code < 500:
        kind = (response.headers.get("content-type") or [""])[0]
        assert kind.startswith("application/json"), \
            f"{where} answered {response.status_code} without JSON: {response.text[:200]}"
        body = response.json()
        assert isinstance(body, dict) and isinstance(body.get("detail"), str) and body["detail"], \
            f"{where} answered {response.status_code} without a detail: {response.text[:200]}"


# The explicit phase carries schemathesis's coverage cases: some fifty boundary and invalid
# requests an operation, deterministic, and most of the fuzz's time. `make test` sends each
# operation its generated requests; `make test-thorough` (a CI step of its own) adds the
# coverage cases, for both roles.
PHASES = [Phase.explicit, Phase.generate] if PROFILE == "thorough" else [Phase.generate]
BOUNDED = settings(max_examples=EXAMPLES_PER_OPERATION, deadline=None, derandomize=True,
                   phases=PHASES, suppress_health_check=list(HealthCheck))


@schema.parametrize()
@BOUNDED
def test_no_input_makes_the_api_fail_anonymously(case):
    assert_clear_answer(case.call(), case)


@schema.parametrize()
@BOUNDED
def test_no_input_makes_the_api_fail_for_an_organizer(case, organizer_cookies):
    cookies, headers = organizer_cookies
    assert_clear_answer(case.call(cookies=cookies, headers=headers), case)
