"""Pausing and resuming the whole live game (``gorod.pauses``) and ending it as force majeure
for everyone (``services.game_end_force_majeure``): what is refused while the game is paused,
what the resume moves, the clock, the audit, the exported record, and a property: a live night
with pauses, codes and timeouts replays from its record to the live statistics."""

from __future__ import annotations

import pytest
from django.utils import translation
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.models import AuditEntry
from gorod import rules, selectors, services, states
from gorod.models import GorodGame, Pause, Ruling, TimeoutRequest
from tests.gorod.fixtures_live import *  # noqa: F403 (the fixtures)
from tests.gorod.fixtures_live import join_session, minutes
from tests.gorod.test_live import check_steps
from tests.images import PNG
from tests.properties import examples

pytestmark = pytest.mark.django_db


def submit(game, entry, text, m):
    return services.code_submit(game=game, application=entry, text=text, now=minutes(m))


def me(game, entry):
    return selectors.read_state(game, kind="team", application_id=entry.pk)["state"]["me"]


def organizer_state(game):
    return selectors.read_state(game, kind="organizer")["state"]


def pause(game, organizer, m, reason="thunderstorm"):
    return services.game_pause(actor=organizer, game=game, reason=reason, now=minutes(m))


def resume(game, organizer, m):
    return services.game_resume(actor=organizer, game=game, now=minutes(m))


# --- while paused ---------------------------------------------------------------------------------


def test_a_paused_game_refuses_codes_with_a_clear_message(running, organizer, alpha):
    pause(running, organizer, 10)
    with pytest.raises(services.DomainError, match="paused"):
        submit(running, alpha, "G1R1D", 12)
    with translation.override("ru"), pytest.raises(services.DomainError, match="Игра на паузе"):
        submit(running, alpha, "G1R1D", 13)


def test_a_paused_game_refuses_photos_and_timeout_requests(running, organizer, alpha):
    pause(running, organizer, 10)
    with pytest.raises(services.DomainError, match="paused"):
        services.timeout_request(game=running, application=alpha, minutes=5, reason="rain",
                                 now=minutes(11))
    with pytest.raises(services.DomainError, match="paused"):
        services.photo_submit(game=running, application=alpha, data=PNG, now=minutes(11))


def test_a_timeout_asked_before_the_pause_is_confirmed_only_after_the_resume(
        running, organizer, alpha):
    asked = services.timeout_request(game=running, application=alpha, minutes=5, reason="rain",
                                     now=minutes(5))
    pause(running, organizer, 10)
    with pytest.raises(services.DomainError, match="paused"):
        services.timeout_decide(actor=organizer, game=running, request=asked, confirm=True,
                                now=minutes(12))
    resume(running, organizer, 20)
    services.timeout_decide(actor=organizer, game=running, request=asked, confirm=True,
                            now=minutes(21))
    assert TimeoutRequest.objects.get(pk=asked.pk).status == "confirmed"


def test_a_timed_ruling_cannot_take_effect_inside_the_pause_but_a_penalty_can_be_given(
        running, organizer, alpha):
    pause(running, organizer, 10)
    with pytest.raises(services.DomainError, match="paused"):
        services.ruling_add(actor=organizer, game=running, application=alpha, type="sliv",
                            now=minutes(12))
    services.ruling_add(actor=organizer, game=running, application=alpha, type="penalty",
                        minutes=5, reason="late", now=minutes(12))
    assert me(running, alpha)["penalty_s"] == 300


def test_every_screen_says_since_when_the_game_is_paused(running, organizer, alpha):
    pause(running, organizer, 10)
    since = selectors.iso(minutes(10))
    for kind, kw in (("public", {}), ("organizer", {}), ("team", {"application_id": alpha.pk})):
        state = selectors.read_state(running, kind=kind, **kw)["state"]
        assert state["game"]["paused_since"] == since, kind
    resume(running, organizer, 30)
    assert selectors.read_state(running, kind="public")["state"]["game"]["paused_since"] is None


def test_the_clock_stores_no_deadline_while_paused_and_the_moved_one_at_the_resume(
        running, organizer, alpha):
    running.refresh_from_db()
    assert running.next_deadline == minutes(25)  # hint 1
    pause(running, organizer, 10)
    running.refresh_from_db()
    assert running.next_deadline is None and running.paused_at == minutes(10)
    # A tick that was already on its way finds nothing due.
    assert services.game_tick(game=running.pk, now=minutes(26)) is None
    assert me(running, alpha)["level"]["hints"] == []
    resume(running, organizer, 30)
    running.refresh_from_db()
    assert running.next_deadline == minutes(45)  # 25 + 20 min of pause


