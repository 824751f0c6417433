"""A test run of a GoRoD scenario before the night: the copy with its test teams and speeded-up
clock, its reset and deletion, and that nothing of it reaches the results, the season or a
public list."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.test import Client

from core.errors import DomainError
from core.models import AuditEntry
from gorod import rules, selectors, services
from gorod.models import CodeAttempt, GorodGame, Level, Message, Pause, Route, Ruling, TaskImage
from live.models import LiveStream
from rating import services as rating_services
from rating.models import GameResult, Season
from teams.models import Application, Game, Team
from tests.gorod.fixtures_live import *  # noqa: F403 (the fixtures)
from tests.gorod.fixtures_live import T0, minutes
from tests.gorod.test_api import logged_in, phone
from tests.images import PNG

pytestmark = pytest.mark.django_db


def api(game, action: str) -> str:
    return f"/gorod/api/games/{game.pk}/{action}/"


@pytest.fixture
def run(gorod, organizer) -> GorodGame:
    """A ×10 test run of the fixture's game (three levels: 70, 45 and 70 min) with two test
    teams, made at T0."""
    return services.test_run_create(actor=organizer, game=gorod, factor=10, teams=2, now=T0)


def team_me(gg: GorodGame, entry: Application) -> dict:
    return selectors.read_state(gg, kind="team", application_id=entry.pk)["state"]["me"]


# --- the copy ---------------------------------------------------------------------------------


def test_a_test_run_copies_the_levels_and_settings_with_every_span_of_the_clock_divided(
        gorod, run):
    assert run.game.title == "Test: ГоРоД, декабрь"
    assert run.game.test_of_id == gorod.pk and not run.game.rated and run.game.fee == 0
    assert run.status == GorodGame.Status.SETUP and run.clock_factor == 10
    copied = list(Level.objects.filter(gorod=run).order_by("order"))
    source = list(Level.objects.filter(gorod=gorod).order_by("order"))
    assert [(lv.label, lv.task, lv.codes) for lv in copied] == [
        (lv.label, lv.task, lv.codes) for lv in source]
    assert [lv.duration_min for lv in copied] == [7.0, 4.5, 7.0]
    assert run.hint_offsets_min == [2.5, 5.0]
    assert run.sliv_penalty_min == 1.5 and run.max_duration_h == 2.4
    # The source is untouched.
    gorod.refresh_from_db()
    assert gorod.hint_offsets_min == [25, 50] and source[0].duration_min == 70


def test_a_test_run_has_its_own_test_teams_approved_with_a_join_link_and_pin(gorod, run,
                                                                            entries):
    teams = selectors.entries(run)
    assert [a.team.name for a in teams] == [f"Testers 1 · run {run.pk}",
                                            f"Testers 2 · run {run.pk}"]
    assert all(a.status == Application.Status.APPROVED and a.join_token and len(a.join_pin) == 6
               for a in teams)
    assert all(a.team.test_game_id == run.pk for a in teams)
    # The source's own teams do not play the test run.
    assert not Application.objects.filter(game_id=run.pk, team__in=[e.team for e in entries])


def test_a_test_run_copies_the_task_images_and_makes_routes_for_its_teams(gorod, organizer):
    services.image_add(actor=organizer, game=gorod, name="bridge.png", data=PNG)
    services.level_edit(actor=organizer, game=gorod, level=gorod.levels.get(label="1"),
                        images=["bridge.png"])
    services.routes_generate(actor=organizer, game=gorod, seed=1)
    run = services.test_run_create(actor=organizer, game=gorod, factor=1, teams=3)
    assert list(TaskImage.objects.filter(gorod=run).values_list("name", flat=True)) == [
        "bridge.png"]
    assert run.levels.get(label="1").images == ["bridge.png"]
    routes = {r.application_id: sorted(r.levels) for r in Route.objects.filter(gorod=run)}
    assert set(routes) == {a.pk for a in selectors.entries(run)}
    assert all(levels == ["1", "2", "3"] for levels in routes.values())


def test_on_a_ten_times_faster_clock_hints_come_at_2_5_and_5_min_and_the_level_fails_at_7(
        run, organizer):
    services.game_start(actor=organizer, game=run, now=T0)
    tester = selectors.entries(run)[0]
    level = team_me(run, tester)["level"]
    assert level["hints"] == []
    assert level["next_hint_at"] == selectors.iso(minutes(2.5))
    assert level["fail_at"] == selectors.iso(minutes(7))
    services.game_tick(game=run, now=minutes(5.01))
    assert [h["n"] for h in team_me(run, tester)["level"]["hints"]] == [1, 2]
    services.game_tick(game=run, now=minutes(7.01))
    me = team_me(run, tester)
    assert me["level"]["label"] == "2" and me["failed_levels"] == 1
    assert me["failed_penalty_s"] == 90  # 15 min a tenth: 1.5 min


def test_a_real_time_test_run_keeps_the_night_s_minutes(gorod, organizer):
    run = services.test_run_create(actor=organizer, game=gorod, factor=1, teams=1)
    assert [lv.duration_min for lv in run.levels.order_by("order")] == [70, 45, 70]
    assert run.hint_offsets_min == [25, 50] and run.sliv_penalty_min == 15


def test_speeding_up_is_one_pure_rule_that_refuses_a_factor_out_of_range():
    speeded = rules.speed_up(factor=60, hint_offsets_min=[25, 50], sliv_penalty_min=15,
                             max_duration_h=24, durations_min=[70], checkin_every_min=15)
    assert speeded.durations_min == [70 / 60] and speeded.checkin_every_min == 1
    for factor in (0, 121, 2.5, True):
        with pytest.raises(ValueError):
            rules.speed_up(factor=factor, hint_offsets_min=[25], sliv_penalty_min=15,
                           max_duration_h=24, durations_min=[70])


@pytest.mark.parametrize(("body", "says"), [
    ({"factor": 0}, "speed-up is a whole number from 1 to 120"),
    ({"factor": 121}, "speed-up is a whole number from 1 to 120"),
    ({"teams": 0}, "from 1 to 20 test teams"),
    ({"teams": 21}, "from 1 to 20 test teams"),
    ({"factor": "fast"}, "valid integer"),
])
def test_a_bad_speed_up_or_team_count_is_a_400_detail_and_nothing_is_made(gorod, organizer,
                                                                          body, says):
    before = Game.objects.count(), Team.objects.count()
    answer = logged_in(organizer).post(api(gorod, "test-runs"), body,
                                       content_type="application/json")
    assert answer.status_code == 400 and says in str(answer.json()["detail"])
    assert (Game.objects.count(), Team.objects.count()) == before


def test_the_api_makes_a_test_run_and_answers_its_teams_pins(gorod, organizer):
    answer = logged_in(organizer).post(api(gorod, "test-runs"), {"factor": 30, "teams": 3},
                                       content_type="application/json")
    assert answer.status_code == 201, answer.json()
    body = answer.json()
    run = GorodGame.objects.get(pk=body["id"])
    assert body["factor"] == 30 and run.clock_factor == 30 and len(body["teams"]) == 3
    assert {t["pin"] for t in body["teams"]} == set(
        Application.objects.filter(game_id=run.pk).values_list("join_pin", flat=True))
    entry = AuditEntry.objects.get(game_id=gorod.pk, action="gorod.test_run")
    assert entry.after == {"test_run": run.pk, "factor": 30, "teams": 3}


def test_a_started_game_or_a_test_run_itself_is_not_copied(gorod, run, organizer):
    with pytest.raises(DomainError, match="already"):
        services.test_run_create(actor=organizer, game=run)
    services.game_start(actor=organizer, game=gorod, now=T0)
    answer = logged_in(organizer).post(api(gorod, "test-runs"), {},
                                       content_type="application/json")
    assert answer.status_code == 400
    assert "before the night" in answer.json()["detail"]


def test_a_game_without_levels_is_not_copied(scheduled, entries, organizer):
    empty = services.gorod_create(actor=organizer, game=scheduled)
    with pytest.raises(DomainError, match="at least one level"):
        services.test_run_create(actor=organizer, game=empty)


def test_only_organizers_make_reset_or_delete_a_test_run(gorod, run, outsider):
    tester = selectors.entries(run)[0]
    for client in (Client(), logged_in(outsider), phone(tester)):
        assert client.post(api(gorod, "test-runs"), {}).status_code == 403
        assert client.post(api(run, "test-run/reset")).status_code == 403
        assert client.delete(api(run, "test-run")).status_code == 403
    assert GorodGame.objects.filter(pk=run.pk).exists()


# --- testers play it ---------------------------------------------------------------------------


def test_a_tester_s_phone_joins_by_pin_and_plays_the_test_run(run, organizer):
    tester = selectors.entries(run)[0]
    client = Client()
    joined = client.post(f"/teams/api/games/{run.pk}/join/", {"pin": tester.join_pin},
                         content_type="application/json")
    assert joined.status_code == 200, joined.json()
    services.game_start(actor=organizer, game=run)
    code = client.post(api(run, "code"), {"text": "G1R1D"}, content_type="application/json")
    assert code.status_code == 200 and code.json()["closed"]


# --- reset ------------------------------------------------------------------------------------


def played(run, organizer) -> Application:
    """The test run started at T0 and played a little: a code, a ruling, a pause, a message."""
    services.game_start(actor=organizer, game=run, now=T0)
    tester = selectors.entries(run)[0]
    services.code_submit(game=run, application=tester, text="G1R1D", now=minutes(1))
    services.code_submit(game=run, application=tester, text="nope", now=minutes(2))
    services.ruling_add(actor=organizer, game=run, application=tester,
                        type=Ruling.Type.PENALTY, minutes=5, reason="test", now=minutes(3))
    services.message_send(actor=organizer, game=run, text="Hello", now=minutes(3))
    services.game_pause(actor=organizer, game=run, reason="rain", now=minutes(4))
    return tester


def test_a_reset_clears_the_play_back_to_set_up_and_keeps_levels_and_teams(run, organizer):
    tester = played(run, organizer)
    versions = dict(LiveStream.objects.filter(game_id=run.pk).values_list("audience", "version"))
    answer = logged_in(organizer).post(api(run, "test-run/reset"))
    assert answer.status_code == 200, answer.json()
    assert answer.json()["state"]["game"]["status"] == "setup"
    run.refresh_from_db()
    assert run.status == GorodGame.Status.SETUP and run.started_at is None
    assert run.team_order == [] and run.pauses == [] and run.paused_at is None
    assert run.next_deadline is None and run.ended_at is None
    assert Game.objects.get(pk=run.pk).status == Game.Status.SCHEDULED
    for model in (CodeAttempt, Ruling, Message, Pause):
        assert not model.objects.filter(gorod=run).exists(), model
    assert run.levels.count() == 3 and len(selectors.entries(run)) == 2
    # Every screen is rebuilt at its next version: the phone shows the game not started.
    after = dict(LiveStream.objects.filter(game_id=run.pk).values_list("audience", "version"))
    assert all(after[audience] > version for audience, version in versions.items())
    assert team_me(run, tester)["level"] is None and team_me(run, tester)["attempts"] == []


def test_a_reset_is_audited_with_what_was_played(run, organizer):
    played(run, organizer)
    services.test_run_reset(actor=organizer, game=run)
    entry = AuditEntry.objects.get(game_id=run.pk, action="gorod.test_run_reset")
    assert entry.actor == organizer
    assert entry.before["status"] == "running" and entry.before["attempts"] == 2
    assert entry.before["rulings"] == 1 and entry.after == {"status": "setup"}


def test_a_reset_test_run_is_played_again_from_its_first_level(run, organizer):
    tester = played(run, organizer)
    services.test_run_reset(actor=organizer, game=run)
    services.game_start(actor=organizer, game=run, now=minutes(30))
    me = team_me(run, tester)
    assert me["level"]["label"] == "1" and me["penalty_s"] == 0
    assert me["level"]["fail_at"] == selectors.iso(minutes(37))
    result = services.code_submit(game=run, application=tester, text="G1R1D", now=minutes(31))
    assert result.attempt.closes_level


def test_a_real_game_is_neither_reset_nor_deleted_as_a_test_run(running, organizer, alpha):
    client = logged_in(organizer)
    for answer in (client.post(api(running, "test-run/reset")),
                   client.delete(api(running, "test-run"))):
        assert answer.status_code == 400
        assert answer.json()["detail"] == ("Only a test run can be reset or deleted; this is "
                                           "a real game.")
    running.refresh_from_db()
    assert running.status == GorodGame.Status.RUNNING


# --- delete -----------------------------------------------------------------------------------


def test_deleting_a_test_run_removes_it_with_its_test_teams_and_is_audited_on_its_source(
        gorod, run, organizer):
    played(run, organizer)
    team_ids = [a.team_id for a in selectors.entries(run)]
    answer = logged_in(organizer).delete(api(run, "test-run"))
    assert answer.status_code == 200 and answer.json() == {"deleted": run.pk, "source": gorod.pk}
    assert not Game.objects.filter(pk=run.pk).exists()
    assert not GorodGame.objects.filter(pk=run.pk).exists()
    assert not Team.objects.filter(pk__in=team_ids).exists()
    assert GorodGame.objects.filter(pk=gorod.pk).exists()
    entry = AuditEntry.objects.get(game_id=gorod.pk, action="gorod.test_run_delete")
    assert entry.before["test_run"] == run.pk and entry.after is None


def test_deleting_the_source_game_deletes_its_test_runs(gorod, run):
    Game.objects.filter(pk=gorod.pk).delete()
    assert not Game.objects.filter(pk=run.pk).exists()


# --- nothing reaches results, the season or a public list ---------------------------------------


def finished(run, organizer) -> GorodGame:
    services.game_start(actor=organizer, game=run, now=T0)
    tester = selectors.entries(run)[0]
    services.code_submit(game=run, application=tester, text="G1R1D", now=minutes(1))
    services.game_end(actor=organizer, game=run, now=minutes(2))
    run.refresh_from_db()
    return run


def test_a_finished_test_run_s_results_are_never_published(run, organizer):
    finished(run, organizer)
    with pytest.raises(DomainError, match="A test run has no results"):
        rating_services.results_publish(actor=organizer, game=Game.objects.get(pk=run.pk))
    assert not GameResult.objects.filter(game_id=run.pk).exists()


def test_a_test_run_never_joins_a_season(run, organizer):
    season = rating_services.season_create(actor=organizer, title="2026", format="gorod")
    with pytest.raises(DomainError, match="Only rated games"):
        rating_services.season_game_add(actor=organizer, season=season,
                                        game=Game.objects.get(pk=run.pk))
    assert not Season.objects.get(pk=season.pk).games.exists()


def test_a_test_run_s_scenario_is_never_published(run, organizer):
    finished(run, organizer)
    answer = logged_in(organizer).post(api(run, "scenario/publish"), {"on": True},
                                       content_type="application/json")
    assert answer.status_code == 400 and "never published" in answer.json()["detail"]
    run.refresh_from_db()
    assert not run.scenario_public


def test_a_test_run_and_its_teams_are_listed_on_no_public_page(gorod, run, organizer):
    title = run.game.title
    tester = selectors.entries(run)[0]
    for client in (Client(), logged_in(organizer)):
        for page in ("/", "/teams/games/", "/gorod/", "/teams/all/", "/teams/join/"):
            answer = client.get(page)
            assert answer.status_code == 200, page
            text = answer.content.decode()
            assert title not in text and tester.team.name not in text, page
        games = client.get("/teams/api/games/").json()
        assert run.pk not in [g["id"] for g in games]
    assert title not in logged_in(organizer).get("/gorod/setup/").content.decode()


def test_the_join_page_named_for_a_test_run_takes_its_pin(run):
    tester = selectors.entries(run)[0]
    client = Client()
    page = client.get(f"/teams/join/?game={run.pk}")
    assert run.game.title in page.content.decode()
    joined = client.post(f"/teams/join/?game={run.pk}", {"game": run.pk, "pin": tester.join_pin})
    assert joined.status_code == 302 and joined.url == f"/teams/play/{run.pk}/"


def test_the_source_s_set_up_page_lists_its_test_runs_with_their_pins(gorod, run, organizer):
    page = logged_in(organizer).get(f"/gorod/{gorod.pk}/setup/").content.decode()
    assert 'id="test-run"' in page and run.game.title in page
    for entry in selectors.entries(run):
        assert entry.join_pin in page and entry.team.name in page
    assert f"/gorod/api/games/{run.pk}/test-run/reset/" in page
    own = logged_in(organizer).get(f"/gorod/{run.pk}/setup/").content.decode()
    assert 'id="test-run-banner"' in own and 'id="test-run-form"' not in own
    screen = logged_in(organizer).get(f"/gorod/{run.pk}/").content.decode()
    assert 'id="test-run-banner"' in screen and f"/gorod/{gorod.pk}/setup/" in screen
    real = logged_in(organizer).get(f"/gorod/{gorod.pk}/").content.decode()
    assert 'id="test-run-banner"' not in real


def test_a_test_run_made_at_t0_starts_now_not_at_the_night_s_time(gorod, run):
    assert run.game.starts_at == T0
    assert abs(gorod.game.starts_at - run.game.starts_at) > timedelta(days=1)


def test_in_russian_the_run_is_named_test_its_testers_and_its_card_speak_russian(
        gorod, organizer, settings):
    from django.utils import translation

    settings.LANGUAGE_CODE = "ru"
    with translation.override("ru"):
        run = services.test_run_create(actor=organizer, game=gorod, factor=60, teams=1)
        with pytest.raises(DomainError, match="Сбросить или удалить можно только тестовый"):
            services.test_run_reset(actor=organizer, game=gorod)
    assert run.game.title == "Тест: ГоРоД, декабрь"
    assert selectors.entries(run)[0].team.name == f"Тестеры 1 · прогон {run.pk}"
    client = logged_in(organizer)
    page = client.get(f"/gorod/{gorod.pk}/setup/", HTTP_ACCEPT_LANGUAGE="ru").content.decode()
    assert "Тестовый прогон" in page and "в 60 раз быстрее" in page
    assert "Сделать тестовый прогон" in page and "Сбросить" in page


def test_a_test_run_s_join_sheets_send_phones_to_the_join_page_named_for_it(run, organizer):
    sheet = logged_in(organizer).get(f"/teams/games/{run.pk}/sheet/").content.decode()
    assert f"/teams/join/?game={run.pk}" in sheet
    for entry in selectors.entries(run):
        assert entry.join_pin in sheet


def test_an_empty_request_makes_a_ten_times_faster_run_with_two_teams(gorod, organizer):
    answer = logged_in(organizer).post(api(gorod, "test-runs"), {},
                                       content_type="application/json")
    assert answer.status_code == 201, answer.json()
    assert answer.json()["factor"] == 10 and len(answer.json()["teams"]) == 2
