"""Registration and phone joining in real Chromium over a real daphne server.

A captain logs in, creates a team, adds players and applies for a King of the Hill game; the
organizer sees the few-applications warning, approves the team and opens the printable QR sheet
(screenshot in artifacts/). One phone opens the join link, which names the team and asks (a
phone that only opens it is not joined), and taps the one button; another types the PIN on the
join page; both land on "you are now playing for" with a link to the game's live page. The organizer
revokes the link and both phones are out; the old link no longer works.

The server speaks Russian (the site's default), so expected texts are taken from the Russian
catalogue with ``gettext`` rather than typed in: the test checks what the page says, not how a
translator phrased it.
"""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.utils import timezone, translation
from django.utils.translation import gettext
from playwright.sync_api import expect

from tests.conftest import artifacts_dir

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]
WAIT = 15000
PHONE = {"width": 390, "height": 844}
TEAM = "Северный ветер"
PLAYERS = [("Ёжик", "Иван Приватов", "+79001234567", "ivan@example.org"),
           ("Лиса", "Анна Тайнова", "+79007654321", "anna@example.org"),
           ("Сова", "Пётр Скрытов", "+79000000000", "petr@example.org")]


def ru(message: str) -> str:
    with translation.override("ru"):
        return gettext(message)


def make_user(username: str, group: str | None = None):
    from django.contrib.auth.models import Group, User

    user = User.objects.create_user(username=username, password="pw-" + username)
    if group:
        # get_or_create: transactional tests flush the groups the roles migration made.
        user.groups.add(Group.objects.get_or_create(name=group)[0])
    return user


def log_in(page, base: str, username: str, next_path: str) -> None:
    page.goto(f"{base}/accounts/login/?next={next_path}")
    page.fill("input[name=username]", username)
    page.fill("input[name=password]", "pw-" + username)
    page.locator("form.card button[type=submit]").click()
    expect(page).to_have_url(re.compile(re.escape(next_path) + "$"))


@pytest.fixture
def koth_game(asgi_server):
    from core.roles import ORGANIZER
    from kingofhill import services as koth_services
    from teams import services

    organizer = make_user("org-e2e", ORGANIZER)
    make_user("captain-e2e")
    game = services.game_create(actor=organizer, title="Царь Горы: весна",
                                game_format="kingofhill",
                                starts_at=timezone.now() + timedelta(days=10))
    # The live King of the Hill state, so the phone's "open the game" link leads somewhere.
    koth_services.koth_create(actor=organizer, game=game, summit=3, main_questions=10,
                              reserve_questions=0)
    return game


def message(page):
    return page.locator("ul.messages")