def test_the_resume_moves_the_open_levels_hints_and_fail_time_by_the_pause(
        running, organizer, alpha):
    pause(running, organizer, 10)
    level = me(running, alpha)["level"]
    assert level["next_hint_at"] == selectors.iso(minutes(25))  # frozen as it stood
    resume(running, organizer, 30)
    level = me(running, alpha)["level"]
    assert level["next_hint_at"] == selectors.iso(minutes(45))
    assert level["fail_at"] == selectors.iso(minutes(90))
    submit(running, alpha, "G1R1D", 40)
    history = me(running, alpha)["history"]
    assert history[0]["duration_s"] == 20 * 60  # 40 min on the level less the 20-min pause


def test_pause_and_resume_are_the_organizers_and_are_audited(running, organizer, outsider):
    with pytest.raises(services.NotAllowed):
        services.game_pause(actor=outsider, game=running, now=minutes(5))
    pause(running, organizer, 10)
    with pytest.raises(services.DomainError, match="paused already"):
        pause(running, organizer, 11)
    with pytest.raises(services.NotAllowed):
        services.game_resume(actor=outsider, game=running, now=minutes(12))
    resume(running, organizer, 15)
    with pytest.raises(services.DomainError, match="not paused"):
        resume(running, organizer, 16)
    row = Pause.objects.get()
    assert (row.started_at, row.ended_at, row.reason) == (minutes(10), minutes(15), "thunderstorm")
    assert row.started_by == organizer and row.ended_by == organizer
    actions = list(AuditEntry.objects.filter(game_id=running.pk, action__in=(
        "gorod.pause", "gorod.resume")).values_list("action", flat=True).order_by("at"))
    assert actions == ["gorod.pause", "gorod.resume"]
    assert organizer_state(running)["pauses"][0]["ended_at"] == selectors.iso(minutes(15))


def test_a_pause_is_refused_while_a_teams_timeout_runs(running, organizer, alpha):
    services.ruling_add(actor=organizer, game=running, application=alpha, type="timeout",
                        minutes=10, now=minutes(5))
    with pytest.raises(services.DomainError, match="Alpha is on its timeout"):
        pause(running, organizer, 10)
    pause(running, organizer, 15)  # the timeout ended at 15


def test_a_pause_of_a_finished_game_is_refused(running, organizer):
    services.game_end(actor=organizer, game=running, now=minutes(5))
    with pytest.raises(services.DomainError, match="ended"):
        pause(running, organizer, 6)


# --- the record -----------------------------------------------------------------------------------


def test_the_record_stops_at_an_open_pause_and_carries_it_once_resumed(
        running, organizer, alpha):
    submit(running, alpha, "G1R1D", 5)
    pause(running, organizer, 10)
    record = services.game_record(running, now=minutes(20))
    assert record["now"] == selectors.iso(minutes(10))
    assert not [e for e in record["events"] if e["type"] == "pause"]
    resume(running, organizer, 30)
    running.refresh_from_db()
    record = services.game_record(running, now=minutes(40))
    assert [e for e in record["events"] if e["type"] == "pause"] == [
        {"type": "pause", "at": selectors.iso(minutes(10)), "minutes": 20.0}]


def test_ending_the_game_during_a_pause_ends_the_pause_with_it(running, organizer, alpha):
    pause(running, organizer, 10)
    services.game_end(actor=organizer, game=running, now=minutes(30))
    running.refresh_from_db()
    assert running.status == GorodGame.Status.FINISHED and running.paused_at is None
    assert running.pauses == [{"at": selectors.iso(minutes(10)), "minutes": 20.0}]
    assert Pause.objects.get().ended_at == minutes(30)
    rules.replay(services.game_record(running))  # a valid record


# --- force majeure for everyone (3.5) -------------------------------------------------------------


def test_ending_as_force_majeure_closes_every_open_level_and_ends_the_game_in_one_write(
        running, organizer, alpha, beta, entries):
    for code in ("G1R1D", "G1R2D", "G1R31D", "G1R32D"):
        submit(running, beta, code, 5)  # Beta has finished
    submit(running, alpha, "G1R1D", 10)
    services.game_end_force_majeure(actor=organizer, game=running, reason="hurricane",
                                    now=minutes(30))
    running.refresh_from_db()
    assert running.status == GorodGame.Status.FINISHED and running.ended_at == minutes(30)
    rulings = {(r.application.team.name, r.level.label) for r in Ruling.objects.filter(
        type=Ruling.Type.FORCE_MAJEURE).select_related("application__team", "level")}
    assert rulings == {("Alpha", "2"), ("Gamma", "1")}
    entry = AuditEntry.objects.get(action="gorod.end_force_majeure")
    assert entry.reason == "hurricane" and {c["team"] for c in entry.after["closed"]} == {
        "Alpha", "Gamma"}
    rows = {r["team"]: r for r in organizer_state(running)["statistics"]["rows"]}
    assert rows["Alpha"]["cells"][1]["how"] == "force majeure (organizer)"
    assert rows["Beta"]["status"] == "finished"


