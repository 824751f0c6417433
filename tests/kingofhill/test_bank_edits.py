"""Editing and reordering the question bank (``kingofhill.bank_edits``): the host changes a
prepared question as it was added, moves it in the queue the announcement follows, never
touches an announced one, and the console's "next question" follows through the live
pipeline; each change is audited. Through the services, the API and the bank page."""

from __future__ import annotations

import pytest
from django.urls import reverse

from core.errors import DomainError, NotAllowed
from core.models import AuditEntry
from kingofhill import bank_edits, realtime, selectors, services
from kingofhill.models import PreparedQuestion
from live.messages import PUBLIC
from live.store import stream_versions
from tests.kingofhill.play import announce

pytestmark = pytest.mark.django_db


@pytest.fixture
def prepared(running, host) -> list[PreparedQuestion]:
    return [services.bank_question_add(actor=host, game=running, text=f"Q{n}?", answer_key=f"a{n}")
            for n in range(1, 5)]


def texts(koth) -> list[str]:
    return [q["text"] for q in selectors.bank_listing(koth)]


def console_next(koth) -> str | None:
    nxt = selectors.read_state(koth, kind="host")["state"]["host"]["bank"]["next"]
    return nxt and nxt["text"]


# --- edit ---------------------------------------------------------------------------------------


def test_an_edit_changes_every_field_and_the_consoles_next_question_follows(
        running, host, prepared):
    before = stream_versions(running.pk)
    bank_edits.bank_question_edit(
        actor=host, game=running, prepared=prepared[0].pk, text="  Кто написал «Онегина»? ",
        answer_key="Пушкин", variants=["А. С.  Пушкин", " "], partner=True, note="медленно")
    row = PreparedQuestion.objects.get(pk=prepared[0].pk)
    assert (row.text, row.answer_key, row.variants, row.partner, row.note) == (
        "Кто написал «Онегина»?", "Пушкин", ["А. С. Пушкин"], True, "медленно")
    host_bank = selectors.read_state(running, kind="host")["state"]["host"]["bank"]
    assert host_bank["next"]["text"] == "Кто написал «Онегина»?" and host_bank["left"] == 4
    assert host_bank["next"]["note"] == "медленно"
    after = stream_versions(running.pk)
    # Only the console shows the bank: no other screen gets a version.
    assert after[realtime.HOST] == before[realtime.HOST] + 1
    assert {a: v for a, v in after.items() if a != realtime.HOST} == {
        a: v for a, v in before.items() if a != realtime.HOST}
    assert after[PUBLIC] == before[PUBLIC]
    # The announcement asks what the host edited.
    question = announce(running, host)
    assert (question.text, question.answer_key, question.partner) == (
        "Кто написал «Онегина»?", "Пушкин", True)


def test_an_edit_is_audited_with_the_values_before_and_after(running, host, prepared):
    bank_edits.bank_question_edit(actor=host, game=running, prepared=prepared[1].pk,
                                  text="Q2, better?", answer_key="a2")
    entry = AuditEntry.objects.get(action="kingofhill.bank_edit")
    assert entry.game_id == running.pk and entry.actor == host
    assert entry.before["text"] == "Q2?" and entry.after["text"] == "Q2, better?"
    assert entry.after["id"] == prepared[1].pk


def test_an_edit_that_changes_nothing_stores_nothing(running, host, prepared):
    before = stream_versions(running.pk)
    bank_edits.bank_question_edit(actor=host, game=running, prepared=prepared[0].pk,
                                  text="Q1?", answer_key="a1")
    assert stream_versions(running.pk) == before
    assert not AuditEntry.objects.filter(action="kingofhill.bank_edit").exists()


@pytest.mark.parametrize(("fields", "message"), [
    ({"text": "   "}, "the question text is empty"),
    ({"text": "x" * 5001}, "longer than 5000"),
    ({"text": "ok?", "answer_key": "k" * 301}, "longer than 300"),
    ({"text": "ok?", "variants": ["v" * 301]}, "longer than 300"),
    ({"text": "ok?", "note": "n" * 2001}, "longer than 2000"),
    ({"text": "ok?", "variants": "not a list"}, "must be a list of texts"),
])
def test_an_edit_is_checked_as_an_addition_and_a_bad_one_changes_nothing(
        running, host, prepared, fields, message):
    with pytest.raises(DomainError, match=message):
        bank_edits.bank_question_edit(actor=host, game=running, prepared=prepared[0].pk,
                                      **fields)
    assert PreparedQuestion.objects.get(pk=prepared[0].pk).text == "Q1?"


