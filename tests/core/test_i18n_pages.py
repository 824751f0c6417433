"""Every page a GET opens, as each role, in Russian and in English: the Russian rendering has no
English left in it.

The routes and the objects they name are the permission matrix's (``HTTP_ROWS`` over
``permission_world``), so a new page is walked as soon as it has its row there. A page is
what answers 200 with HTML; refusals and redirects are the matrix's business.
"""

from __future__ import annotations

import re

import pytest
from django.contrib.auth.models import User
from django.urls import reverse
from django.utils import translation

from teams.models import Game, Member, Team
from tests.core.permission_world import build_world, client_for
from tests.core.test_i18n import _PageText
from tests.core.test_permission_matrix import HTTP_ROWS

ROLES = ("anonymous", "phone_a", "captain", "host", "organizer")

#: Latin words a Russian page may show, and why: product and format names the rule books and
#: files spell in Latin letters, and the short names of the keys a host presses.
ALLOWED = {
    "GoRoD",  # the product's name, Latin in Russian text too (README)
    "PIN", "QR", "URL", "CSV", "XLSX", "JSON", "YAML", "API", "PNG", "JPEG", "GIF", "WebP",
    "UTC", "Django",  # the admin's site name: «Администрирование Django»
    "Enter", "Shift", "Esc",  # keyboard keys
    "UTF",  # «UTF-8», the encoding a file must be in
    "text", "answer", "variants", "partner", "note",  # question-file columns the format accepts
    "EN", "RU",  # the header's language switch
    "Axes",  # django-axes, the log-in limits' app, by its name in the admin
    "Search",  # Django's admin writes its search icon's alt text in English (not ours to mark)
}
#: Pages for programmers, not club users: Swagger UI's page is its own, in English, and the
#: schema is YAML, never a page (and the costliest answer of the walk: seconds per request).
DEVELOPERS = {"api-docs", "api-schema"}
LATIN_WORD = re.compile(r"(?<![\w@.])[A-Za-z][A-Za-z'’]+(?![\w@])")


class _Interface(_PageText):
    """The page's text less ``<code>`` and ``<pre>``: there the page quotes data (an audit
    entry's JSON, a file's column names, a code), not its own words."""

    def handle_starttag(self, tag, attrs):
        super().handle_starttag("script" if tag in ("code", "pre") else tag, attrs)

    def handle_endtag(self, tag):
        super().handle_endtag("script" if tag in ("code", "pre") else tag)


def page_text(html: str) -> str:
    parser = _Interface()
    parser.feed(html)
    return re.sub(r"\s+", " ", " ".join(parser.parts))


@pytest.fixture(autouse=True)
def russian_by_default(settings):
    settings.LANGUAGE_CODE = "ru"
    with translation.override(None):
        yield


def data_words() -> set[str]:
    """What the test world names in Latin letters (teams, members, logins, titles): data, not
    interface."""
    words: set[str] = set()
    texts = [*Team.objects.values_list("name", flat=True),
             *Member.objects.values_list("nickname", flat=True),
             *User.objects.values_list("username", flat=True),
             *Game.objects.values_list("title", flat=True)]
    from gorod.models import Level

    for level in Level.objects.all():
        texts += [level.task, level.hint1, level.hint2, level.label]
        texts += [sector.get("name", "") for sector in (level.codes or {}).get("sectors", [])]
    for text in texts:
        words.update(re.findall(r"[A-Za-z][A-Za-z'’]+", text or ""))
    return words


def english_words(text: str, allowed: set[str]) -> list[str]:
    """The Latin words of a page's text that are neither allowed nor data; addresses and
    codes (letters mixed with digits, like G1R1D) are left out first."""
    text = re.sub(r"\S*[/\\]\S*|\S+@\S+", " ", text)
    text = re.sub(r"\b\w*\d\w*\b", " ", text)
    return [word for word in LATIN_WORD.findall(text) if word not in allowed]


def get_pages(world) -> list[tuple[str, str]]:
    pages = []
    for name, row in HTTP_ROWS.items():
        if row.method != "get" or name in DEVELOPERS:
            continue
        kwargs = row.kwargs(world) if callable(row.kwargs) else row.kwargs
        pages.append((name, reverse(name, kwargs=kwargs or None)))
    return pages


def is_page(response) -> bool:
    return response.status_code == 200 and response["Content-Type"].startswith("text/html")


def test_the_check_finds_english_and_lets_names_codes_and_data_pass():
    allowed = ALLOWED | {"Alpha"}
    assert english_words("Команда Alpha: код G1R1D принят (5 min)", allowed) == ["min"]
    assert english_words("Игра «GoRoD», PIN и QR-код, файл CSV", allowed) == []
    assert english_words("Адрес /teams/j/abc/ и почта lisa@example.org", allowed) == []


def night_in_setup(world) -> list[tuple[str, str]]:
    """The world's GoRoD games are running; a night still in set-up, with a personal-digit
    level, shows the set-up page and its codes."""
    from datetime import timedelta

    from django.utils import timezone

    from gorod import services as gorod_services

    game = Game.objects.create(title="ГоРоД 3", format="gorod",
                               starts_at=timezone.now() + timedelta(days=5))
    gg = gorod_services.gorod_create(actor=world.organizer, game=game, levels=[
        {"label": "1", "task": "Башня", "codes": {"sectors": [
            {"name": "башня", "kind": "personal_digit", "codes": ["G1R5D"], "personal": {}}]}}])
    url = reverse("gorod:setup", kwargs={"game_id": gg.pk})
    return [("gorod:setup", url), ("gorod:setup", f"{url}?edit={gg.levels.get().pk}")]


@pytest.mark.django_db
def test_no_russian_page_of_any_role_shows_english():
    world = build_world()
    pages = get_pages(world) + night_in_setup(world)
    allowed = ALLOWED | data_words()
    opened, leftovers = set(), []
    for role in ROLES:
        # A browser per language: a refusal's message queued in one would show on the other's
        # next page.
        client, english_client = client_for(world, role), client_for(world, role)
        for name, url in pages:
            russian = client.get(url, HTTP_ACCEPT_LANGUAGE="ru")
            english = english_client.get(url, HTTP_ACCEPT_LANGUAGE="en")
            assert english.status_code == russian.status_code, (role, url)
            if not is_page(russian):
                continue
            opened.add(name)
            if '<html lang="ru"' not in russian.content.decode():
                leftovers.append(f"{role} {url}: not marked Russian")
            if not name.startswith("admin:") and '<html lang="en"' not in english.content.decode():
                leftovers.append(f"{role} {url}: the English rendering is not marked English")
            found = english_words(page_text(russian.content.decode()), allowed)
            if found:
                leftovers.append(f"{role} {url}: {' '.join(sorted(set(found)))}")
    # every kind of page was opened by some role (a role-less walk would prove nothing)
    assert {"core:home", "gorod:play", "gorod:setup", "gorod:manage", "kingofhill:host",
            "kingofhill:play", "rating:results", "rating:season", "teams:team_detail",
            "accounts:roles"} <= opened
    assert leftovers == [], "\n".join(leftovers)
