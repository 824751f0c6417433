"""The GoRoD set-up page: the codes-text parser, creating a GoRoD, adding and deleting levels,
routes, and who may use it when (its task images: ``test_setup_images``)."""

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
from tests.gorod.setup_pages import login, messages_of

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


SETTINGS = {"hint1_min": "25", "hint2_min": "50", "sliv_penalty_min": "15",
            "max_duration_h": "24", "max_wrong": "10", "wrong_window_s": "60"}

# --- the pages --------------------------------------------------------------------------------

pytestmark = pytest.mark.django_db


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
    assert messages_of(response) == [
        "The game engine refuses these settings: hint_offsets_min: the hint times must increase"]
    response = client.post("/gorod/setup/", {"game": "999999", "hint1_min": "1"})
    assert response.status_code == 200 and messages_of(response)
    response = client.post("/gorod/setup/", {**SETTINGS, "max_wrong": "many"})
    assert "Wrong codes allowed per window: Enter a whole number." in messages_of(response)
    assert not GorodGame.objects.exists()


def test_the_service_refusal_is_a_message(scheduled, organizer, monkeypatch):
    def refuse(**kwargs):
        raise services.DomainError("This game's GoRoD is already set up.")

    # A seam: the form offers only games not set up yet, so the service's refusal comes from a
    # race (another tab set it up between the form's check and the service); this stands for it.
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


def test_a_level_is_marked_photo_proof_on_the_set_up_page_and_unmarked_by_an_edit(
        empty, organizer):
    client = login(organizer)
    add(client, empty, task="Фонтан", codes="G1R1D", photo_proof="on")
    level = Level.objects.get(gorod=empty)
    assert level.photo_proof is True
    html = client.get(f"/gorod/{empty.pk}/setup/").content.decode()
    assert "level-photo" in html
    services.level_edit(actor=organizer, game=empty, level=level, photo_proof=False)
    level.refresh_from_db()
    assert level.photo_proof is False


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


# --- creating the night directly ----------------------------------------------------------------


def test_the_setup_page_publishes_a_new_gorod_game_and_its_night(organizer):
    client = login(organizer)
    assert 'id="gorod-create"' in client.get("/gorod/setup/").content.decode()
    response = client.post("/gorod/setup/", {
        **SETTINGS, "title": "Ночь у реки", "starts_at": "2026-12-19T22:00"})
    gg = GorodGame.objects.select_related("game").get()
    assert response.status_code == 302 and response.url == f"/gorod/{gg.pk}/setup/"
    game = gg.game
    assert (game.title, game.format, game.status, game.created_by) == (
        "Ночь у реки", Game.Format.GOROD, Game.Status.SCHEDULED, organizer)
    assert timezone.localtime(game.starts_at).strftime("%Y-%m-%d %H:%M") == "2026-12-19 22:00"
    assert gg.hint_offsets_min == [25, 50] and gg.status == GorodGame.Status.SETUP


def test_a_new_night_needs_a_title_and_a_start(organizer):
    client = login(organizer)
    response = client.post("/gorod/setup/", {**SETTINGS, "starts_at": "2026-12-19T22:00"})
    assert "Give the new game's title and start" in " ".join(messages_of(response))
    response = client.post("/gorod/setup/", {**SETTINGS, "title": "Ночь"})
    assert messages_of(response) == ["Give the night's start time."]
    response = client.post("/gorod/setup/", {**SETTINGS, "title": "Ночь",
                                             "starts_at": "tomorrow"})
    assert any("Start of the new game" in m for m in messages_of(response))
    assert not Game.objects.exists() and not GorodGame.objects.exists()


def test_a_refused_setting_publishes_no_game_either(organizer):
    with pytest.raises(services.DomainError, match="must increase"):
        services.gorod_create(actor=organizer, title="Ночь", starts_at=timezone.now(),
                              hint_offsets_min=[50, 25])
    assert not Game.objects.exists()


# --- settings the engine refuses ----------------------------------------------------------------


