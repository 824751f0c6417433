"""The GoRoD set-up page: the codes-text parser, creating a GoRoD, adding and deleting levels,
routes, and who may use it when."""

from __future__ import annotations

import pytest
from django.test import Client
from django.utils import timezone

from gorod import services
from gorod.codes import level_codes_from_dict
from gorod.forms import CodesTextError, parse_codes_text
from gorod.models import GorodGame, Level, Route
from teams.models import Game
from tests.gorod.fixtures_live import *  # noqa: F403 (the fixtures)
from tests.gorod.fixtures_live import make_teams

# --- the codes text ---------------------------------------------------------------------------


@pytest.mark.parametrize("text, spec", [
    ("G1R1D", {"code": "G1R1D"}),
    ("  G1R1D  \n\n", {"code": "G1R1D"}),
    ("G1R1D\nG1R2D", {"sectors": [{"name": "1", "codes": ["G1R1D"]},
                                  {"name": "2", "codes": ["G1R2D"]}]}),
    ("\n  \nG1R1D\n\n\nG1R2D\n", {"sectors": [{"name": "1", "codes": ["G1R1D"]},
                                             {"name": "2", "codes": ["G1R2D"]}]}),
    ("north: G1R11D | G1R12D\nsouth: G1R2D",
     {"sectors": [{"name": "north", "codes": ["G1R11D", "G1R12D"]},
                  {"name": "south", "codes": ["G1R2D"]}]}),
    ("мост : ОРЕХ|g1r5d", {"sectors": [{"name": "мост", "codes": ["ОРЕХ", "g1r5d"]}]}),
    ("G1R1D\nnorth: A | B", {"sectors": [{"name": "1", "codes": ["G1R1D"]},
                                         {"name": "north", "codes": ["A", "B"]}]}),
    ("A | B", {"sectors": [{"name": "1", "codes": ["A", "B"]}]}),
    ("bridge: G1R1D", {"sectors": [{"name": "bridge", "codes": ["G1R1D"]}]}),
])
def test_the_codes_text_parses_to_a_spec_the_engine_takes(text, spec):
    assert parse_codes_text(text) == spec
    assert level_codes_from_dict(spec).sectors  # accepted as it is


@pytest.mark.parametrize("text, message", [
    ("", "at least one code"),
    ("  \n \n", "at least one code"),
    ("G1R1D\n: G1R2D", "Line 2: the sector name"),
    ("north:", "Line 1: no code after “north:”"),
    ("north: | ", "Line 1: no code"),
    ("north: A || B", "Line 1: an empty alternative"),
    ("A |", "Line 1: an empty alternative"),
    ("north: A\n\nnorth: B", "Line 3: the sector “north” is already named"),
    ("2: A\nB", "Line 2: the sector “2”"),
])
def test_a_bad_codes_text_says_which_line_and_why(text, message):
    with pytest.raises(CodesTextError) as caught:
        parse_codes_text(text)
    assert message in str(caught.value)


# --- level_delete -------------------------------------------------------------------------------


@pytest.mark.django_db
def test_deleting_a_level_moves_the_later_ones_up_and_drops_routes(gorod, organizer):
    services.routes_generate(actor=organizer, game=gorod, seed=1)
    first = Level.objects.get(gorod=gorod, label="1")
    services.level_delete(actor=organizer, game=gorod, level=first)
    assert [(lv.order, lv.label) for lv in Level.objects.filter(gorod=gorod)] == [(1, "2"), (2, "3")]
    assert not Route.objects.filter(gorod=gorod).exists()
    services.level_add(actor=organizer, game=gorod, label="4", codes={"code": "X"})  # order 3 free
    assert Level.objects.filter(gorod=gorod).count() == 3


@pytest.mark.django_db
def test_deleting_a_level_is_refused_after_the_start_or_for_others(running, organizer, outsider,
                                                                   gorod):
    level = Level.objects.filter(gorod=running).first()
    with pytest.raises(services.DomainError, match="before the start"):
        services.level_delete(actor=organizer, game=running, level=level)
    with pytest.raises(services.NotAllowed):
        services.level_delete(actor=outsider, game=running, level=level)
    assert Level.objects.filter(gorod=running).count() == 3


@pytest.mark.django_db
def test_deleting_another_games_level_is_refused(gorod, organizer):
    other_game = Game.objects.create(title="other", format=Game.Format.GOROD,
                                     starts_at=timezone.now(), created_by=organizer)
    other = services.gorod_create(actor=organizer, game=other_game,
                                  levels=[{"codes": {"code": "Y"}}])
    with pytest.raises(services.DomainError, match="no such level"):
        services.level_delete(actor=organizer, game=gorod, level=other.levels.get().pk)


