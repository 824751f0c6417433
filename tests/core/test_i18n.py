"""The interface speaks Russian first, English on request, and the committed catalogue is whole.

Refresh the catalogue after changing marked strings (from the repository root)::

    .venv/bin/python manage.py makemessages -l ru --ignore=.venv --ignore=tests \
        --ignore=bench --ignore=artifacts --ignore=staticfiles
    # translate every empty or "#, fuzzy" entry in locale/ru/LC_MESSAGES/django.po, then
    .venv/bin/python manage.py compilemessages --ignore=.venv

Both django.po and django.mo are committed, so a machine without GNU gettext serves Russian.
"""

from __future__ import annotations

import ast
import gettext
import re
from datetime import timedelta
from html.parser import HTMLParser
from pathlib import Path

import pytest
from django.conf import settings
from django.contrib.auth.models import Group, User
from django.test import Client
from django.utils import timezone, translation

from teams.models import Game, Team
from tests.core.conftest import main_pages, open_as

ROOT = Path(__file__).resolve().parents[2]
PO = ROOT / "locale" / "ru" / "LC_MESSAGES" / "django.po"
MO = PO.with_suffix(".mo")

HOME_RU = ["Игры", "Войти в команду", "Войти", "Командные игры для клубов"]
HOME_EN = ["Games", "Join a team", "Log in", "Live team games for clubs"]


@pytest.fixture(autouse=True)
def the_sites_own_default_language(settings):
    """Undo tests/conftest.py's English override: here the real default (ru) is under test."""
    settings.LANGUAGE_CODE = "ru"
    with translation.override(None):
        yield


# --- a tiny .po reader (no polib at test time) -------------------------------------------------


def _unquote(text: str) -> str:
    return ast.literal_eval(text)  # PO strings are C strings: \", \\, \n, \t


def read_po(path: Path = PO) -> list[dict]:
    """Entries as dicts: msgctxt, msgid, msgid_plural, msgstr or msgstr[i], flags.

    gettext writes one entry per block of lines, blocks separated by a blank line; obsolete
    ("#~") entries are left out.
    """
    entries = []
    for block in re.split(r"\n\s*\n", path.read_text(encoding="utf-8")):
        entry: dict = {"flags": set()}
        key = None
        for line in block.strip().splitlines():
            if line.startswith("#~"):
                entry["obsolete"] = True
            elif line.startswith("#,"):
                entry["flags"].update(flag.strip() for flag in line[2:].split(","))
            elif line.startswith("#"):
                continue
            elif match := re.match(
                r'^(msgctxt|msgid_plural|msgid|msgstr(?:\[\d+\])?) (".*")$', line
            ):
                key = match.group(1)
                entry[key] = _unquote(match.group(2))
            elif line.startswith('"') and key:
                entry[key] += _unquote(line)
            else:
                raise AssertionError(f"cannot read this .po line: {line!r}")
        if "msgid" in entry and not entry.get("obsolete"):
            entries.append(entry)
    return entries


def messages() -> list[dict]:
    return [e for e in read_po() if e["msgid"] != ""]


def header() -> str:
    return next(e for e in read_po() if e["msgid"] == "")["msgstr"]


def translations(entry: dict) -> list[str]:
    if "msgid_plural" in entry:
        return [v for k, v in sorted(entry.items()) if k.startswith("msgstr[")]
    return [entry["msgstr"]]


PLACEHOLDER = re.compile(r"%\(\w+\)[sd]|%%|\{\w+\}")


# --- the catalogue ------------------------------------------------------------------------------


def test_the_catalogue_exists_with_a_russian_header():
    assert PO.is_file() and MO.is_file()
    head = header()
    assert "Language: ru" in head
    assert "charset=UTF-8" in head
    assert "nplurals=4;" in head.replace(" ", "")
    assert len(messages()) > 100


def test_every_entry_is_translated_and_none_is_fuzzy():
    untranslated = [e["msgid"] for e in messages() if not all(t.strip() for t in translations(e))]
    fuzzy = [e["msgid"] for e in read_po() if "fuzzy" in e.get("flags", ())]
    assert untranslated == []
    assert fuzzy == []


def test_plural_entries_fill_all_four_russian_forms():
    plural = [e for e in messages() if "msgid_plural" in e]
    assert plural, "the catalogue has plural entries (e.g. the application counts)"
    for entry in plural:
        assert len(translations(entry)) == 4, entry["msgid"]


def test_translations_keep_the_placeholders():
    for entry in messages():
        source = entry.get("msgid_plural", entry["msgid"])
        for text in translations(entry):
            assert sorted(PLACEHOLDER.findall(text)) == sorted(PLACEHOLDER.findall(source)), (
                entry["msgid"],
                text,
            )


