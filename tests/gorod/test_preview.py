"""A preview of every GoRoD ruling and undo: the pure diff of two standings
(``gorod.rules.standings_diff``), the services that build it from the game's record without a
write (``rulings.ruling_preview``, ``rulings.undo_preview``) and their API."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from core.errors import NotAllowed
from gorod import rules, selectors, services
from gorod.models import Ruling
from rating import services as rating_services
from tests.gorod.fixtures_live import *  # noqa: F403 (the fixtures)
from tests.gorod.fixtures_live import minutes

WRITES = ("INSERT", "UPDATE", "DELETE")


def team(name, place, total_min):
    return SimpleNamespace(team=name, place=place, total_s=total_min * 60.0)


@pytest.mark.parametrize(("before", "after", "expected"), [
    # nothing moves
    ([team("A", 1, 30), team("B", 2, 40)], [team("A", 1, 30), team("B", 2, 40)], []),
    # a bonus: the total changes, the place stays
    ([team("A", 1, 30), team("B", 2, 40)], [team("A", 1, 30), team("B", 2, 35)],
     [("B", 2, 2, 2400.0, 2100.0)]),
    # a bonus that overtakes: both teams move, listed in the new order
    ([team("A", 1, 30), team("B", 2, 40)], [team("B", 1, 25), team("A", 2, 30)],
     [("B", 2, 1, 2400.0, 1500.0), ("A", 1, 2, 1800.0, 1800.0)]),
    # a disqualification: no place, and the team behind moves up
    ([team("A", 1, 30), team("B", 2, 40)], [team("B", 1, 40), team("A", None, 30)],
     [("B", 2, 1, 2400.0, 2400.0), ("A", 1, None, 1800.0, 1800.0)]),
    # an undone disqualification: the team gets its place back
    ([team("B", 1, 40), team("A", None, 30)], [team("A", 1, 30), team("B", 2, 40)],
     [("A", None, 1, 1800.0, 1800.0), ("B", 1, 2, 2400.0, 2400.0)]),
    # a change of seconds counts
    ([team("A", 1, 30)], [team("A", 1, 30.5)], [("A", 1, 1, 1800.0, 1830.0)]),
])
def test_the_diff_of_two_standings_lists_the_teams_whose_place_or_total_changes(
        before, after, expected):
    found = rules.standings_diff(before, after)
    assert [(c.team, c.place_before, c.place_after, c.total_before_s, c.total_after_s)
            for c in found] == expected


@pytest.mark.parametrize(("seconds", "text"), [
    (0, "0:00"), (59.9, "0:00"), (9660, "2:41"), (8760, "2:26"), (36000, "10:00"),
    (-900, "-0:15")])
def test_a_total_reads_as_hours_and_minutes(seconds, text):
    assert rules.clock_text(seconds) == text


def finish(game, entry, m):
    """The team closes the three levels, the last sector at minute ``m``."""
    for text, at in (("G1R1D", m - 3), ("G1R2D", m - 2), ("G1R31D", m - 1), ("G1R32D", m)):
        services.code_submit(game=game, application=entry, text=text, now=minutes(at))


@pytest.fixture
def night(running, alpha, beta):
    """Alpha finished in 0:31, Beta in 0:40 (Gamma still plays)."""
    finish(running, alpha, 31)
    finish(running, beta, 40)
    return running


def no_writes(captured) -> list[str]:
    return [q["sql"] for q in captured.captured_queries if q["sql"].lstrip().upper()
            .startswith(WRITES)]


def test_a_bonus_that_overtakes_is_previewed_as_the_ruling_then_does_and_nothing_is_written(
        night, organizer, beta):
    with CaptureQueriesContext(connection) as captured:
        preview = services.ruling_preview(actor=organizer, game=night, application=beta,
                                          type="bonus", minutes=15, now=minutes(50))
    assert no_writes(captured) == []
    assert not Ruling.objects.exists()
    assert preview.text == "Beta: place 2 → 1, total 0:40 → 0:25; Alpha: place 1 → 2"
    assert [t["team"] for t in preview.as_data()["teams"]] == ["Beta", "Alpha"]
    # The same engine: the ruling, once made, gives exactly the previewed standings.
    services.ruling_add(actor=organizer, game=night, application=beta, type="bonus", minutes=15,
                        now=minutes(50))
    stats = selectors.load_snapshot(night, minutes(50)).results.teams
    assert [(t.team, t.place, t.total_s) for t in stats][:2] == [
        ("Beta", 1, 1500.0), ("Alpha", 2, 1860.0)]


def test_an_undo_is_previewed_from_the_record_without_the_ruling_and_nothing_is_written(
        night, organizer, beta):
    ruling = services.ruling_add(actor=organizer, game=night, application=beta, type="bonus",
                                 minutes=15, now=minutes(50))
    with CaptureQueriesContext(connection) as captured:
        preview = services.undo_preview(actor=organizer, game=night, ruling=ruling.pk,
                                        now=minutes(51))
    assert no_writes(captured) == []
    assert preview.text == "Alpha: place 2 → 1; Beta: place 1 → 2, total 0:25 → 0:40"
    ruling.refresh_from_db()
    assert ruling.undone_at is None


def test_a_disqualification_preview_says_the_team_loses_its_place(night, organizer, alpha):
    preview = services.ruling_preview(actor=organizer, game=night, application=alpha,
                                      type="disqualify", now=minutes(50))
    assert preview.text == ("Beta: place 2 → 1; Gamma: place 3 → 2; "
                            "Alpha: place 1 → no place")


def test_a_total_alone_or_nothing_changing_is_said_so(night, organizer, beta, entries):
    gamma = entries[2]
    preview = services.ruling_preview(actor=organizer, game=night, application=beta,
                                      type="penalty", minutes=1, now=minutes(50))
    assert preview.text == "Beta: total 0:40 → 0:41"
    # A timeout from now on changes nobody's place or total now.
    quiet = services.ruling_preview(actor=organizer, game=night, application=gamma,
                                    type="timeout", minutes=5, now=minutes(50))
    assert quiet.text == "No team's place or total changes." and quiet.changes == ()


def test_a_preview_is_refused_as_the_ruling_would_be(night, organizer, outsider, alpha):
    with pytest.raises(services.DomainError, match="minutes"):
        services.ruling_preview(actor=organizer, game=night, application=alpha, type="penalty",
                                now=minutes(50))
    with pytest.raises(services.DomainError, match="no level 9"):
        services.ruling_preview(actor=organizer, game=night, application=alpha,
                                type="sliv", level="9", now=minutes(50))
    with pytest.raises(NotAllowed):
        services.ruling_preview(actor=outsider, game=night, application=alpha, type="bonus",
                                minutes=5, now=minutes(50))


def test_an_undo_the_engine_would_refuse_is_refused_by_its_preview(running, organizer, alpha):
    sliv = services.ruling_add(actor=organizer, game=running, application=alpha, type="sliv",
                               now=minutes(5))
    services.code_submit(game=running, application=alpha, text="G1R2D", now=minutes(10))
    with pytest.raises(services.DomainError, match="engine refuses"):
        services.undo_preview(actor=organizer, game=running, ruling=sliv, now=minutes(11))


def test_a_preview_after_published_results_says_they_become_out_of_date(
        night, organizer, beta):
    services.game_end(actor=organizer, game=night, now=minutes(60))
    rating_services.results_publish(actor=organizer, game=night.game)
    preview = services.ruling_preview(actor=organizer, game=night, application=beta,
                                      type="bonus", minutes=15, now=minutes(70))
    assert preview.results_published
    assert preview.text.endswith("must publish them again.")


def test_the_api_answers_the_preview_and_bad_input_with_a_detail(live, organizer, alpha):
    client = Client()
    client.force_login(organizer)
    base = f"/gorod/api/games/{live.pk}/rulings/"
    ok = client.post(base + "preview/", {"application": alpha.pk, "type": "penalty",
                                         "minutes": 10}, content_type="application/json")
    assert ok.status_code == 200, ok.json()
    body = ok.json()
    # Three teams still at 0:00 ranked by registration: Alpha's penalty sends it last.
    assert [(t["team"], t["place_before"], t["place_after"], t["total_after"])
            for t in body["teams"]] == [("Beta", 2, 1, "0:00"), ("Gamma", 3, 2, "0:00"),
                                        ("Alpha", 1, 3, "0:10")]
    assert "Alpha: place 1 → 3, total 0:00 → 0:10" in body["text"]
    assert not Ruling.objects.exists()
    bad = client.post(base + "preview/", {"application": alpha.pk, "type": "penalty"},
                      content_type="application/json")
    assert bad.status_code == 400 and "minutes" in bad.json()["detail"]
    ruling = services.ruling_add(actor=organizer, game=live, application=alpha, type="penalty",
                                 minutes=10)
    undo = client.post(f"{base}{ruling.pk}/undo/preview/")
    assert undo.status_code == 200 and "total 0:10 → 0:00" in undo.json()["text"]
    edit = client.post(f"{base}{ruling.pk}/edit/preview/", {"minutes": 25},
                       content_type="application/json")
    assert edit.status_code == 200 and "total 0:10 → 0:25" in edit.json()["text"]
    missing = client.post(f"{base}999999/undo/preview/")
    assert missing.status_code == 400 and missing.json()["detail"]


def test_a_correction_is_previewed_with_the_ruling_replaced_and_nothing_is_written(
        night, organizer, beta):
    ruling = services.ruling_add(actor=organizer, game=night, application=beta, type="bonus",
                                 minutes=5, now=minutes(50))
    with CaptureQueriesContext(connection) as captured:
        preview = services.edit_preview(actor=organizer, game=night, ruling=ruling.pk,
                                        minutes=15, now=minutes(51))
    assert no_writes(captured) == []
    assert preview.text == "Beta: place 2 → 1, total 0:35 → 0:25; Alpha: place 1 → 2"
    ruling.refresh_from_db()
    assert ruling.minutes == 5 and ruling.history == []
    with pytest.raises(services.DomainError, match="Nothing to change"):
        services.edit_preview(actor=organizer, game=night, ruling=ruling.pk, minutes=5,
                              now=minutes(51))
