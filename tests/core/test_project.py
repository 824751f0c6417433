"""Project hygiene that CI enforces: migrations in step with models, roles exist (lint is
`make lint`, its own CI step)."""

import re
import subprocess
import sys
from pathlib import Path

import pytest
from django.contrib.auth.models import Group, User
from django.core.management import call_command

from core.roles import is_host, is_organizer

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.django_db
def test_models_and_migrations_are_in_step():
    call_command("makemigrations", "--check", "--dry-run", verbosity=0)


def test_every_file_a_docstring_or_comment_names_exists_in_the_repo():
    """Docs point at files a reader can open: ``docs/rules/gorod.md``, not a path outside."""
    named = re.compile(r"``([\w./-]+/[\w.-]+\.(?:md|txt|py|json|js|css|html|yaml|yml))``")
    missing = []
    for path in ROOT.glob("**/*.py"):
        if any(part in (".venv", "node_modules") for part in path.parts):
            continue
        for name in named.findall(path.read_text(encoding="utf-8")):
            if not (ROOT / name).exists() and not (path.parent / name).exists():
                missing.append(f"{path.relative_to(ROOT)}: {name}")
    assert missing == []


@pytest.mark.django_db
def test_the_organizer_and_host_groups_exist_after_migrate():
    assert set(Group.objects.values_list("name", flat=True)) >= {"organizer", "host"}


@pytest.mark.django_db(transaction=True)
def test_a_flush_leaves_the_organizer_and_host_groups_in_place():
    """A flush empties every table, the groups' too: the post_migrate it emits makes them again
    (a transactional test's end flushes, and tests after it find the roles)."""
    from django.core.management import call_command

    Group.objects.all().delete()
    call_command("flush", interactive=False, verbosity=0)
    assert set(Group.objects.values_list("name", flat=True)) >= {"organizer", "host"}


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("groups", "superuser", "organizer", "host"),
    [
        pytest.param([], False, False, False, id="a plain user is neither"),
        pytest.param(["host"], False, False, True, id="a host judges but does not organize"),
        pytest.param(["organizer"], False, True, True, id="an organizer may also host"),
        pytest.param([], True, True, True, id="a superuser is both"),
    ],
)
def test_roles_come_from_groups(groups, superuser, organizer, host):
    user = User.objects.create_user("u", password="x", is_superuser=superuser)
    user.groups.set(Group.objects.filter(name__in=groups))
    assert (is_organizer(user), is_host(user)) == (organizer, host)


def test_an_anonymous_visitor_has_no_role():
    from django.contrib.auth.models import AnonymousUser

    assert not is_organizer(AnonymousUser()) and not is_host(AnonymousUser())


@pytest.mark.django_db
def test_the_home_page_renders_with_the_site_name(client):
    response = client.get("/")
    assert response.status_code == 200
    page = response.content.decode()
    assert "Клубные игры" in page
    for url in ("/koth/", "/gorod/", "/teams/games/", "/teams/join/"):
        assert f'href="{url}"' in page


def test_the_api_docs_page_loads_its_assets_from_this_site_not_a_cdn(client):
    page = client.get("/api/docs/").content.decode()
    assert "/static/drf_spectacular_sidecar/swagger-ui-dist/" in page
    assert "cdn" not in page.lower()


def test_production_collectstatic_builds_the_hashed_manifest(tmp_path):
    """DEBUG=false serves hashed files through WhiteNoise; a broken url() in a CSS file or a
    missing asset would only show up here, not in development."""
    import os

    env = {k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "REDIS_URL"}}
    env.update(DEBUG="false", SECRET_KEY="y7" * 30 + "-collectstatic", ALLOWED_HOSTS="x",
               STATIC_ROOT=str(tmp_path), DJANGO_SETTINGS_MODULE="config.settings")
    result = subprocess.run([sys.executable, "manage.py", "collectstatic", "--noinput", "-v", "0"],
                            cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "staticfiles.json").exists()