def test_ending_as_force_majeure_needs_a_reason_an_organizer_and_a_running_game(
        running, organizer, outsider):
    with pytest.raises(services.DomainError, match="Say why"):
        services.game_end_force_majeure(actor=organizer, game=running, reason=" ",
                                        now=minutes(5))
    with pytest.raises(services.NotAllowed):
        services.game_end_force_majeure(actor=outsider, game=running, reason="storm",
                                        now=minutes(5))
    services.game_end(actor=organizer, game=running, now=minutes(6))
    with pytest.raises(services.DomainError, match="ended"):
        services.game_end_force_majeure(actor=organizer, game=running, reason="storm",
                                        now=minutes(7))


def test_ending_as_force_majeure_during_a_pause_ends_the_pause_first(running, organizer, alpha):
    pause(running, organizer, 10)
    services.game_end_force_majeure(actor=organizer, game=running, reason="flood",
                                    now=minutes(40))
    out = rules.replay(services.game_record(running))
    alpha_out = next(t for t in out["teams"] if t["team"] == "Alpha")
    assert alpha_out["levels"][0]["outcome"] == "force_majeure"
    assert alpha_out["levels"][0]["duration_s"] == 10 * 60  # 40 min less the 30-min pause


# --- API ------------------------------------------------------------------------------------------


def test_the_api_pauses_resumes_and_refuses_a_code_with_a_detail(client, live, organizer, alpha):
    client.force_login(organizer)
    answer = client.post(f"/gorod/api/games/{live.pk}/pause/", {"reason": "storm"},
                         content_type="application/json")
    assert answer.status_code == 200 and answer.json()["state"]["game"]["paused_since"]
    client.logout()
    join_session(client, alpha)
    refused = client.post(f"/gorod/api/games/{live.pk}/code/", {"text": "G1R1D"},
                          content_type="application/json")
    assert refused.status_code == 400 and "paused" in refused.json()["detail"]
    client.force_login(organizer)
    assert client.post(f"/gorod/api/games/{live.pk}/resume/").status_code == 200
    again = client.post(f"/gorod/api/games/{live.pk}/resume/")
    assert again.status_code == 400 and "not paused" in again.json()["detail"]
    bad = client.post(f"/gorod/api/games/{live.pk}/end-force-majeure/", {},
                      content_type="application/json")
    assert bad.status_code == 400 and bad.json()["detail"]


# --- the property ---------------------------------------------------------------------------------


STEPS = st.lists(st.tuples(
    st.sampled_from(["code", "code", "code", "pause", "resume", "ask", "decide", "tick"]),
    st.integers(0, 2),  # which team
    st.integers(0, 3),  # which code
    st.integers(1, 25 * 60),  # seconds since the previous step
), min_size=1, max_size=12)
CODES = ("G1R1D", "G1R2D", "G1R31D", "G1R32D")


@settings(max_examples=examples(30), deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(steps=STEPS)
def test_a_live_night_with_pauses_codes_and_timeouts_replays_to_the_live_statistics(
        running, organizer, entries, monkeypatch, django_capture_on_commit_callbacks, steps):
    """Every write keeps the pushed views equal to a rebuild (``verify_action``), and at the end
    the exported record replays to exactly the live statistics."""
    def act(kind, entry, choice, now):
        if kind == "code":
            services.code_submit(game=running.pk, application=entry, text=CODES[choice],
                                 now=now)
        elif kind == "pause":
            services.game_pause(actor=organizer, game=running.pk, now=now)
        elif kind == "resume":
            services.game_resume(actor=organizer, game=running.pk, now=now)
        elif kind == "ask":
            services.timeout_request(game=running.pk, application=entry, minutes=choice + 2,
                                     reason="rain", now=now)
        elif kind == "decide":
            asked = TimeoutRequest.objects.filter(status="pending").last()
            services.timeout_decide(actor=organizer, game=running.pk,
                                    request=asked.pk if asked else 0, confirm=True, now=now)
        else:
            services.game_tick(game=running.pk, now=now)

    def replays_to_the_live_statistics(now):
        services.game_tick(game=running.pk, now=now)
        record = services.game_record(running.pk, now=now)
        live = organizer_state(running)["statistics"]
        replayed = states.statistics_table(rules.compute(rules.parse_record(record)))
        ids = {r["team"]: r["application"] for r in live["rows"]}
        for row in replayed["rows"]:
            row["application"] = ids[row["team"]]
        assert replayed == live

    check_steps(running, entries, steps, act, monkeypatch, django_capture_on_commit_callbacks,
                then=replays_to_the_live_statistics)
