"""The organizer's messages and bonus hints (rules, 2.15.1, 4.1.4): who they reach, what each
audience's state shows, the phones' "seen", every refusal, and that they change no time."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from core.audit import AuditEntry
from gorod import realtime, scenario, selectors, services, states
from gorod.live import LIVE
from gorod.models import GorodGame, Message, MessageReceipt
from gorod.settle import Noted
from live.messages import team_audience
from live.models import LiveStream
from live.store import Parts
from live.write import Write
from teams.models import Game
from tests.gorod.fixtures_live import *  # noqa: F403 (the fixtures)
from tests.gorod.fixtures_live import minutes
from tests.gorod.test_api import logged_in, phone
from tests.gorod.test_push_sizes import NOW, big_night, pushed_by  # noqa: F401 (a fixture)

pytestmark = pytest.mark.django_db


def send(game, organizer, m, text="Meet at the bridge", **kw):
    return services.message_send(actor=organizer, game=game, now=minutes(m), text=text, **kw)


def state(game, kind, entry=None):
    return selectors.read_state(game, kind=kind,
                                application_id=entry.pk if entry else None)["state"]


def versions(game) -> dict[str, int]:
    return dict(LiveStream.objects.filter(game_id=game.pk).values_list("audience", "version"))


def hints_of(game, entry) -> list[str]:
    level = state(game, "team", entry)["me"]["level"]
    return [hint["text"] for hint in level["bonus_hints"]] if level else []


@pytest.fixture
def gorod_row(running):
    return lambda: GorodGame.objects.select_related("game").get(pk=running.pk)


@pytest.fixture
def alpha_on_level_2(running, alpha):
    """Alpha closed level 1 at minute 3; Beta and Gamma are still on it."""
    services.code_submit(game=running, application=alpha, text="G1R1D", now=minutes(3))
    return running


# --- who it reaches ---------------------------------------------------------------------------


def test_a_message_to_all_teams_reaches_every_phone_and_the_organizers_list(
        running, organizer, entries):
    message = send(running, organizer, 5)
    for entry in entries:
        items = state(running, "team", entry)["messages"]["items"]
        assert [(m["id"], m["text"]) for m in items] == [(message.pk, "Meet at the bridge")]
    listed = state(running, "organizer")["messages"]
    assert listed[0]["audience"] == "all" and listed[0]["by"] == "organizer"
    assert (listed[0]["seen"], listed[0]["of"]) == (0, 3)
    assert "messages" not in state(running, "public")


def test_a_message_to_one_team_changes_only_that_teams_phones_and_the_organizers(
        running, organizer, alpha, beta):
    before = versions(running)
    send(running, organizer, 5, audience="team", application=beta.pk, text="Call us")
    after = versions(running)
    changed = {audience for audience in after if after[audience] != before[audience]}
    assert changed == {realtime.ORGANIZER, team_audience(beta.pk)}
    assert state(running, "team", alpha)["messages"]["items"] == []
    assert state(running, "team", beta)["messages"]["items"][0]["text"] == "Call us"
    assert state(running, "organizer")["messages"][0]["team"] == "Beta"


def test_a_message_to_a_level_reaches_the_teams_on_it_when_it_is_sent(
        alpha_on_level_2, organizer, alpha, beta, entries):
    gg = alpha_on_level_2
    send(gg, organizer, 5, audience="level", level="1", text="Level 1: look up")
    assert state(gg, "team", alpha)["messages"]["items"] == []
    for entry in (beta, entries[2]):
        assert state(gg, "team", entry)["messages"]["items"][0]["text"] == "Level 1: look up"
    # Beta reaches level 2 afterwards: a message to level 2 then is not a message to it now.
    send(gg, organizer, 6, audience="level", level="2", text="Level 2: look down")
    services.code_submit(game=gg, application=beta, text="G1R1D", now=minutes(7))
    assert [m["text"] for m in state(gg, "team", beta)["messages"]["items"]] == [
        "Level 1: look up"]
    assert [m["text"] for m in state(gg, "team", alpha)["messages"]["items"]] == [
        "Level 2: look down"]


def test_the_build_of_a_message_renders_the_organizers_list_and_its_teams_own_parts_only(
        running, organizer, beta, gorod_row):
    send(running, organizer, 5, audience="team", application=beta.pk, text="Call us")
    w = Write(game=gorod_row(), now=minutes(6))
    built = states.build_states(w, Noted(teams=(beta.pk,)))
    assert set(built) == {realtime.ORGANIZER, team_audience(beta.pk)}
    assert all(isinstance(state, Parts) for state in built.values())
    assert set(built[realtime.ORGANIZER]) == {"messages"}
    assert set(built[team_audience(beta.pk)]) == {"messages"}
    # A bonus hint's teams get their own part too (the hint under their level's hints).
    snap = selectors.load_snapshot(w.game, minutes(6))
    built = states.build_states(w, Noted(teams=(beta.pk,), snapshot=snap))
    assert set(built[team_audience(beta.pk)]) == {"messages", "me"}


def test_a_bonus_hint_shows_under_its_levels_hints_for_the_teams_on_it(
        alpha_on_level_2, organizer, alpha, beta):
    gg = alpha_on_level_2
    before = versions(gg)
    send(gg, organizer, 5, kind="bonus_hint", audience="level", level="1", text="Under the bench")
    assert hints_of(gg, beta) == ["Under the bench"]
    assert hints_of(gg, alpha) == []  # on level 2
    assert state(gg, "team", beta)["messages"]["items"] == []  # a hint, not a message
    after = versions(gg)
    assert after[team_audience(alpha.pk)] == before[team_audience(alpha.pk)]
    assert after[realtime.PUBLIC] == before[realtime.PUBLIC]


def test_a_bonus_hint_for_later_teams_reaches_a_team_that_gets_its_level_by_a_code(
        alpha_on_level_2, organizer, alpha, beta):
    gg = alpha_on_level_2
    send(gg, organizer, 5, kind="bonus_hint", audience="level", level="2", later=True,
         text="Behind the tower")
    send(gg, organizer, 5, kind="bonus_hint", audience="level", level="2", text="Only now")
    assert hints_of(gg, alpha) == ["Behind the tower", "Only now"]
    assert hints_of(gg, beta) == []
    services.code_submit(game=gg, application=beta, text="G1R1D", now=minutes(8))
    assert hints_of(gg, beta) == ["Behind the tower"]
    # …and by the clock's deadline too: Gamma fails level 1 at 70 min.
    services.game_tick(game=gg.pk, now=minutes(71))
    assert hints_of(gg, alpha) == hints_of(gg, beta) == []  # they failed level 2 at 3+45, 8+45
    gamma = [e for e in gg.game.applications.all() if e.team.name == "Gamma"][0]
    assert hints_of(gg, gamma) == ["Behind the tower"]


def test_a_bonus_hint_to_a_level_no_team_is_on_is_kept_for_later_teams_only_if_asked(
        running, organizer, alpha):
    with pytest.raises(services.DomainError, match="No team is on level 2 now"):
        send(running, organizer, 5, kind="bonus_hint", audience="level", level="2", text="x")
    hint = send(running, organizer, 5, kind="bonus_hint", audience="level", level="2",
                later=True, text="Early bird")
    assert (state(running, "organizer")["messages"][0]["of"]) == 0
    services.code_submit(game=running, application=alpha, text="G1R1D", now=minutes(6))
    assert hints_of(running, alpha) == ["Early bird"]
    assert hint.receipts.count() == 0


def test_messages_change_no_time_and_are_no_event_of_the_record(running, organizer, alpha):
    def record_of(game):
        return {k: v for k, v in services.game_record(game).items() if k != "now"}

    record = record_of(running)
    level = state(running, "team", alpha)["me"]["level"]
    send(running, organizer, 5)
    send(running, organizer, 5, kind="bonus_hint", audience="level", level="1", text="Hint")
    assert record_of(running) == record
    after = state(running, "team", alpha)["me"]["level"]
    assert (after["fail_at"], after["next_hint_at"]) == (level["fail_at"], level["next_hint_at"])


# --- seen -------------------------------------------------------------------------------------


def test_a_phone_marks_what_it_showed_seen_once_and_the_organizer_sees_who(
        running, organizer, alpha, beta):
    message = send(running, organizer, 5)
    assert services.message_seen(game=running, application=alpha, messages=[message.pk],
                                 now=minutes(6)) == 1
    assert state(running, "team", alpha)["messages"]["seen"] == [message.pk]
    assert state(running, "team", beta)["messages"]["seen"] == []
    listed = state(running, "organizer")["messages"][0]
    assert (listed["seen"], listed["of"]) == (1, 3)
    assert list(listed["seen_by"]) == [str(alpha.pk)] and len(listed["reached"]) == 3
    before = versions(running)
    assert services.message_seen(game=running, application=alpha, messages=[message.pk],
                                 now=minutes(9)) == 0
    assert versions(running) == before  # idempotent: nothing written, nothing pushed
    assert MessageReceipt.objects.get(message=message, application=alpha).seen_at == minutes(6)


def test_a_later_bonus_hint_counts_a_team_once_its_phone_showed_it(
        running, organizer, alpha):
    hint = send(running, organizer, 5, kind="bonus_hint", audience="level", level="2",
                later=True, text="Early bird")
    with pytest.raises(services.DomainError, match="No such message"):
        services.message_seen(game=running, application=alpha, messages=[hint.pk],
                              now=minutes(5))  # not on level 2: not shown to it
    services.code_submit(game=running, application=alpha, text="G1R1D", now=minutes(6))
    services.message_seen(game=running, application=alpha, messages=[hint.pk], now=minutes(7))
    listed = state(running, "organizer")["messages"][0]
    assert (listed["seen"], listed["of"]) == (1, 1)
    assert state(running, "team", alpha)["messages"]["seen"] == [hint.pk]


def test_a_phone_cannot_mark_a_message_to_another_team(running, organizer, alpha, beta):
    message = send(running, organizer, 5, audience="team", application=beta.pk)
    with pytest.raises(services.DomainError, match="No such message"):
        services.message_seen(game=running, application=alpha, messages=[message.pk],
                              now=minutes(6))
    assert not MessageReceipt.objects.filter(application=alpha).exists()


# --- refusals ---------------------------------------------------------------------------------


@pytest.mark.parametrize(("kw", "says"), [
    ({"text": "   "}, "Write the text"),
    ({"text": "x" * 1001}, "too long: at most 1000"),
    ({"audience": "level", "level": "9"}, "no level 9 in this game"),
    ({"audience": "level"}, "Choose the level"),
    ({"audience": "team"}, "Choose the team"),
    ({"audience": "team", "application": 999999}, "does not play in this game"),
    ({"kind": "bonus_hint"}, "goes to the teams on its level"),
    ({"later": True}, "Only a bonus hint"),
    ({"kind": "shout"}, "a message or a bonus hint"),
])
def test_bad_messages_are_refused_and_nothing_is_stored(running, organizer, kw, says):
    with pytest.raises(services.DomainError, match=says):
        send(running, organizer, 5, **{"text": "Hello", **kw})
    assert not Message.objects.exists()


def test_only_organizers_send_messages(running, outsider):
    with pytest.raises(services.NotAllowed):
        send(running, outsider, 5)


def test_nothing_is_sent_before_the_start(gorod, organizer):
    with pytest.raises(services.DomainError, match="not started"):
        services.message_send(actor=organizer, game=gorod, text="Hello")


def test_after_the_end_messages_to_all_or_one_team_go_but_nothing_to_a_level(
        running, organizer, alpha):
    services.game_end(actor=organizer, game=running, now=minutes(30))
    send(running, organizer, 40, text="Results at 6 in the bar")
    send(running, organizer, 41, audience="team", application=alpha.pk, text="Your prize")
    with pytest.raises(services.DomainError, match="The game has ended"):
        send(running, organizer, 42, kind="bonus_hint", audience="level", level="1")
    assert [m["text"] for m in state(running, "team", alpha)["messages"]["items"]] == [
        "Your prize", "Results at 6 in the bar"]


def test_a_message_is_audited(running, organizer, beta):
    message = send(running, organizer, 5, audience="team", application=beta.pk, text="Hi")
    entry = AuditEntry.objects.get(action="gorod.message")
    assert entry.actor == organizer
    assert entry.after["message"] == message.pk and entry.after["team"] == "Beta"


# --- API --------------------------------------------------------------------------------------


def api(game, action="messages"):
    return f"/gorod/api/games/{game.pk}/{action}/"


def test_the_organizer_sends_through_the_api_and_the_phone_marks_it_seen(
        live, organizer, alpha, beta):
    sent = logged_in(organizer).post(api(live), {
        "text": "Bonus: the bench", "kind": "bonus_hint", "audience": "level", "level": "1"},
        content_type="application/json")
    assert sent.status_code == 200, sent.json()
    listed = sent.json()["state"]["messages"][0]
    assert (listed["kind"], listed["level"], listed["of"]) == ("bonus_hint", "1", 3)
    alphas = phone(alpha)
    level = alphas.get(api(live, "team/state")).json()["state"]["me"]["level"]
    assert [h["text"] for h in level["bonus_hints"]] == ["Bonus: the bench"]
    seen = alphas.post(api(live, "messages/seen"), {"messages": [listed["id"]]},
                       content_type="application/json")
    assert seen.status_code == 200, seen.json()
    assert seen.json()["state"]["messages"]["seen"] == [listed["id"]]
    again = alphas.post(api(live, "messages/seen"), {"messages": [listed["id"]]},
                        content_type="application/json")
    assert again.status_code == 200 and again.json()["version"] == seen.json()["version"]


@pytest.mark.parametrize(("body", "says"), [
    ({"text": ""}, "Write the text"),
    ({"text": "Hi", "audience": "level", "level": "nope"}, "no level nope"),
    ({"text": "Hi", "audience": "team", "application": 2**63}, "application"),
    ({"text": "Hi", "audience": "everyone"}, "audience"),
])
def test_bad_input_to_the_message_api_is_a_400_with_its_detail(live, organizer, body, says):
    response = logged_in(organizer).post(api(live), body, content_type="application/json")
    assert response.status_code == 400
    assert says in str(response.json()["detail"])
    assert not Message.objects.exists()


def test_a_phone_marking_nothing_or_a_strangers_message_gets_a_400(live, organizer, alpha, beta):
    message = services.message_send(actor=organizer, game=live, text="Beta only",
                                    audience="team", application=beta.pk)
    for body in ({"messages": []}, {"messages": [message.pk]}, {"messages": ["x"]}):
        response = phone(alpha).post(api(live, "messages/seen"), body,
                                     content_type="application/json")
        assert response.status_code == 400 and response.json()["detail"], body
    assert not MessageReceipt.objects.filter(seen_at__isnull=False).exists()


# --- statistics page and scenario export ---------------------------------------------------------


@pytest.fixture
def empty_game(organizer):
    game = Game.objects.create(title="Another night", format=Game.Format.GOROD,
                               starts_at=timezone.now() + timedelta(days=9), created_by=organizer)
    return services.gorod_create(actor=organizer, game=game)


@pytest.fixture
def night_with_notes(alpha_on_level_2, organizer, alpha, beta):
    gg = alpha_on_level_2
    send(gg, organizer, 5, kind="bonus_hint", audience="level", level="1", text="Under the bench")
    send(gg, organizer, 6, kind="bonus_hint", audience="level", level="3", later=True,
         text="North is north")
    hint = Message.objects.get(text="Under the bench")
    services.message_seen(game=gg, application=beta, messages=[hint.pk], now=minutes(7))
    send(gg, organizer, 8, text="Finish at the bar")
    send(gg, organizer, 9, audience="team", application=alpha.pk, text="Alpha, your prize")
    return gg


def test_the_statistics_page_lists_the_bonus_hints_per_level_and_the_messages(
        night_with_notes, organizer):
    gg = night_with_notes
    url = f"/gorod/{gg.pk}/statistics/"
    page = logged_in(organizer).get(url).content.decode()
    assert page.index("Level 1") < page.index("Under the bench") < page.index("Level 3")
    assert page.index("Level 3") < page.index("North is north")
    assert "seen by 1 of 2" in page
    assert "Finish at the bar" in page and "Alpha, your prize" in page
    # The public sees them once the game is over, a team's own message left out.
    assert "Under the bench" not in Client().get(url).content.decode()
    services.game_end(actor=organizer, game=gg, now=minutes(30))
    public = Client().get(url).content.decode()
    assert "Under the bench" in public and "Finish at the bar" in public
    assert "Alpha, your prize" not in public


def test_the_scenario_export_writes_what_was_sent_and_reads_back_without_sending_it(
        night_with_notes, organizer, empty_game):
    data = scenario.scenario_dict(scenario.scenario_of(night_with_notes))
    level_1, level_3 = data["levels"][0], data["levels"][2]
    assert [(h["text"], h["teams"], h["seen_by"]) for h in level_1["bonus_hints"]] == [
        ("Under the bench", ["Beta", "Gamma"], ["Beta"])]
    assert level_3["bonus_hints"][0]["later"] is True
    assert "bonus_hints" not in data["levels"][1]
    assert [(m["to"], m.get("team"), m["text"]) for m in data["messages"]] == [
        ("all", None, "Finish at the bar"), ("team", "Alpha", "Alpha, your prize")]
    again = scenario.parse_scenario(scenario.loads(scenario.dumps(data)))
    assert scenario.scenario_dict(again) == data
    services.scenario_import(actor=organizer, game=empty_game, scenario=again)
    assert not Message.objects.filter(gorod=empty_game).exists()
    assert empty_game.levels.count() == 3


def test_a_scenarios_messages_must_be_texts():
    with pytest.raises(scenario.ScenarioError, match=r"messages\[0\]: expected a mapping"):
        scenario.parse_scenario({"format": "gorod-scenario", "messages": ["hi"],
                                 "levels": [{"id": "1", "codes": {"code": "X"}}]})


def test_a_message_sent_past_a_deadline_the_clock_has_not_applied_settles_the_game_too(
        running, organizer, alpha):
    # Hint 1 fell due at 25 min and no tick came: the message's write shows it too.
    assert state(running, "team", alpha)["me"]["level"]["hints"] == []
    send(running, organizer, 26, audience="team", application=alpha.pk, text="Hint is out")
    me = state(running, "team", alpha)
    assert [h["n"] for h in me["me"]["level"]["hints"]] == [1]
    assert me["messages"]["items"][0]["text"] == "Hint is out"
    running.refresh_from_db()
    assert running.next_deadline == minutes(50)


def test_at_200_teams_a_message_to_all_and_a_phones_seen_push_what_changed_only(
        big_night, organizer, monkeypatch, django_capture_on_commit_callbacks):  # noqa: F811
    gg, entries = big_night
    capture = django_capture_on_commit_callbacks
    for k in range(5):
        texts = pushed_by(lambda k=k: services.message_send(
            actor=organizer, game=gg.pk, text=f"Сообщение {k}", now=NOW), monkeypatch, capture)
        assert len(texts) == 1 + 200  # the monitor and every team's phones
    message = Message.objects.latest("pk")
    texts = pushed_by(lambda: services.message_seen(
        game=gg.pk, application=entries[0], messages=[message.pk], now=NOW), monkeypatch, capture)
    sizes = {group: len(text.encode()) for group, text in texts.items()}
    assert set(sizes) == {LIVE.group(gg.pk, realtime.ORGANIZER),
                          LIVE.group(gg.pk, team_audience(entries[0].pk))}
    assert max(sizes.values()) <= 1024, sizes  # the one new key, not the lists
    assert not [g for g, text in texts.items() if '"resync":true' in text]
