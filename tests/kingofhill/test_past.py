"""Changing the past safely (kingofhill.past): a change that re-opens a finished game waits for
confirmation, and one after publication marks the results out of date."""

from __future__ import annotations

import pytest

from core.errors import NeedsConfirmation
from kingofhill import services
from kingofhill.models import KothGame
from kingofhill.services import DomainError
from tests.kingofhill.play import answer_of, finish, play, snapshot_of, team

pytestmark = pytest.mark.django_db


# --- changing the past safely -------------------------------------------------------------------


def test_a_past_verdict_that_re_opens_the_finished_game_is_refused_until_confirmed(
        running, host, alpha, beta, gamma):
    finish(running, host, alpha, beta, gamma)
    assert (running.status, running.board["winner"]) == (KothGame.Status.FINISHED, "Alpha")
    before = snapshot_of(running)
    jump = answer_of(running, alpha, 2)
    with pytest.raises(NeedsConfirmation) as refused:
        services.verdict_set(actor=host, game=running, answer=jump.pk, verdict=False)
    change = refused.value.extra["change"]
    assert change["reopens"] and change["winner_before"] == "Alpha"
    assert change["winner_after"] is None and not change["results_published"]
    assert "re-opens" in refused.value.message and "Alpha → nobody yet" in refused.value.message
    assert snapshot_of(running) == before  # nothing changed, nothing pushed

    services.verdict_set(actor=host, game=running, answer=jump.pk, verdict=False, confirm=True)
    running.refresh_from_db()
    assert running.status == KothGame.Status.RUNNING and running.board["winner"] is None
    assert answer_of(running, alpha, 2).verdict is False


def test_a_past_change_that_keeps_winner_and_game_open_needs_no_confirmation(
        running, host, alpha, beta, gamma):
    play(running, host, {alpha: True, beta: True, gamma: False})
    services.verdict_set(actor=host, game=running, answer=answer_of(running, gamma, 1).pk,
                         verdict=True)
    assert team(running, "Gamma")["step"] == 1


def test_after_publication_a_past_change_marks_the_results_out_of_date_until_published_again(
        running, host, organizer, alpha, beta, gamma):
    from rating import services as rating_services
    from rating.models import GameResult

    finish(running, host, alpha, beta, gamma)
    rating_services.results_publish(actor=organizer, game=running.game)
    # A partner mark keeps the winner but changes the points the results show.
    with pytest.raises(NeedsConfirmation) as refused:
        services.partner_set(actor=host, game=running, question=1, partner=True)
    assert refused.value.extra["change"]["results_published"]
    assert "publish them again" in refused.value.message
    assert GameResult.objects.get(game=running.game).outdated_at is None

    services.partner_set(actor=host, game=running, question=1, partner=True, confirm=True)
    result = GameResult.objects.get(game=running.game)
    assert result.outdated_at is not None and "Question 1 changed" in result.outdated_reason
    with pytest.raises(DomainError, match="refresh them from the game first"):
        rating_services.results_finalize(actor=organizer, game=running.game, early=True,
                                         reason="now")
    rating_services.results_publish(actor=organizer, game=running.game)
    result.refresh_from_db()
    assert result.outdated_at is None and result.outdated_reason == ""
    assert result.rows.get(team__name="Alpha").figures["points"] == team(running, "Alpha")["points"]