# --- the pages --------------------------------------------------------------------------------

pytestmark = pytest.mark.django_db


def login(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def messages_of(response) -> list[str]:
    return [str(m) for m in response.context["messages"]]


def test_the_setup_pages_are_for_organizers_only(scheduled, gorod, outsider):
    assert Client().get("/gorod/setup/").status_code == 302
    client = login(outsider)
    assert client.get("/gorod/setup/").status_code == 403
    assert client.post("/gorod/setup/", {"game": scheduled.pk}).status_code == 403
    assert client.get(f"/gorod/{gorod.pk}/setup/").status_code == 403
    assert client.post(f"/gorod/{gorod.pk}/setup/",
                       {"action": "add", "codes": "X"}).status_code == 403
    assert Level.objects.filter(gorod=gorod).count() == 3


def test_an_organizer_creates_the_gorod_of_a_scheduled_game(scheduled, organizer):
    client = login(organizer)
    page = client.get("/gorod/setup/").content.decode()
    assert scheduled.title in page
    response = client.post("/gorod/setup/", {
        "game": scheduled.pk, "hint1_min": "20", "hint2_min": "40", "sliv_penalty_min": "30",
        "max_duration_h": "12", "max_wrong": "5", "wrong_window_s": "30"})
    assert response.status_code == 302 and response.url == f"/gorod/{scheduled.pk}/setup/"
    gg = GorodGame.objects.get(pk=scheduled.pk)
    assert (gg.hint_offsets_min, gg.sliv_penalty_min, gg.max_duration_h, gg.max_wrong,
            gg.wrong_window_s) == ([20.0, 40.0], 30, 12, 5, 30)
    assert gg.status == GorodGame.Status.SETUP and not gg.levels.exists()
    # Once set up, the game is no longer offered; the set-up list links it.
    again = client.get("/gorod/setup/").content.decode()
    assert f'value="{scheduled.pk}"' not in again and f"/gorod/{scheduled.pk}/setup/" in again


def test_creating_with_bad_input_is_a_message(scheduled, organizer):
    client = login(organizer)
    response = client.post("/gorod/setup/", {
        "game": scheduled.pk, "hint1_min": "50", "hint2_min": "10", "sliv_penalty_min": "15",
        "max_duration_h": "24", "max_wrong": "0", "wrong_window_s": "60"})
    assert response.status_code == 200
    text = " ".join(messages_of(response))
    assert "Hint 2 comes after hint 1" in text and "Wrong codes allowed per window" in text
    response = client.post("/gorod/setup/", {"game": "999999", "hint1_min": "1"})
    assert response.status_code == 200 and messages_of(response)
    assert not GorodGame.objects.exists()


def test_the_service_refusal_is_a_message(scheduled, organizer, monkeypatch):
    def refuse(**kwargs):
        raise services.DomainError("This game's GoRoD is already set up.")

    monkeypatch.setattr(services, "gorod_create", refuse)
    response = login(organizer).post("/gorod/setup/", {
        "game": scheduled.pk, "hint1_min": "25", "hint2_min": "50", "sliv_penalty_min": "15",
        "max_duration_h": "24", "max_wrong": "10", "wrong_window_s": "60"})
    assert response.status_code == 200
    assert messages_of(response) == ["This game's GoRoD is already set up."]


@pytest.fixture
def empty(scheduled, organizer) -> GorodGame:
    return services.gorod_create(actor=organizer, game=scheduled)


def add(client, gg, **fields):
    data = {"action": "add", "label": "", "task": "", "hint1": "", "hint2": "",
            "duration_min": "70", "codes": ""}
    data.update(fields)
    return client.post(f"/gorod/{gg.pk}/setup/", data, follow=True)


def test_an_organizer_adds_levels_and_sees_them_in_order(empty, organizer):
    client = login(organizer)
    response = add(client, empty, task="Find the bridge", hint1="Near water", hint2="Red",
                   duration_min="45", codes="G1R1D")
    assert "Level 1 is added." in messages_of(response)
    add(client, empty, label="final", task="Two sectors",
        codes="north: G1R11D | G1R12D\n\nsouth: G1R2D")
    levels = list(Level.objects.filter(gorod=empty))
    assert [(lv.order, lv.label, lv.duration_min) for lv in levels] == [(1, "1", 45), (2, "final", 70)]
    assert levels[0].codes == {"code": "G1R1D"} and levels[0].hint2 == "Red"
    assert levels[1].codes["sectors"][0] == {"name": "north", "codes": ["G1R11D", "G1R12D"]}
    html = client.get(f"/gorod/{empty.pk}/setup/").content.decode()
    assert html.index("Find the bridge") < html.index("Two sectors")
    assert "north: G1R11D | G1R12D; south: G1R2D" in html
    assert f'href="/gorod/{empty.pk}/"' in html  # on to the organizer screen to start


@pytest.mark.parametrize("fields, message", [
    ({"codes": ""}, "Codes: This field is required."),
    ({"codes": "north: A ||"}, "Codes: Line 1: an empty alternative"),
    ({"codes": "X", "duration_min": "0"}, "time limit is more than 0"),
    ({"codes": "X", "duration_min": "many"}, "Time limit (min): Enter a number."),
    ({"codes": "X", "label": "1"}, "Level 1 already exists."),
    ({"codes": "X", "label": "x" * 41}, "Level id"),
])
def test_bad_level_input_is_a_message_and_the_form_keeps_it(empty, organizer, fields, message):
    client = login(organizer)
    add(client, empty, codes="FIRST")
    response = add(client, empty, task="kept task", **fields)
    assert response.status_code == 200
    assert any(message in m for m in messages_of(response)), messages_of(response)
    assert "kept task" in response.content.decode()
    assert Level.objects.filter(gorod=empty).count() == 1


def test_deleting_a_level_from_the_page(empty, organizer):
    client = login(organizer)
    add(client, empty, codes="A")
    add(client, empty, codes="B")
    first = Level.objects.get(gorod=empty, label="1")
    response = client.post(f"/gorod/{empty.pk}/setup/", {"action": "delete", "level": first.pk},
                           follow=True)
    assert "The level is deleted." in messages_of(response)
    assert list(Level.objects.filter(gorod=empty).values_list("order", "label")) == [(1, "2")]
    # A level without an id gets the next number not taken (not "2" again).
    add(client, empty, codes="C")
    assert list(Level.objects.filter(gorod=empty).values_list("order", "label")) == [
        (1, "2"), (2, "3")]
    for bad in (first.pk, "nope", ""):
        response = client.post(f"/gorod/{empty.pk}/setup/", {"action": "delete", "level": bad})
        assert response.status_code == 200
        assert messages_of(response) == ["There is no such level in this game."]


def test_routes_are_generated_and_each_teams_route_shown(gorod, organizer):
    client = login(organizer)
    assert "Routes need levels" not in client.get(f"/gorod/{gorod.pk}/setup/").content.decode()
    response = client.post(f"/gorod/{gorod.pk}/setup/", {"action": "routes"}, follow=True)
    assert "Routes are generated." in messages_of(response)
    html = response.content.decode()
    for name in ("Alpha", "Beta", "Gamma"):
        assert name in html
    assert html.count(" → ") >= 6  # three teams, three levels each
    assert Route.objects.filter(gorod=gorod).count() == 3
    # A level added afterwards makes the routes out of date, and the page says so.
    add(client, gorod, codes="G1R4D")
    assert 'id="routes-stale"' in client.get(f"/gorod/{gorod.pk}/setup/").content.decode()


def test_routes_without_teams_is_a_message(scheduled, organizer):
    gg = services.gorod_create(actor=organizer, game=scheduled, levels=[{"codes": {"code": "A"}}])
    response = login(organizer).post(f"/gorod/{gg.pk}/setup/", {"action": "routes"})
    assert response.status_code == 200
    assert messages_of(response) == ["Routes need levels and approved teams."]


def test_the_setup_page_is_refused_once_the_game_started(running, organizer):
    client = login(organizer)
    for response in (client.get(f"/gorod/{running.pk}/setup/"),
                     client.post(f"/gorod/{running.pk}/setup/", {"action": "add", "codes": "X"})):
        assert response.status_code == 302 and response.url == f"/gorod/{running.pk}/"
    assert Level.objects.filter(gorod=running).count() == 3
    assert b"no longer be changed" in client.get(f"/gorod/{running.pk}/setup/", follow=True).content
    assert client.get("/gorod/404404/setup/").status_code == 404


def test_the_index_and_organizer_screen_link_the_setup(gorod, running, organizer, outsider):
    assert "/gorod/setup/" in login(organizer).get("/gorod/").content.decode()
    assert "/gorod/setup/" not in login(outsider).get("/gorod/").content.decode()


def test_the_organizer_screen_links_the_setup_only_in_setup(empty, organizer):
    client = login(organizer)
    assert f"/gorod/{empty.pk}/setup/" in client.get(f"/gorod/{empty.pk}/").content.decode()
    make_teams(empty.game, ["Solo"], organizer)
    services.level_add(actor=organizer, game=empty, codes={"code": "A"})
    services.game_start(actor=organizer, game=empty)
    assert f"/gorod/{empty.pk}/setup/" not in client.get(f"/gorod/{empty.pk}/").content.decode()