def test_an_announced_question_is_neither_edited_nor_moved(running, host, prepared):
    announce(running, host)  # takes Q1
    for action, kwargs in ((bank_edits.bank_question_edit, {"text": "Changed?"}),
                           (bank_edits.bank_question_move, {"to": 2})):
        with pytest.raises(DomainError, match="has been announced"):
            action(actor=host, game=running, prepared=prepared[0].pk, **kwargs)
    assert texts(running)[0] == "Q1?"
    assert PreparedQuestion.objects.get(pk=prepared[0].pk).position == 1


def test_only_a_host_of_the_game_edits_or_moves_and_never_another_games_question(
        running, host, outsider, organizer, prepared):
    with pytest.raises(NotAllowed):
        bank_edits.bank_question_edit(actor=outsider, game=running, prepared=prepared[0].pk,
                                      text="Sneaky?")
    with pytest.raises(NotAllowed):
        bank_edits.bank_question_move(actor=outsider, game=running, prepared=prepared[0].pk,
                                      to=2)
    for pk in (0, 10**30, "x"):
        with pytest.raises(DomainError, match="No such prepared question"):
            bank_edits.bank_question_edit(actor=host, game=running, prepared=pk, text="?")
    # An organizer hosts every game.
    bank_edits.bank_question_move(actor=organizer, game=running, prepared=prepared[0].pk, to=2)
    assert texts(running)[:2] == ["Q2?", "Q1?"]


# --- move ---------------------------------------------------------------------------------------


def test_moving_a_question_reorders_the_queue_and_the_announcements_follow_it(
        running, host, prepared):
    bank_edits.bank_question_move(actor=host, game=running, prepared=prepared[3].pk, to=1)
    assert texts(running) == ["Q4?", "Q1?", "Q2?", "Q3?"]
    assert console_next(running) == "Q4?"
    bank_edits.bank_question_move(actor=host, game=running, prepared=prepared[0].pk, to=4)
    assert texts(running) == ["Q4?", "Q2?", "Q3?", "Q1?"]
    asked = []
    for _ in range(2):
        asked.append(announce(running, host).text)
        services.question_close(actor=host, game=running)
    assert asked == ["Q4?", "Q2?"]
    # Places count the queue only: Q1 is second of what is left, and goes first.
    bank_edits.bank_question_move(actor=host, game=running, prepared=prepared[0].pk, to=1)
    listing = selectors.bank_listing(running)
    assert [(q["text"], q["place"], q["announced_as"]) for q in listing] == [
        ("Q4?", None, 1), ("Q2?", None, 2), ("Q1?", 1, None), ("Q3?", 2, None)]
    assert console_next(running) == "Q1?"
    assert announce(running, host).text == "Q1?"


def test_a_move_is_audited_by_place_and_one_to_its_own_place_changes_nothing(
        running, host, prepared):
    before = stream_versions(running.pk)
    bank_edits.bank_question_move(actor=host, game=running, prepared=prepared[2].pk, to=3)
    assert stream_versions(running.pk) == before
    bank_edits.bank_question_move(actor=host, game=running, prepared=prepared[2].pk, to=2)
    entry = AuditEntry.objects.get(action="kingofhill.bank_move")
    assert (entry.before["place"], entry.after["place"], entry.after["text"]) == (3, 2, "Q3?")
    # Moving Q3 in the middle changes the console's nothing: Q1 is still next.
    assert stream_versions(running.pk)[realtime.HOST] == before[realtime.HOST]


@pytest.mark.parametrize("to", [0, 5, -1, True, "2", 2.0, None])
def test_a_place_outside_the_queue_is_refused_with_the_range(running, host, prepared, to):
    with pytest.raises(DomainError, match="from 1 to 4"):
        bank_edits.bank_question_move(actor=host, game=running, prepared=prepared[0].pk, to=to)
    assert texts(running) == ["Q1?", "Q2?", "Q3?", "Q4?"]


def test_a_finished_games_bank_is_not_changed(running, host, prepared):
    running.status = running.Status.FINISHED
    running.save(update_fields=["status"])
    with pytest.raises(DomainError, match="has finished"):
        bank_edits.bank_question_move(actor=host, game=running, prepared=prepared[0].pk, to=2)
    with pytest.raises(DomainError, match="has finished"):
        bank_edits.bank_question_edit(actor=host, game=running, prepared=prepared[0].pk,
                                      text="Late?")


# --- the API ------------------------------------------------------------------------------------


