"""The audit log (core.audit): every host and organizer change is recorded by its service with
who, when, the value before and after and the reason; organizers read it per game."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from core import audit
from core.models import AuditEntry
from rating import selectors as rating_selectors
from rating import services as rating_services
from rating.models import GameResult
from teams.models import Team
from tests.gorod.fixtures_live import minutes
from tests.rating.fixtures import *  # noqa: F403 (the fixtures)
from tests.rating.helpers import (
    finalize,
    gorod_game,
    make_user,
    table_rows,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def night(organizer, teams):
    """A finished GoRoD night (Gamma disqualified by a ruling), results published."""
    game = gorod_game(organizer, teams=teams)
    rating_services.results_publish(actor=organizer, game=game)
    return game


def entries(game=None, action=None) -> list[AuditEntry]:
    found = AuditEntry.objects.order_by("id")
    if game is not None:
        found = found.filter(game=game)
    if action is not None:
        found = found.filter(action=action)
    return list(found)


def test_record_stores_one_change_with_json_values_and_refuses_a_bare_action(organizer):
    entry = audit.record(game=None, actor=organizer, action="teams.ban", before=None,
                         after={"until": timezone.now()}, reason="  late twice ")
    assert (entry.app, entry.actor, entry.reason) == ("teams", organizer, "late twice")
    assert isinstance(entry.after["until"], str)
    with pytest.raises(ValueError):
        audit.record(game=None, actor=organizer, action="ban", before=None, after=None)


def test_a_gorod_ruling_is_recorded_with_its_team_type_and_reason(night, organizer):
    (ruling,) = entries(night, "gorod.ruling")
    assert ruling.actor == organizer and ruling.reason == "rules" and ruling.before is None
    assert ruling.after["team"] == "Gamma" and ruling.after["type"] == "disqualify"
    assert ruling.at == minutes(20)


def test_publication_rows_places_deductions_final_and_reopen_are_recorded(night, organizer):
    (published,) = entries(night, "rating.publish")
    assert published.before is None
    assert [row["place"] for row in published.after] == [1, 2, None]
    beta = Team.objects.get(name="Beta")
    rating_services.results_table_set(actor=organizer, game=night, rows=table_rows(
        night, Beta={"deduction": 3, "reason": "late"}))
    (row,) = entries(night, "rating.row")
    assert (row.before, row.after, row.reason) == (
        {"team": beta.pk, "deduction": 0}, {"team": beta.pk, "deduction": 3}, "late")
    rating_services.results_table_set(actor=organizer, game=night, rows=table_rows(
        night, Alpha={"place": 2, "reason": "protest"}, Beta={"place": 1, "reason": "protest"}))
    places = [(e.before, e.after) for e in entries(night, "rating.row")][1:]
    assert sorted(places, key=lambda p: p[0]["place"]) == [
        ({"team": Team.objects.get(name="Alpha").pk, "place": 1},
         {"team": Team.objects.get(name="Alpha").pk, "place": 2}),
        ({"team": beta.pk, "place": 2}, {"team": beta.pk, "place": 1})]
    finalize(organizer, night)
    rating_services.results_reopen(actor=organizer, game=night, reason="upheld protest")
    assert [(e.action, e.before, e.after) for e in entries(night)][-2:] == [
        ("rating.finalize", {"status": "preliminary"}, {"status": "final"}),
        ("rating.reopen", {"status": "final"}, {"status": "preliminary"})]
    rating_services.results_publish(actor=organizer, game=night)  # a refresh keeps both sides
    republished = entries(night, "rating.publish")[-1]
    assert republished.before is not None and republished.after is not None


def test_the_organizing_team_votes_and_protest_answers_are_recorded(organizer, teams):
    omega = Team.objects.create(name="Omega", name_key="omega", captain=make_user("omega"))
    game = gorod_game(organizer, teams=teams)
    rating_services.organizer_set(actor=organizer, game=game, team=omega)
    rating_services.results_publish(actor=organizer, game=game)
    alpha = teams[0]
    ended = rating_selectors.game_ended_at(GameResult.objects.get(game=game))
    at = ended + timedelta(hours=1)
    rating_services.vote_cast(actor=alpha.captain, game=game, team=alpha, value=50, now=at)
    rating_services.vote_cast(actor=alpha.captain, game=game, team=alpha, value=100, now=at)
    protest = rating_services.protest_file(actor=alpha.captain, game=game, team=alpha,
                                           text="code lost", now=at)
    rating_services.protest_answer(actor=organizer, protest=protest, upheld=False,
                                   answer="the log shows it", now=at)
    (chosen,) = entries(game, "rating.organizer")
    assert (chosen.before, chosen.after) == ({"organizing_team": None},
                                             {"organizing_team": omega.pk})
    votes = entries(game, "rating.vote")
    assert [(v.before, v.after, v.actor) for v in votes] == [
        (None, {"team": alpha.pk, "value": 50}, alpha.captain),
        ({"team": alpha.pk, "value": 50}, {"team": alpha.pk, "value": 100}, alpha.captain)]
    (answered,) = entries(game, "rating.protest")
    assert answered.after["status"] == "rejected" and answered.reason == "the log shows it"


def test_a_ban_and_its_lifting_are_recorded(organizer, teams):
    from teams import services as teams_services

    alpha = teams[0]
    until = timezone.now() + timedelta(days=30)
    ban = teams_services.ban_create(team=alpha, actor=organizer, reason="no-show", until=until)
    teams_services.ban_lift(ban=ban, actor=organizer)
    made, lifted = entries(action="teams.ban")
    assert made.before is None and made.after["team_name"] == "Alpha" and made.game is None
    assert lifted.before == made.after and lifted.after is None and lifted.actor == organizer


def test_organizers_read_a_games_log_as_json_and_on_a_page_and_nobody_else_does(
        client, night, organizer, teams):
    api = reverse("core:api_audit_game", args=[night.pk])
    page = reverse("core:audit_game", args=[night.pk])
    assert client.get(api).status_code == 403
    client.force_login(make_user("host-audit", "host"))
    assert client.get(api).status_code == 403 and client.get(page).status_code == 403
    client.force_login(organizer)
    body = client.get(api).json()
    assert body["game"] == night.pk
    by_action = {e["action"]: e for e in body["entries"]}
    assert sorted(by_action) == ["gorod.ruling", "rating.publish"]
    assert by_action["gorod.ruling"]["actor"] == "organizer"
    assert [e["at"] for e in body["entries"]] == sorted(
        (e["at"] for e in body["entries"]), reverse=True)  # newest first
    html = client.get(page).content.decode()
    assert 'data-action="gorod.ruling"' in html and "Gamma" in html
    assert client.get(reverse("core:api_audit_game", args=[10**9])).status_code == 404
    everything = client.get(reverse("core:api_audit")).json()
    assert everything["game"] is None and len(everything["entries"]) == 2
    assert client.get(reverse("core:audit")).status_code == 200