@pytest.mark.slow
def test_a_captain_registers_and_phones_join_by_qr_link_and_pin_until_the_link_is_revoked(
    asgi_server, koth_game, new_page
):
    base, game = asgi_server, koth_game

    # --- the captain: team, players, application ------------------------------------------
    captain = new_page()
    log_in(captain, base, "captain-e2e", "/teams/")
    captain.fill("input[name=name]", TEAM)
    captain.get_by_role("button", name=ru("Create")).click()
    expect(captain.locator("h1")).to_have_text(TEAM)
    expect(message(captain)).to_contain_text(ru("The team is created."))
    team_url = captain.url
    for nickname, full_name, phone, email in PLAYERS:
        captain.fill("input[name=nickname]", nickname)
        captain.fill("input[name=full_name]", full_name)
        captain.fill("input[name=phone]", phone)
        captain.fill("input[name=email]", email)
        captain.get_by_role("button", name=ru("Add"), exact=True).click()
        expect(message(captain)).to_contain_text(ru("The member is added."))
    roster = captain.locator("section").filter(has=captain.locator("h2", has_text=ru("Roster")))
    for nickname, full_name, phone, _email in PLAYERS:
        expect(roster.locator("tr", has_text=nickname)).to_contain_text(full_name)
        expect(roster.locator("tr", has_text=nickname)).to_contain_text(phone)

    captain.locator("li", has_text=game.title).get_by_role("link", name=ru("Apply")).click()
    expect(captain.locator("h1")).to_have_text(f"{TEAM} → {game.title}")
    # two players are too few for King of the Hill: the page says so and keeps the form
    captain.get_by_label(PLAYERS[0][0]).check()
    captain.get_by_label(PLAYERS[1][0]).check()
    captain.get_by_role("button", name=ru("Apply")).click()
    expect(message(captain)).to_contain_text(
        ru("A team plays this game with {low} to {high} members; the roster has {size}.").format(
            low=3, high=8, size=2))
    for nickname, *_private in PLAYERS:
        captain.get_by_label(nickname).check()
    captain.get_by_role("button", name=ru("Apply")).click()
    expect(message(captain)).to_contain_text(ru("The application is sent."))
    application_card = captain.locator("li.card", has_text=game.title)
    expect(application_card.locator(".status-pending")).to_be_visible()

    # --- the organizer: warning, approval, the QR sheet ----------------------------------
    organizer = new_page()
    log_in(organizer, base, "org-e2e", f"/teams/games/{game.pk}/")
    expect(organizer.locator(".few-applications")).to_be_visible()
    row = organizer.locator("tbody tr", has_text=TEAM)
    # the organizer's list shows nicknames only; private data stays on the team page
    expect(row).to_contain_text("Ёжик")
    expect(row).not_to_contain_text(PLAYERS[0][2])
    row.get_by_role("button", name=ru("Approve")).click()
    expect(row.locator(".status-approved")).to_be_visible()
    pin = row.locator("code.pin").inner_text().strip()
    assert re.fullmatch(r"\d{6}", pin)

    organizer.get_by_role("link", name=ru("Print join QR codes")).click()
    sheet = organizer.locator("section.join-page")
    expect(sheet).to_have_count(1)
    expect(sheet.locator("h1")).to_have_text(TEAM)
    expect(sheet.locator(".qr svg")).to_be_visible()
    expect(sheet.locator(".pin.big")).to_have_text(pin)
    join_link = sheet.locator("p.link").inner_text().strip()
    assert join_link.startswith(f"{base}/teams/j/")
    organizer.screenshot(path=str(artifacts_dir() / "teams-join-sheet.png"), full_page=True)

    # --- phone 1 opens the link (what the QR code holds): it asks first, one tap joins ------
    phone1 = new_page(viewport=PHONE)
    phone1.goto(join_link)
    expect(phone1).to_have_url(join_link)
    expect(phone1.locator(".join-confirm .team-name")).to_have_text(TEAM)
    expect(phone1.locator(".join-confirm")).to_contain_text(game.title)
    phone1.screenshot(path=str(artifacts_dir() / "teams-join-confirm.png"))
    # merely opening the link joined nothing
    peek = new_page(viewport=PHONE)
    peek.goto(join_link)
    peek.goto(f"{base}/teams/play/{game.pk}/")
    expect(peek).to_have_url(f"{base}/teams/join/")
    phone1.get_by_role("button", name=ru("Join this team")).click()
    expect(phone1).to_have_url(f"{base}/teams/play/{game.pk}/")
    expect(phone1.locator(".playing")).to_contain_text(ru("You are now playing for"))
    expect(phone1.locator(".team-name")).to_have_text(TEAM)
    expect(phone1.locator(".playing")).not_to_contain_text(PLAYERS[0][1])
    live = phone1.locator("a.play-link")
    expect(live).to_have_attribute("href", f"/koth/{game.pk}/play/")
    live.click()
    expect(phone1).to_have_url(f"{base}/koth/{game.pk}/play/")
    expect(phone1.locator("#me-team")).to_have_text(TEAM)

    # --- phone 2 types the PIN: a wrong one first -----------------------------------------
    phone2 = new_page(viewport=PHONE)
    phone2.goto(f"{base}/teams/join/")
    phone2.locator("select[name=game]").select_option(label=game.title)
    phone2.fill("input[name=pin]", "000000" if pin != "000000" else "111111")
    phone2.get_by_role("button", name=ru("Join"), exact=True).click()
    expect(message(phone2)).to_contain_text(ru("Wrong PIN for this game."))
    phone2.locator("select[name=game]").select_option(label=game.title)
    phone2.fill("input[name=pin]", f"{pin[:3]} {pin[3:]}")  # as read aloud, with a space
    phone2.get_by_role("button", name=ru("Join"), exact=True).click()
    expect(phone2).to_have_url(f"{base}/teams/play/{game.pk}/")
    expect(phone2.locator(".team-name")).to_have_text(TEAM)

    # --- the organizer revokes the link: both phones are out, the old link is dead -------
    organizer.goto(f"{base}/teams/games/{game.pk}/")
    row = organizer.locator("tbody tr", has_text=TEAM)
    row.get_by_role("button", name=ru("new link and PIN")).click()
    expect(message(organizer)).to_contain_text(TEAM)
    new_pin = row.locator("code.pin").inner_text().strip()
    assert re.fullmatch(r"\d{6}", new_pin) and new_pin != pin

    # Phone 1's live page hears it on its socket (closed with 4403) and leaves by itself;
    # only then is it driven again (a goto would race with that reload).
    expect(phone1).to_have_url(re.compile(rf"{re.escape(base)}/teams/join/"))
    for phone in (phone1, phone2):
        phone.goto(f"{base}/teams/play/{game.pk}/")
        expect(phone).to_have_url(f"{base}/teams/join/")
        expect(message(phone)).to_contain_text(
            ru("This phone is not joined to a team for this game."))
    phone1.goto(f"{base}/koth/{game.pk}/play/")
    expect(phone1.locator("#me-team")).to_have_count(0)
    phone1.goto(join_link)  # the old link no longer even asks
    expect(phone1).to_have_url(f"{base}/teams/join/")
    expect(message(phone1)).to_contain_text(
        ru("This join link is not valid (it may have been replaced). Ask your captain."))

    # the captain's page tells the team why its phones were logged out
    captain.goto(team_url)
    expect(captain.locator(".notice-join_revoked")).to_contain_text(game.title)
    expect(captain.locator(".join-secret code.pin")).to_have_text(new_pin)