def test_the_api_lists_edits_and_moves_the_bank(client, host, running, prepared):
    client.force_login(host)
    base = f"/koth/api/games/{running.pk}/bank/"
    listed = client.get(base).json()["bank"]
    assert [(q["text"], q["place"]) for q in listed] == [
        ("Q1?", 1), ("Q2?", 2), ("Q3?", 3), ("Q4?", 4)]
    edited = client.post(base + "edit/", {"prepared": prepared[1].pk, "text": "Q2 new?",
                                          "answer_key": "b", "variants": ["bb"],
                                          "partner": True, "note": "n"},
                         content_type="application/json")
    assert edited.status_code == 200, edited.content
    assert edited.json()["bank"][1] == {
        "id": prepared[1].pk, "place": 2, "announced_as": None, "text": "Q2 new?",
        "answer_key": "b", "variants": ["bb"], "partner": True, "note": "n", "image": False}
    moved = client.post(base + "move/", {"prepared": prepared[1].pk, "to": 1},
                        content_type="application/json")
    assert [q["text"] for q in moved.json()["bank"]][:2] == ["Q2 new?", "Q1?"]


@pytest.mark.parametrize(("path", "body", "status", "detail"), [
    ("move/", {"prepared": 1, "to": "first"}, 400, "valid integer"),
    ("move/", {"to": 1}, 400, "required"),
    ("move/", {"prepared": "PK", "to": 9}, 400, "from 1 to 4"),
    ("edit/", {"prepared": "PK", "text": ""}, 400, "the question text is empty"),
    ("edit/", {"prepared": 10**6, "text": "x"}, 400, "No such prepared question"),
])
def test_bad_bank_requests_are_a_400_with_a_detail(client, host, running, prepared, path, body,
                                                   status, detail):
    client.force_login(host)
    body = {k: prepared[0].pk if v == "PK" else v for k, v in body.items()}
    response = client.post(f"/koth/api/games/{running.pk}/bank/{path}", body,
                           content_type="application/json")
    assert response.status_code == status
    assert detail in str(response.json()["detail"]), response.json()


# --- the page -----------------------------------------------------------------------------------


def test_the_bank_page_edits_a_question_in_its_form_and_shows_errors_beside_it(
        client, host, running, prepared):
    client.force_login(host)
    page = reverse("kingofhill:bank", args=[running.pk])
    form = client.get(page, {"edit": prepared[1].pk}).content.decode()
    assert 'id="bank-edit"' in form and 'name="edit-text"' in form and "Q2?" in form
    assert "autofocus" in form
    bad = client.post(page, {"action": "edit", "prepared": prepared[1].pk, "edit-text": " ",
                             "edit-answer_key": "a2"})
    assert bad.status_code == 400 and 'id="bank-edit"' in bad.content.decode()
    assert "This field is required." in bad.content.decode()
    saved = client.post(page, {"action": "edit", "prepared": prepared[1].pk,
                               "edit-text": "Q2 edited?", "edit-answer_key": "b",
                               "edit-variants": "one\ntwo", "edit-note": "slowly"})
    assert saved.status_code == 302
    row = PreparedQuestion.objects.get(pk=prepared[1].pk)
    assert (row.text, row.variants, row.partner, row.note) == (
        "Q2 edited?", ["one", "two"], False, "slowly")


def test_the_bank_page_moves_questions_up_down_and_to_a_place(client, host, running, prepared):
    client.force_login(host)
    page = reverse("kingofhill:bank", args=[running.pk])
    moved = client.post(page, {"action": "move", "prepared": prepared[2].pk, "to": "2"})
    assert moved.status_code == 302 and moved["Location"].endswith(f"#bank-q{prepared[2].pk}")
    assert texts(running) == ["Q1?", "Q3?", "Q2?", "Q4?"]
    refused = client.post(page, {"action": "move", "prepared": prepared[2].pk, "to": "9"})
    assert refused.status_code == 400 and "from 1 to 4" in refused.content.decode()
    announce(running, host)
    html = client.get(page).content.decode()
    # The announced one has no buttons; the first of the queue cannot go up, the last not down.
    assert 'data-used="1"' in html
    assert html.count('data-move="up"') == 3 and html.count('data-move="down"') == 3
    edit = client.get(page, {"edit": prepared[0].pk}).content.decode()
    assert 'id="bank-edit"' not in edit  # an announced question has no edit form
    gone = client.post(page, {"action": "edit", "prepared": prepared[0].pk, "edit-text": "x"})
    assert gone.status_code == 400 and "not in the queue any more" in gone.content.decode()