@pytest.mark.parametrize("change, message", [
    pytest.param({"hint_offsets_min": [50, 25]}, "must increase", id="hints out of order"),
    pytest.param({"hint_offsets_min": [-5, 25]}, "hint_offsets_min[0]", id="a negative hint"),
    pytest.param({"hint_offsets_min": [25, 25]}, "must increase", id="two hints at once"),
    pytest.param({"sliv_penalty_min": -1}, "sliv_penalty_min", id="a negative penalty"),
    pytest.param({"max_duration_h": 0}, "max_duration_h", id="a 0 h game"),
    pytest.param({"max_duration_h": 10**9}, "max_duration_h", id="a 10⁹ h game"),
    pytest.param({"max_duration_h": float("nan")}, "finite", id="not a number"),
    pytest.param({"max_wrong": 0}, "max_wrong", id="no wrong code allowed"),
    pytest.param({"wrong_window_s": 10**6}, "wrong_window_s", id="a window of days"),
])
def test_settings_the_engine_refuses_are_refused_by_the_setup(empty, organizer, change, message):
    settings = {"hint_offsets_min": [25, 50], "sliv_penalty_min": 15, "max_duration_h": 24,
                "max_wrong": 10, "wrong_window_s": 60}
    with pytest.raises(services.DomainError, match="engine refuses") as caught:
        services.settings_edit(actor=organizer, game=empty, **{**settings, **change})
    assert message in caught.value.message
    empty.refresh_from_db()
    assert (empty.hint_offsets_min, empty.max_duration_h) == ([25, 50], 24)


def test_the_settings_are_edited_until_the_start(empty, organizer, outsider):
    client = login(organizer)
    response = client.post(f"/gorod/{empty.pk}/setup/", {
        **SETTINGS, "action": "settings", "hint1_min": "20", "hint2_min": "40",
        "max_duration_h": "6"}, follow=True)
    assert "The settings are saved." in messages_of(response)
    empty.refresh_from_db()
    assert (empty.hint_offsets_min, empty.max_duration_h) == ([20, 40], 6)
    response = client.post(f"/gorod/{empty.pk}/setup/", {**SETTINGS, "action": "settings",
                                                          "sliv_penalty_min": "-15"})
    assert messages_of(response) == [
        "The game engine refuses these settings: sliv_penalty_min: -15.0 is outside [0, 1440]"]
    assert 'value="-15"' in response.content.decode()  # the typed value stays in the form
    with pytest.raises(services.NotAllowed):
        services.settings_edit(actor=outsider, game=empty, hint_offsets_min=[25, 50],
                               sliv_penalty_min=15, max_duration_h=24, max_wrong=10,
                               wrong_window_s=60)


def test_the_settings_cannot_change_after_the_start(running, organizer):
    with pytest.raises(services.DomainError, match="before the start"):
        services.settings_edit(actor=organizer, game=running, hint_offsets_min=[10, 20],
                               sliv_penalty_min=15, max_duration_h=24, max_wrong=10,
                               wrong_window_s=60)


# --- editing and moving levels --------------------------------------------------------------------


def test_a_level_is_edited_and_its_new_id_followed_by_the_routes(gorod, organizer):
    services.routes_generate(actor=organizer, game=gorod, seed=1)
    level = Level.objects.get(gorod=gorod, label="2")
    client = login(organizer)
    page = client.get(f"/gorod/{gorod.pk}/setup/?edit={level.pk}").content.decode()
    assert 'id="level-edit-form"' in page and "Find the tower" in page
    response = client.post(f"/gorod/{gorod.pk}/setup/", {
        "action": "edit", "level": level.pk, "edit-label": "tower", "edit-task": "Башня",
        "edit-hint1": "", "edit-hint2": "Old", "edit-duration_min": "50", "edit-danger": "3",
        "edit-codes": "north: G1R21D | G1R22D\nsouth: G1R23D"}, follow=True)
    assert "Level tower is saved." in messages_of(response)
    level.refresh_from_db()
    assert (level.label, level.task, level.hint1, level.duration_min, level.danger) == (
        "tower", "Башня", "", 50, 3)
    assert level.codes == {"sectors": [{"name": "north", "codes": ["G1R21D", "G1R22D"]},
                                       {"name": "south", "codes": ["G1R23D"]}]}
    for route in Route.objects.filter(gorod=gorod):
        assert sorted(route.levels) == ["1", "3", "tower"]


