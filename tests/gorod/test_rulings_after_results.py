"""A ruling after the night, once its results are published (a protest answered the next
morning): like a King of the Hill change of the past, it is refused until the organizer
confirms it, and once applied the published results say they are out of date until published
again (the game tells the rating through ``core.formats``)."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from core.errors import DomainError, NeedsConfirmation
from gorod import services
from gorod.models import Ruling
from rating import services as rating_services
from rating.models import GameResult
from teams.models import Application
from tests.gorod.fixtures_live import minutes
from tests.rating.helpers import captained_teams, gorod_game, make_organizer

pytestmark = pytest.mark.django_db

NEXT_MORNING = minutes(600)


@pytest.fixture
def organizer():
    return make_organizer()


@pytest.fixture
def night(organizer):
    """A finished night (Alpha 1st, Beta 2nd, Gamma disqualified); results not published."""
    return gorod_game(organizer, teams=captained_teams())


@pytest.fixture
def published(night, organizer):
    rating_services.results_publish(actor=organizer, game=night)
    return night


def entry(game, name: str) -> Application:
    return Application.objects.get(game=game, team__name=name)


def result(game) -> GameResult:
    return GameResult.objects.get(game=game)


def test_a_ruling_after_the_published_night_is_refused_until_confirmed(published, organizer):
    with pytest.raises(NeedsConfirmation) as refused:
        services.ruling_add(actor=organizer, game=published.pk, type="penalty", minutes=30,
                            application=entry(published, "Beta"), now=NEXT_MORNING)
    assert "results are published" in refused.value.message
    assert refused.value.extra == {"change": {"results_published": True}}
    assert not Ruling.objects.filter(gorod_id=published.pk, type="penalty").exists()
    assert result(published).outdated_at is None


def test_a_confirmed_ruling_after_the_night_marks_the_published_results_out_of_date(
        published, organizer):
    services.ruling_add(actor=organizer, game=published.pk, type="penalty", minutes=30,
                        application=entry(published, "Beta"), now=NEXT_MORNING, confirm=True)
    stale = result(published)
    assert stale.outdated_at == NEXT_MORNING
    assert "A ruling for Beta was added." in stale.outdated_reason
    with pytest.raises(DomainError, match="board changed"):
        rating_services.results_finalize(actor=organizer, game=published, now=NEXT_MORNING,
                                         early=True, reason="protest answered")
    rating_services.results_publish(actor=organizer, game=published)
    assert result(published).outdated_at is None


def test_undoing_a_ruling_after_the_published_night_is_confirmed_the_same_way(
        published, organizer):
    disqualified = Ruling.objects.get(gorod_id=published.pk, type="disqualify")
    with pytest.raises(NeedsConfirmation):
        services.ruling_undo(actor=organizer, game=published.pk, ruling=disqualified.pk,
                             reason="protest upheld", now=NEXT_MORNING)
    disqualified.refresh_from_db()
    assert disqualified.undone_at is None
    services.ruling_undo(actor=organizer, game=published.pk, ruling=disqualified.pk,
                         reason="protest upheld", now=NEXT_MORNING, confirm=True)
    disqualified.refresh_from_db()
    assert disqualified.undone_at == NEXT_MORNING
    assert "A ruling was undone: protest upheld" in result(published).outdated_reason


def test_correcting_a_ruling_after_the_published_night_is_confirmed_the_same_way(
        published, organizer):
    beta = entry(published, "Beta")
    with pytest.raises(NeedsConfirmation):
        services.ruling_add(actor=organizer, game=published.pk, type="bonus", minutes=5,
                            application=beta, now=NEXT_MORNING)
    rating_services.results_publish(actor=organizer, game=published)  # nothing was stored
    services.ruling_add(actor=organizer, game=published.pk, type="bonus", minutes=5,
                        application=beta, now=NEXT_MORNING, confirm=True)
    rating_services.results_publish(actor=organizer, game=published)
    bonus = Ruling.objects.get(gorod_id=published.pk, type="bonus")
    with pytest.raises(NeedsConfirmation):
        services.ruling_edit(actor=organizer, game=published.pk, ruling=bonus.pk, minutes=7,
                             reason="miscounted", now=NEXT_MORNING)
    services.ruling_edit(actor=organizer, game=published.pk, ruling=bonus.pk, minutes=7,
                         reason="miscounted", now=NEXT_MORNING, confirm=True)
    assert "A ruling was corrected: miscounted" in result(published).outdated_reason


def test_a_ruling_after_the_night_before_any_results_needs_no_confirmation(night, organizer):
    services.ruling_add(actor=organizer, game=night.pk, type="penalty", minutes=30,
                        application=entry(night, "Beta"), now=NEXT_MORNING)
    assert Ruling.objects.filter(gorod_id=night.pk, type="penalty").exists()
    assert not GameResult.objects.filter(game=night).exists()


def test_the_api_answers_409_with_what_changes_and_applies_the_ruling_once_confirmed(
        published, organizer):
    client = Client()
    client.force_login(organizer)
    url = reverse("gorod:api_ruling", args=[published.pk])
    body = {"application": entry(published, "Beta").pk, "type": "penalty", "minutes": 30}
    refused = client.post(url, body, content_type="application/json")
    assert refused.status_code == 409
    assert "Confirm to apply it" in refused.json()["detail"]
    assert refused.json()["change"] == {"results_published": True}
    assert result(published).outdated_at is None
    done = client.post(url, {**body, "confirm": True}, content_type="application/json")
    assert done.status_code == 200, done.content
    assert result(published).outdated_at is not None


def test_the_api_undo_after_the_published_night_asks_first(published, organizer):
    client = Client()
    client.force_login(organizer)
    ruling = Ruling.objects.get(gorod_id=published.pk, type="disqualify")
    url = reverse("gorod:api_ruling_undo", args=[published.pk, ruling.pk])
    assert client.post(url, {"reason": "protest upheld"},
                       content_type="application/json").status_code == 409
    done = client.post(url, {"reason": "protest upheld", "confirm": True},
                       content_type="application/json")
    assert done.status_code == 200, done.content
    assert "protest upheld" in result(published).outdated_reason