def test_the_committed_mo_matches_the_po():
    """A stale django.mo (the .po edited but not recompiled) fails here."""
    with MO.open("rb") as handle:
        catalog = gettext.GNUTranslations(handle)._catalog
    expected: dict = {}
    for entry in messages():
        msgid = entry["msgid"]
        if "msgctxt" in entry:
            msgid = f"{entry['msgctxt']}\x04{msgid}"
        if "msgid_plural" in entry:
            for i, text in enumerate(translations(entry)):
                expected[(msgid, i)] = text
        else:
            expected[msgid] = entry["msgstr"]
    compiled = {k: v for k, v in catalog.items() if k != ""}
    assert compiled == expected


def test_russian_plural_forms_are_chosen_by_the_number():
    with translation.override("ru"):
        forms = {
            n: translation.ngettext("%(n)s application", "%(n)s applications", n) % {"n": n}
            for n in (1, 2, 5, 11, 21, 22, 25)
        }
    assert forms == {
        1: "1 заявка",
        2: "2 заявки",
        5: "5 заявок",
        11: "11 заявок",
        21: "21 заявка",
        22: "22 заявки",
        25: "25 заявок",
    }


# --- pages --------------------------------------------------------------------------------------


@pytest.fixture
def upcoming_game(db):
    return Game.objects.create(
        title="Весенний кубок",
        format=Game.Format.KINGOFHILL,
        starts_at=timezone.now() + timedelta(days=10),
    )


def page(client, url: str, **headers) -> str:
    response = client.get(url, **headers)
    assert response.status_code == 200, url
    return response.content.decode()


def test_russian_is_the_default_language():
    from config import settings as project_settings  # the real value, not the fixture's

    assert project_settings.LANGUAGE_CODE == "ru"
    assert [code for code, _name in settings.LANGUAGES] == ["ru", "en"]


@pytest.mark.django_db
def test_the_home_page_speaks_russian_by_default(client):
    html = page(client, "/")
    assert '<html lang="ru">' in html
    for text in HOME_RU:
        assert text in html
    assert "Join a team" not in html


@pytest.mark.django_db
def test_the_games_page_speaks_russian_by_default(client, upcoming_game):
    html = page(client, "/teams/games/")
    assert "<h1>Игры</h1>" in html
    assert "Весенний кубок" in html
    assert "Царь Горы" in html  # the format label
    assert "запланирована" in html  # the status label
    assert "scheduled" not in html.replace("status-scheduled", "")


@pytest.mark.django_db
def test_the_games_page_counts_applications_in_russian_for_an_organizer(client, upcoming_game):
    organizer = User.objects.create_user("org")
    organizer.groups.add(Group.objects.get(name="organizer"))
    client.force_login(organizer)
    html = page(client, "/teams/games/")
    assert "0 заявок" in html
    assert "Опубликовать игру" in html


@pytest.mark.django_db
def test_the_join_page_speaks_russian_by_default(client, upcoming_game):
    html = page(client, "/teams/join/")
    assert "<h1>Войти в команду</h1>" in html
    assert "Отсканируйте QR-код команды" in html
    assert "Scan the team" not in html


@pytest.mark.django_db
def test_the_empty_games_page_says_so_in_russian(client):
    assert "Запланированных игр нет." in page(client, "/teams/games/")


@pytest.mark.django_db
@pytest.mark.parametrize("url", ["/", "/teams/games/", "/teams/join/"])
def test_the_language_cookie_switches_to_english(client, upcoming_game, url):
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "en"
    html = page(client, url)
    assert '<html lang="en">' in html
    assert "Games" in html and "Join a team" in html
    assert "Войти в команду" not in html


@pytest.mark.django_db
def test_accept_language_english_gives_english(client, upcoming_game):
    home = page(client, "/", HTTP_ACCEPT_LANGUAGE="en-GB,en;q=0.9")
    for text in HOME_EN:
        assert text in home
    games = page(client, "/teams/games/", HTTP_ACCEPT_LANGUAGE="en")
    assert "scheduled" in games.replace("status-scheduled", "")
    assert "King of the Hill" in games
    join = page(client, "/teams/join/", HTTP_ACCEPT_LANGUAGE="en")
    assert "Scan the team's QR code" in join or "Scan the team&#x27;s QR code" in join


@pytest.mark.django_db
def test_accept_language_russian_stays_russian(client):
    html = page(client, "/", HTTP_ACCEPT_LANGUAGE="ru-RU,ru;q=0.9,en;q=0.5")
    for text in HOME_RU:
        assert text in html


@pytest.mark.django_db
def test_the_language_switch_in_the_header_sets_the_cookie(client):
    response = client.post("/i18n/setlang/", {"language": "en", "next": "/"})
    assert response.status_code == 302
    assert response.cookies[settings.LANGUAGE_COOKIE_NAME].value == "en"
    assert "Join a team" in page(client, "/")
    client.post("/i18n/setlang/", {"language": "ru", "next": "/"})
    assert "Войти в команду" in page(client, "/")


# --- no English left on a Russian page ----------------------------------------------------------