@pytest.mark.parametrize("fields, message", [
    ({"edit-codes": ""}, "Codes: This field is required."),
    ({"edit-label": "1"}, "Level 1 already exists."),
    ({"edit-duration_min": "-3"}, "time limit is more than 0"),
    ({"edit-danger": "9"}, "Danger grade"),
    ({"edit-codes": "gate (secret): X"}, "unknown kind “secret”"),
])
def test_a_bad_edit_is_a_message_and_changes_nothing(gorod, organizer, fields, message):
    level = Level.objects.get(gorod=gorod, label="2")
    data = {"action": "edit", "level": level.pk, "edit-label": "2", "edit-task": "changed",
            "edit-duration_min": "45", "edit-codes": "G1R2D", **fields}
    response = login(organizer).post(f"/gorod/{gorod.pk}/setup/", data)
    assert response.status_code == 200
    assert any(message in m for m in messages_of(response)), messages_of(response)
    assert 'id="level-edit-form"' in response.content.decode()
    assert Level.objects.get(pk=level.pk).task == "Find the tower"


def test_a_level_of_another_game_or_none_cannot_be_edited(gorod, organizer):
    other = services.gorod_create(actor=organizer, title="Другая", starts_at=timezone.now(),
                                  levels=[{"codes": {"code": "Y"}}])
    with pytest.raises(services.DomainError, match="no such level"):
        services.level_edit(actor=organizer, game=gorod, level=other.levels.get().pk, task="x")
    response = login(organizer).post(f"/gorod/{gorod.pk}/setup/", {
        "action": "edit", "level": "abc"})
    assert messages_of(response) == ["There is no such level in this game."]


def test_levels_move_up_and_down_and_the_linear_order_follows(gorod, organizer):
    client = login(organizer)
    third = Level.objects.get(gorod=gorod, label="3")
    response = client.post(f"/gorod/{gorod.pk}/setup/", {"action": "move", "level": third.pk,
                                                         "to": "1"}, follow=True)
    assert "The level is moved." in messages_of(response)
    assert list(Level.objects.filter(gorod=gorod).values_list("label", flat=True)) == [
        "3", "1", "2"]
    services.level_move(actor=organizer, game=gorod, level=third, to=3)
    assert list(Level.objects.filter(gorod=gorod).values_list("order", "label")) == [
        (1, "1"), (2, "2"), (3, "3")]
    for bad in (0, 4, "2"):
        with pytest.raises(services.DomainError, match="from 1 to 3"):
            services.level_move(actor=organizer, game=gorod, level=third, to=bad)
    response = client.post(f"/gorod/{gorod.pk}/setup/", {"action": "move", "level": third.pk,
                                                         "to": "x"})
    assert messages_of(response) == ["Choose where the level moves."]


def test_levels_cannot_be_edited_or_moved_after_the_start(running, organizer):
    level = Level.objects.get(gorod=running, label="1")
    with pytest.raises(services.DomainError, match="before the start"):
        services.level_edit(actor=organizer, game=running, level=level, task="new")
    with pytest.raises(services.DomainError, match="before the start"):
        services.level_move(actor=organizer, game=running, level=level, to=2)


def test_the_danger_grade_is_one_to_four(empty, organizer):
    level = services.level_add(actor=organizer, game=empty, codes={"code": "A"}, danger=4)
    assert level.get_danger_display().startswith("4 — at least two people")
    for bad in (0, 5, "2"):
        with pytest.raises(services.DomainError, match="1, 2, 3 or 4"):
            services.level_add(actor=organizer, game=empty, codes={"code": "B"}, danger=bad)
    client = login(organizer)
    add(client, empty, codes="C", danger="2")
    html = client.get(f"/gorod/{empty.pk}/setup/").content.decode()
    assert Level.objects.get(gorod=empty, label="2").danger == 2
    assert 'title="2 — be careful: a potential danger"' in html


# --- personal codes and digits ------------------------------------------------------------------


