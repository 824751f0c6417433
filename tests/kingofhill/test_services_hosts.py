"""Hosts per game (who assigns them, what they control) and the audit log of the host's writes."""

from __future__ import annotations

import pytest

from kingofhill import selectors, services
from kingofhill.models import Answer
from kingofhill.services import DomainError, NotAllowed
from tests.kingofhill.play import announce, answer, judge_all

pytestmark = pytest.mark.django_db


# --- hosts per game and the audit log -----------------------------------------------------------


def test_a_host_controls_only_the_games_assigned_to_them_and_organizers_every_game(
        running, host, organizer, alpha):
    from tests.kingofhill.conftest import make_user

    other_host = make_user("other-host", "host")
    assert selectors.can_host(host, running) and selectors.can_host(organizer, running)
    assert not selectors.can_host(other_host, running)
    with pytest.raises(NotAllowed, match="host of this game"):
        services.question_announce(actor=other_host, game=running)
    services.question_announce(actor=organizer, game=running)  # not assigned, still allowed
    answer(running, alpha, "Пушкин")
    services.host_assign(actor=organizer, game=running, user=host, assigned=False)
    with pytest.raises(NotAllowed):
        services.answers_judge(actor=host, game=running, question=1, normalized="пушкин",
                               verdict=True)
    assert selectors.hosted_game_ids(host) == set()
    assert selectors.hosted_game_ids(organizer) is None


def test_only_an_organizer_assigns_hosts_and_only_accounts_with_the_host_role(
        koth, host, organizer, outsider):
    with pytest.raises(NotAllowed):
        services.host_assign(actor=host, game=koth, user=host, assigned=False)
    with pytest.raises(DomainError, match="host role"):
        services.host_assign(actor=organizer, game=koth, user=outsider)
    assert services.host_assign(actor=organizer, game=koth, user=host) is False  # already
    assert [u.username for u in selectors.game_hosts(koth)] == ["host"]


def test_losing_the_host_role_takes_the_assigned_games_away(koth, host, organizer):
    from core.accounts.services import role_set

    role_set(actor=organizer, user=host, role="host", granted=False)
    assert not selectors.can_host(host, koth)


def test_verdicts_partner_marks_and_host_assignments_are_in_the_audit_log(
        running, host, organizer, alpha, beta):
    from core.models import AuditEntry
    from tests.kingofhill.conftest import make_user

    announce(running, host)
    answer(running, alpha, "Пушкин")
    answer(running, beta, "Гоголь")
    judge_all(running, host, 1, {"пушкин": True, "гоголь": False})
    beta_answer = Answer.objects.get(application=beta)
    services.verdict_set(actor=host, game=running, answer=beta_answer.pk, verdict=True)
    services.partner_set(actor=host, game=running, question=1, partner=True)
    second = make_user("second-host", "host")
    services.host_assign(actor=organizer, game=running, user=second)

    entries = list(AuditEntry.objects.filter(game_id=running.pk).order_by("id"))
    assert [(e.action, e.actor.username) for e in entries] == [
        ("kingofhill.host", "organizer"),  # the fixture's assignment
        ("kingofhill.verdict", "host"), ("kingofhill.verdict", "host"),
        ("kingofhill.verdict", "host"), ("kingofhill.partner", "host"),
        ("kingofhill.host", "organizer")]
    changed = entries[3]
    assert changed.before == {"question": 1, "answer": beta_answer.pk, "text": "Гоголь",
                              "verdict": False}
    assert changed.after["verdict"] is True
    assert (entries[4].before, entries[4].after) == ({"question": 1, "partner": False},
                                                     {"question": 1, "partner": True})
    assert (entries[5].before, entries[5].after) == (
        {"host": "second-host", "assigned": False}, {"host": "second-host", "assigned": True})


def test_a_refused_verdict_leaves_no_audit_entry(running, host):
    from core.models import AuditEntry

    before = AuditEntry.objects.count()
    with pytest.raises(DomainError):
        services.verdict_set(actor=host, game=running, answer=10**6, verdict=True)
    assert AuditEntry.objects.count() == before