class _PageText(HTMLParser):
    """What a reader sees or hears: text outside scripts and styles, plus the labels and hints
    that live in attributes."""

    ATTRIBUTES = ("aria-label", "placeholder", "title", "alt")

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self._skip = 0

    def handle_starttag(self, tag, attrs):
        if tag in ("script", "style"):
            self._skip += 1
        for name, value in attrs:
            if name in self.ATTRIBUTES and value:
                self.parts.append(value)

    def handle_endtag(self, tag):
        if tag in ("script", "style") and self._skip:
            self._skip -= 1

    def handle_data(self, data):
        if not self._skip:
            self.parts.append(data)


def page_text(html: str) -> str:
    parser = _PageText()
    parser.feed(html)
    return re.sub(r"\s+", " ", " ".join(parser.parts))


class SourcePattern:
    """A source text as a whole-word pattern that first looks for its longest literal piece:
    the leading look-behind keeps ``re`` from skipping ahead to a literal, so a bare search
    tries every position of the page, and about two thousand of them per page made the walk
    of the main pages take half a minute. A text without that piece cannot match the pattern."""

    def __init__(self, pieces: list[str]):
        self.needle = max(pieces, key=len)
        body = r".+?".join(re.escape(piece) for piece in pieces)
        self.pattern = re.compile(r"(?<![\w])" + body + r"(?![\w])")

    def search(self, text: str) -> re.Match | None:
        return self.pattern.search(text) if self.needle in text else None


def source_patterns() -> list[tuple[str, SourcePattern]]:
    """Each catalogue source text whose Russian differs, as a whole-word, case-sensitive pattern
    (placeholders match anything)."""
    patterns = []
    for entry in messages():
        for source in filter(None, (entry["msgid"], entry.get("msgid_plural"))):
            if source in translations(entry) or len(re.findall(r"[A-Za-z]", source)) < 2:
                continue
            pieces = re.split(r"%\(\w+\)[sdr]|%[sd]|\{\w*\}", source)
            patterns.append((source, SourcePattern([re.sub(r"\s+", " ", p) for p in pieces])))
    return patterns


def without_data(text: str) -> str:
    """The page text less what is data, not interface: addresses (``…/teams/j/…``) and the
    usernames (the demo's ``organizer`` and ``host`` logins)."""
    text = re.sub(r"\S*/\S*", " ", text)
    for username in User.objects.values_list("username", flat=True):
        text = re.sub(rf"(?<![\w]){re.escape(username)}(?![\w])", " ", text)
    return text


def test_the_pattern_finds_an_english_source_text_left_on_a_page():
    patterns = dict(source_patterns())
    assert patterns["Join a team"].search("Меню: Join a team, Игры")
    assert not patterns["Join a team"].search("Войти в команду")
    assert patterns["%(n)s application"].search("Всего 3 application")


def test_no_russian_main_page_shows_an_english_source_text_of_the_catalogue(demo_site):
    patterns = source_patterns()
    leftovers = []
    for who, urls in main_pages(demo_site).items():
        client = open_as(who, demo_site)
        for url in urls:
            response = client.get(url)
            assert response.status_code == 200, (who, url, response.status_code)
            text = without_data(page_text(response.content.decode()))
            leftovers += [f"{url}: {source!r}" for source, pattern in patterns
                          if pattern.search(text)]
    assert leftovers == [], "\n".join(leftovers)


# --- the admin's sentences around a model's name ------------------------------------------------


@pytest.mark.django_db
def test_the_admin_names_a_feminine_model_without_breaking_russian_grammar(client, upcoming_game):
    admin_user = User.objects.create_superuser("boss", "boss@example.org", "pw-boss-2026")
    client.force_login(admin_user)
    changelist = page_text(page(client, "/admin/teams/game/"))
    assert "Выберите, что изменить: игра" in changelist
    assert "Добавить: игра" in changelist
    assert "Выберите игра" not in changelist and "Добавить игра" not in changelist
    add_form = page_text(page(client, "/admin/teams/game/add/"))
    assert "Добавление: игра" in add_form
    team = Team.objects.create(name="Совы", name_key="совы", captain=admin_user)
    response = client.post(f"/admin/teams/team/{team.pk}/change/", {
        "name": "Совы", "captain": admin_user.pk,
        "members-TOTAL_FORMS": "0", "members-INITIAL_FORMS": "0",
        "members-MIN_NUM_FORMS": "0", "members-MAX_NUM_FORMS": "1000"}, follow=True)
    text = page_text(response.content.decode())
    assert re.search(r"Объект «\s*Совы\s*» \(команда\) изменён\.", text)
    assert "был успешно изменен" not in text


@pytest.mark.django_db
def test_an_application_is_rejected_in_the_feminine_and_a_protest_in_the_masculine():
    from rating.models import Protest
    from teams.models import Application

    with translation.override("ru"):
        assert str(Application.Status.REJECTED.label) == "отклонена"
        assert str(Protest.Status.REJECTED.label) == "отклонён"


@pytest.mark.django_db
def test_the_check_would_catch_the_home_page_left_in_english():
    client = Client(HTTP_ACCEPT_LANGUAGE="en")
    text = without_data(page_text(page(client, "/")))
    found = {source for source, pattern in source_patterns() if pattern.search(text)}
    assert {"Join a team", "Games", "Seasons", "Log in", "Sign up"} <= found