def test_personal_digits_are_typed_per_team_and_close_the_level(gorod, organizer, alpha):
    client = login(organizer)
    add(client, gorod, label="tower", codes="tower (digit): G1R5D\ngate (personal): R7D")
    level = Level.objects.get(gorod=gorod, label="tower")
    page = client.get(f"/gorod/{gorod.pk}/setup/").content.decode()
    assert "Level tower has no personal code or digit for: Alpha, Beta, Gamma." in page
    prefix = f"personal-{level.pk}"
    response = client.post(f"/gorod/{gorod.pk}/setup/", {
        "action": "personal", "level": level.pk,
        f"{prefix}-s0_t0": "4", f"{prefix}-s0_t1": "7", f"{prefix}-s0_t2": "9",
        f"{prefix}-s1_t0": "G1A", f"{prefix}-s1_t1": "G1B", f"{prefix}-s1_t2": " "}, follow=True)
    assert "The personal codes of level tower are saved." in messages_of(response)
    level.refresh_from_db()
    tower, gate = level.codes["sectors"]
    assert tower["personal"] == {"Alpha": "4", "Beta": "7", "Gamma": "9"}
    assert gate["personal"] == {"Alpha": "G1A", "Beta": "G1B"}
    html = response.content.decode()
    assert "no personal code or digit for: Gamma." in html and 'value="G1B"' in html
    spec = level_codes_from_dict(level.codes)
    assert [s.accepted("Alpha") for s in spec.sectors] == [("G1R5D4",), ("G1AR7D",)]
    # Editing the codes text keeps the parts typed in the table.
    client.post(f"/gorod/{gorod.pk}/setup/", {
        "action": "edit", "level": level.pk, "edit-label": "tower", "edit-duration_min": "70",
        "edit-codes": "tower (digit): G1R6D\ngate (personal): R7D"})
    level.refresh_from_db()
    assert level.codes["sectors"][0] == {"name": "tower", "kind": "personal_digit",
                                         "codes": ["G1R6D"],
                                         "personal": {"Alpha": "4", "Beta": "7", "Gamma": "9"}}


@pytest.mark.parametrize("text, spec", [
    ("gate (personal): R7D", {"sectors": [{"name": "gate", "kind": "personal", "codes": ["R7D"],
                                           "personal": {}}]}),
    ("gate (личный):", {"sectors": [{"name": "gate", "kind": "personal", "codes": [],
                                     "personal": {}}]}),
    ("башня (цифра): G1R5D | G1R6D", {"sectors": [
        {"name": "башня", "kind": "personal_digit", "codes": ["G1R5D", "G1R6D"], "personal": {}}]}),
])
def test_personal_kinds_are_named_in_the_codes_text(text, spec):
    from gorod.forms import codes_to_text

    assert parse_codes_text(text) == spec
    assert parse_codes_text(codes_to_text(spec)) == spec


@pytest.mark.parametrize("text, message", [
    ("tower (digit):", "Line 1: no code after “tower:”"),
    ("(digit): G1R1D", "Line 1: the sector name before “:” is empty"),
    ("x (other): A", "Line 1: unknown kind “other”"),
])
def test_a_bad_personal_line_says_why(text, message):
    with pytest.raises(CodesTextError, match=message):
        parse_codes_text(text)


# --- warnings before the start ------------------------------------------------------------------


def test_the_setup_page_warns_about_what_will_go_wrong(gorod, organizer, alpha):
    client = login(organizer)
    html = client.get(f"/gorod/{gorod.pk}/setup/").content.decode()
    assert html.count('class="gorod-warning"') == 1  # level 2 is a 45 min level
    assert "Level 2: hint 2 is due at 50 min, not before the level&#x27;s 45 min limit" in html
    services.level_edit(actor=organizer, game=gorod, level=Level.objects.get(label="2"),
                        duration_min=60)
    assert 'id="no-warnings"' in client.get(f"/gorod/{gorod.pk}/setup/").content.decode()
    add(client, gorod, label="short", duration_min="40", codes="п1к1в")  # G1R1D on ЙЦУКЕН
    Route.objects.create(gorod=gorod, application=alpha, levels=["1", "2", "2"])
    html = client.get(f"/gorod/{gorod.pk}/setup/").content.decode()
    for text in (
        "Level short: hint 2 is due at 50 min, not before the level&#x27;s 40 min limit",
        "The code G1R1D closes more than one place: levels 1, short.",
        "The route of Alpha does not visit every level once. Missing: 3, short. "
        "Unknown or repeated: 2.",
        "The team Beta has no route.",
    ):
        assert text in html, text
    assert 'id="no-warnings"' not in html
