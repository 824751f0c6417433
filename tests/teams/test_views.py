"""Pages render, forms show errors as messages (never a traceback), hostile names are escaped."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from teams import services
from teams.models import Application, Game, Team
from tests.teams.conftest import apply, login

pytestmark = pytest.mark.django_db


def _text(response) -> str:
    return response.content.decode()


def test_captain_creates_team_from_page(alpha):
    client = login(alpha)
    response = client.post("/teams/", {"name": "  Гамма "}, follow=True)
    assert response.status_code == 200
    assert Team.objects.get(captain=alpha).name == "Гамма"


@pytest.mark.parametrize(
    "name", ["", "   ", "x" * 1000], ids=["empty", "whitespace", "1000 characters"]
)
def test_bad_team_name_shows_a_message(alpha, name):
    response = login(alpha).post("/teams/", {"name": name}, follow=True)
    assert response.status_code == 200
    assert 'class="messages"' in _text(response)
    assert not Team.objects.exists()


def test_duplicate_name_shows_a_message(alpha, team_beta):
    response = login(alpha).post("/teams/", {"name": "БЕТА"}, follow=True)
    assert response.status_code == 200 and 'class="messages"' in _text(response)


def test_team_page_shows_roster_applications_notices_ledger(approved_alpha, alpha):
    page = _text(login(alpha).get(f"/teams/{approved_alpha.team_id}/"))
    assert "Ann Приватов" in page and "ann@example.org" in page
    assert approved_alpha.join_pin in page and approved_alpha.join_token in page
    assert "400" in page  # the ledger line
    assert 'class="notice-application_approved"' in page


def test_add_member_with_bad_email_shows_a_message(team_alpha, alpha):
    response = login(alpha).post(
        f"/teams/{team_alpha.pk}/members/add/", {"nickname": "Zed", "email": "bad"}, follow=True
    )
    assert response.status_code == 200 and 'class="messages"' in _text(response)
    assert not team_alpha.members.filter(nickname="Zed").exists()


def test_member_edit_page(team_alpha, alpha):
    member = team_alpha.members.get(nickname="Ann")
    client = login(alpha)
    assert client.get(f"/teams/{team_alpha.pk}/members/{member.pk}/").status_code == 200
    response = client.post(
        f"/teams/{team_alpha.pk}/members/{member.pk}/",
        {"nickname": "Bob", "full_name": "", "phone": "", "email": ""},
        follow=True,
    )
    assert 'class="messages"' in _text(response)  # Bob is taken


def test_apply_form_refuses_small_roster_with_a_message(koth_game, team_alpha, alpha):
    member = team_alpha.members.first()
    response = login(alpha).post(
        f"/teams/{team_alpha.pk}/apply/{koth_game.pk}/", {"members": [member.pk]}, follow=True
    )
    assert response.status_code == 200
    assert 'class="messages"' in _text(response)
    assert not Application.objects.exists()


def test_apply_form_accepts_a_good_roster(game, team_alpha, alpha):
    ids = list(team_alpha.members.values_list("pk", flat=True))
    response = login(alpha).post(f"/teams/{team_alpha.pk}/apply/{game.pk}/", {"members": ids})
    assert response.status_code == 302
    assert Application.objects.get().members.count() == 3


def test_organizer_publishes_game_and_sees_warnings(organizer):
    starts = (timezone.localtime() + timedelta(days=1)).strftime("%Y-%m-%dT%H:%M")
    response = login(organizer).post(
        "/teams/games/",
        {"title": "Скоро", "format": "gorod", "starts_at": starts, "fee": 400, "rated": "on"},
        follow=True,
    )
    page = _text(response)
    assert response.status_code == 200
    assert Game.objects.get().title == "Скоро"
    assert 'class="warning"' in page and "few-applications" in page


def test_game_form_errors_are_messages(organizer):
    response = login(organizer).post("/teams/games/", {"title": "", "format": "x"})
    assert response.status_code == 200 and 'class="messages"' in _text(response)


def test_organizer_approves_marks_paid_and_revokes_from_page(game, team_alpha, organizer):
    application = apply(team_alpha, game)
    client = login(organizer)
    client.post(f"/teams/applications/{application.pk}/approve/")
    application.refresh_from_db()
    assert application.status == "approved"
    client.post(f"/teams/applications/{application.pk}/paid/")
    old_version = Application.objects.get(pk=application.pk).join_version
    client.post(f"/teams/applications/{application.pk}/revoke/")
    application.refresh_from_db()
    assert application.paid and application.join_version == old_version + 1
    page = _text(client.get(f"/teams/games/{game.pk}/"))
    assert application.join_pin in page


def test_cancel_from_page_notifies_team_page(approved_alpha, organizer, alpha):
    login(organizer).post(f"/teams/games/{approved_alpha.game_id}/cancel/", {"reason": "мало"})
    page = _text(login(alpha).get(f"/teams/{approved_alpha.team_id}/"))
    assert 'class="notice-game_cancelled"' in page and "мало" in page


def test_join_sheet_one_page_per_team(approved_alpha, approved_beta, organizer):
    page = _text(login(organizer).get(f"/teams/games/{approved_alpha.game_id}/sheet/"))
    assert page.count('class="join-page"') == 2
    assert page.count("<svg") == 2
    assert approved_alpha.join_pin in page and approved_beta.join_pin in page
    assert f"/teams/j/{approved_alpha.join_token}/" in page


def test_the_printed_qr_code_scales_to_the_paper_instead_of_being_cropped(approved_alpha, organizer):
    page = _text(login(organizer).get(f"/teams/games/{approved_alpha.game_id}/sheet/"))
    svg = re.search(r"<svg[^>]*>", page).group(0)
    assert "viewBox=" in svg
    assert "width=" not in svg and "height=" not in svg


def test_bad_join_link_shows_a_message():
    response = Client().get("/teams/j/not-a-token/", follow=True)
    assert response.status_code == 200 and 'class="messages"' in _text(response)


def test_hostile_team_name_is_escaped_everywhere(alpha, organizer, game):
    team = services.team_create(captain=alpha, name="<script>alert(1)</script>")
    for nick in ("<b>x</b>", "y"):
        services.member_create(team=team, nickname=nick)
    application = services.application_approve(application=apply(team, game), actor=organizer)
    phone = Client()
    phone.post(f"/teams/j/{application.join_token}/")
    pages = [
        Client().get(f"/teams/j/{application.join_token}/"),
        login(alpha).get(f"/teams/{team.pk}/"),
        Client().get("/teams/all/"),
        login(organizer).get(f"/teams/games/{game.pk}/"),
        login(organizer).get(f"/teams/games/{game.pk}/sheet/"),
        phone.get(f"/teams/play/{game.pk}/"),
        phone.get("/teams/join/"),
    ]
    for response in pages:
        body = _text(response)
        assert response.status_code == 200
        assert "<script>alert(1)</script>" not in body
        assert "&lt;script&gt;alert(1)&lt;/script&gt;" in body
        assert "<b>x</b>" not in body


def test_unicode_team_name_shown_on_landing(approved_alpha):
    phone = Client()
    response = phone.post(f"/teams/j/{approved_alpha.join_token}/", follow=True)
    assert "Альфа" in _text(response)


def test_a_joined_phone_is_led_to_its_games_live_page(koth_game, team_alpha, organizer):
    application = services.application_approve(application=apply(team_alpha, koth_game), actor=organizer)
    response = Client().post(f"/teams/j/{application.join_token}/", follow=True)
    assert f'href="/koth/{koth_game.pk}/play/"' in _text(response)


def test_a_format_without_live_pages_has_no_game_link():
    assert Game(pk=1, format="quiz").team_page_url() is None
    assert Game(pk=1, format=Game.Format.GOROD).team_page_url() == "/gorod/1/play/"


def test_leave_unbinds(approved_alpha):
    phone = Client()
    phone.post(f"/teams/j/{approved_alpha.join_token}/")
    phone.post(f"/teams/play/{approved_alpha.game_id}/leave/")
    assert phone.get(f"/teams/play/{approved_alpha.game_id}/").status_code == 302


def _finished_game(organizer, days_ago: int, title: str) -> Game:
    game = services.game_create(
        actor=organizer,
        title=title,
        game_format="gorod",
        starts_at=timezone.now() - timedelta(days=days_ago),
    )
    Game.objects.filter(pk=game.pk).update(status=Game.Status.FINISHED)
    return game


def _played(team, game) -> None:
    application = Application.objects.create(game=game, team=team, status="approved")
    application.members.set(team.members.all())


def test_the_fee_ledger_on_the_team_page_shows_a_benefit_used_and_one_lapsed(
    organizer, team_alpha, game, alpha
):
    long_ago = _finished_game(organizer, 60, "Давняя победа")
    for days, title in ((50, "Первая"), (45, "Вторая"), (40, "Третья")):
        _finished_game(organizer, days, title)
    recent = _finished_game(organizer, 7, "Прошлая игра")
    _played(team_alpha, recent)
    services.benefits_grant(long_ago, {team_alpha.pk: 1})
    services.benefits_grant(recent, {team_alpha.pk: 2})
    services.application_approve(application=apply(team_alpha, game), actor=organizer)
    page = " ".join(_text(login(alpha).get(f"/teams/{team_alpha.pk}/")).split())
    # the 2nd place at the last game halves the fee of the next one
    assert "−50% (Прошлая игра)" in page and "200 ₽" in page
    assert "Place 2 at «Прошлая игра»: −50% — used at «Ночной ГоРоД»" in page
    # the 1st place long ago was not used within three games and is gone
    assert "Place 1 at «Давняя победа»: −100% — lapsed (not used within three games)" in page
    # unpaid: 400 for the recent game plus 200 for the next
    assert "Total still due" in page and "600 ₽" in page


def test_the_organizer_is_warned_with_four_applications_but_not_with_five(
    game, organizer, alpha
):
    teams = []
    for i in range(5):
        team = services.team_create(captain=alpha, name=f"Команда {i}")
        for nick in ("Раз", "Два"):
            services.member_create(team=team, nickname=nick)
        teams.append(team)
    client = login(organizer)
    for team in teams[:4]:
        apply(team, game)
    page = _text(client.get(f"/teams/games/{game.pk}/"))
    assert "Only 4 applications: with 4 or fewer the game may be cancelled (8.3)." in page
    apply(teams[4], game)
    assert "few-applications" not in _text(client.get(f"/teams/games/{game.pk}/"))


def test_cancelling_tells_every_applicant_on_its_team_page_and_nobody_else(
    game, approved_alpha, team_beta, organizer, alpha, beta, outsider
):
    apply(team_beta, game)  # pending still counts as applied
    idle = services.team_create(captain=outsider, name="Не подавали")
    response = login(organizer).post(
        f"/teams/games/{game.pk}/cancel/", {"reason": "Мало команд"}, follow=True
    )
    assert "The game is cancelled; the teams that applied are notified." in _text(response)
    for captain, team in ((alpha, approved_alpha.team), (beta, team_beta)):
        page = _text(login(captain).get(f"/teams/{team.pk}/"))
        assert "The game «Ночной ГоРоД» is cancelled." in page
        assert "<q>Мало команд</q>" in page
    assert "is cancelled" not in _text(login(outsider).get(f"/teams/{idle.pk}/"))


def test_cancelling_twice_is_refused_with_a_message(game, organizer):
    client = login(organizer)
    client.post(f"/teams/games/{game.pk}/cancel/")
    response = client.post(f"/teams/games/{game.pk}/cancel/", follow=True)
    assert "The game is already cancelled." in _text(response)


# --- the join link asks before it binds ----------------------------------------------------


def test_opening_a_join_link_shows_the_team_and_a_button_but_binds_nothing(approved_alpha):
    phone = Client()
    response = phone.get(f"/teams/j/{approved_alpha.join_token}/")
    page = _text(response)
    assert response.status_code == 200
    assert "Альфа" in page and approved_alpha.game.title in page
    assert re.search(r'<form method="post">\s*<input type="hidden" name="csrfmiddlewaretoken"', page)
    assert phone.get(f"/teams/play/{approved_alpha.game_id}/").status_code == 302  # not joined


def test_the_join_button_binds_the_phone(approved_alpha):
    phone = Client(enforce_csrf_checks=True)
    page = _text(phone.get(f"/teams/j/{approved_alpha.join_token}/"))
    csrf = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page).group(1)
    response = phone.post(f"/teams/j/{approved_alpha.join_token}/", {"csrfmiddlewaretoken": csrf})
    assert response["Location"] == f"/teams/play/{approved_alpha.game_id}/"
    assert phone.get(f"/teams/play/{approved_alpha.game_id}/").status_code == 200


def test_a_join_post_from_another_site_is_refused_by_csrf(approved_alpha):
    phone = Client(enforce_csrf_checks=True)
    response = phone.post(f"/teams/j/{approved_alpha.join_token}/")
    assert response.status_code == 403
    assert phone.get(f"/teams/play/{approved_alpha.game_id}/").status_code == 302


def test_a_phone_of_another_team_is_told_it_would_switch(approved_alpha, approved_beta):
    phone = Client()
    phone.post(f"/teams/j/{approved_beta.join_token}/")
    page = _text(phone.get(f"/teams/j/{approved_alpha.join_token}/"))
    assert "This phone plays for Бета in this game now" in page


def test_a_joined_phone_opening_its_link_again_goes_straight_to_the_game(approved_alpha):
    phone = Client()
    phone.post(f"/teams/j/{approved_alpha.join_token}/")
    response = phone.get(f"/teams/j/{approved_alpha.join_token}/")
    assert response["Location"] == f"/teams/play/{approved_alpha.game_id}/"


def test_the_organizer_sees_a_pin_pause_and_lifts_it(approved_alpha, organizer, settings):
    settings.PIN_GAME_BUDGET_PER_HOUR = 2
    game = approved_alpha.game
    wrong = "000000" if approved_alpha.join_pin != "000000" else "111111"
    client = login(organizer)
    for i in range(2):
        Client(REMOTE_ADDR=f"198.51.100.{i + 1}").post("/teams/join/", {"game": game.pk, "pin": wrong})
    page = _text(client.get(f"/teams/games/{game.pk}/"))
    assert 'class="warning pin-paused"' in page and "(2 of 2;" in page
    assert f'action="/teams/games/{game.pk}/pin-budget/lift/"' in page
    page = _text(client.post(f"/teams/games/{game.pk}/pin-budget/lift/", follow=True))
    assert "PIN joins are open again." in page and "pin-paused" not in page
    phone = Client(REMOTE_ADDR="192.0.2.1")
    response = phone.post("/teams/join/", {"game": game.pk, "pin": approved_alpha.join_pin})
    assert response["Location"] == f"/teams/play/{game.pk}/"


def test_the_organizer_sees_how_much_of_the_budget_is_used(approved_alpha, organizer):
    wrong = "000000" if approved_alpha.join_pin != "000000" else "111111"
    Client(REMOTE_ADDR="198.51.100.1").post("/teams/join/", {"game": approved_alpha.game_id,
                                                            "pin": wrong})
    page = _text(login(organizer).get(f"/teams/games/{approved_alpha.game_id}/"))
    assert "Wrong PINs this hour: 1 of 100." in page


def test_a_game_in_year_1_from_the_page_form_is_a_message_not_a_500(organizer):
    response = login(organizer).post("/teams/games/", {
        "title": "Ночь", "format": "gorod", "starts_at": "0001-01-01T00:00", "fee": 400},
        follow=True)
    assert response.status_code == 200
    assert "between the years 2000 and 2100" in _text(response)
    assert not Game.objects.exists()


def test_a_pin_form_with_a_game_id_past_the_range_is_a_message(approved_alpha):
    response = Client().post("/teams/join/", {"game": str(2**64), "pin": "123456"}, follow=True)
    assert response.status_code == 200 and 'class="messages"' in _text(response)


def test_a_nul_in_a_plain_form_field_is_refused_before_the_database(organizer, game):
    response = login(organizer).post(f"/teams/games/{game.pk}/cancel/", {"reason": "a\x00b"})
    assert response.status_code == 400 and "NUL" in _text(response)
    assert Game.objects.get(pk=game.pk).status == Game.Status.SCHEDULED


def test_in_hall_mode_the_join_sheet_links_and_qr_codes_carry_the_laptops_lan_address(
        approved_alpha, organizer, settings):
    """The organizer prints the sheet on the laptop (127.0.0.1); phones scan the LAN address."""
    from teams.presentation import qr_svg

    settings.HALL, settings.HALL_ADDRESS, settings.PUBLIC_URL = True, "192.0.2.44", ""
    page = _text(login(organizer).get(f"/teams/games/{approved_alpha.game_id}/sheet/",
                                      SERVER_NAME="127.0.0.1", SERVER_PORT="8000"))
    url = f"http://192.0.2.44:8000/teams/j/{approved_alpha.join_token}/"
    assert url in page and "127.0.0.1" not in page
    assert str(qr_svg(url)) in page


def test_public_url_is_the_address_of_every_join_link_and_qr_code(approved_alpha, organizer,
                                                                  settings):
    from teams.presentation import qr_svg

    settings.PUBLIC_URL = "https://games.example.org"
    page = _text(login(organizer).get(f"/teams/games/{approved_alpha.game_id}/sheet/"))
    url = f"https://games.example.org/teams/j/{approved_alpha.join_token}/"
    assert url in page and "http://testserver" not in page
    assert str(qr_svg(url)) in page


def test_without_hall_mode_or_public_url_a_join_link_is_where_the_page_was_asked(
        approved_alpha, organizer):
    page = _text(login(organizer).get(f"/teams/games/{approved_alpha.game_id}/sheet/"))
    assert f"http://testserver/teams/j/{approved_alpha.join_token}/" in page
    assert "testserver/teams/join/" in page
