"""Scenario proposals (GoRoD rules 10.1–10.4): a captain proposes a scenario file for a future
game, the organizer accepts it (the game's scenario, the team its organizer, not a player) or
rejects it (confidential: the team's captain and the organizers only)."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from core.audit import AuditEntry
from core.errors import DomainError, NotAllowed
from core.roles import ORGANIZER
from gorod import proposals, services
from gorod.models import GorodGame, Level, ScenarioProposal
from gorod.scenario import ScenarioError
from teams import services as teams_services
from teams.models import Application, Game, Notice, Team
from tests.gorod.fixtures_live import make_user

pytestmark = pytest.mark.django_db

DEMO = (Path(__file__).resolve().parents[2] / "gorod" / "scenarios" / "demo-night.yaml")
SMALL = """format: gorod-scenario
version: 1
title: Мосты
levels:
  - id: "1"
    task: Найдите мост
    codes: {code: G1R1D}
  - id: "2"
    task: Найдите башню
    codes: {code: G1R2D}
"""


@pytest.fixture
def cast():
    organizer = make_user("org", ORGANIZER)
    captain = make_user("cap")
    other = make_user("other-cap")
    player = make_user("player")
    alpha = Team.objects.create(name="Alpha", name_key="alpha", captain=captain)
    gamma = Team.objects.create(name="Gamma", name_key="gamma", captain=other)
    game = Game.objects.create(title="Ночь мостов", format=Game.Format.GOROD,
                               starts_at=timezone.now() + timedelta(days=10))
    return {"organizer": organizer, "captain": captain, "other": other, "player": player,
            "alpha": alpha, "gamma": gamma, "game": game}


def propose(c, content=SMALL, game=None, name="night.yaml", **kwargs):
    return proposals.propose(actor=c["captain"], team=c["alpha"], file_name=name,
                             content=content.encode(), game=game, **kwargs)


def client(user) -> Client:
    browser = Client()
    if user is not None:
        browser.force_login(user)
    return browser


# --- proposing ----------------------------------------------------------------------------------


def test_a_captain_proposes_a_checked_scenario_for_a_future_game(cast):
    proposal = propose(cast, game=cast["game"], note="Ночь на мостах")
    assert proposal.status == ScenarioProposal.Status.PENDING
    assert (proposal.game, proposal.levels, proposal.note) == (cast["game"], 2, "Ночь на мостах")
    assert proposal.content == SMALL
    assert AuditEntry.objects.filter(action="gorod.proposal", game_id=cast["game"].pk).exists()


def test_a_proposal_may_be_for_any_future_game(cast):
    assert propose(cast).game is None


def test_a_file_the_scenario_checker_refuses_lists_every_problem(cast):
    bad = SMALL.replace("codes: {code: G1R1D}", "codes: {}").replace("id: \"2\"", "id: \"1\"")
    with pytest.raises(ScenarioError) as refused:
        propose(cast, content=bad)
    assert len(refused.value.problems) >= 2
    assert not ScenarioProposal.objects.exists()


def test_a_file_that_is_not_yaml_is_refused_with_where(cast):
    with pytest.raises(ScenarioError, match="not valid YAML"):
        propose(cast, content="levels: [\n")


def test_a_proposal_naming_routes_is_refused_since_no_team_is_known_yet(cast):
    with pytest.raises(ScenarioError, match="routes"):
        propose(cast, content=SMALL + 'routes:\n  Alpha: ["2", "1"]\n')


def test_only_the_teams_captain_proposes(cast):
    for actor in (cast["other"], cast["organizer"], cast["player"]):
        with pytest.raises(NotAllowed):
            proposals.propose(actor=actor, team=cast["alpha"], file_name="x.yaml",
                              content=SMALL.encode())


def test_a_started_cancelled_or_other_format_game_takes_no_proposal(cast):
    past = Game.objects.create(title="Past", format=Game.Format.GOROD,
                               starts_at=timezone.now() - timedelta(hours=1))
    cancelled = Game.objects.create(title="Off", format=Game.Format.GOROD,
                                    starts_at=timezone.now() + timedelta(days=3),
                                    status=Game.Status.CANCELLED)
    koth = Game.objects.create(title="KotH", format=Game.Format.KINGOFHILL,
                               starts_at=timezone.now() + timedelta(days=3))
    for game in (past, cancelled):
        with pytest.raises(DomainError, match="still to come"):
            propose(cast, game=game)
    with pytest.raises(DomainError, match="GoRoD"):
        propose(cast, game=koth)


def test_a_game_organized_by_another_team_takes_no_proposal(cast):
    Game.objects.filter(pk=cast["game"].pk).update(organizing_team=cast["gamma"])
    with pytest.raises(DomainError, match="organizing team"):
        propose(cast, game=cast["game"])


def test_a_team_has_at_most_three_proposals_waiting(cast):
    for _ in range(proposals.PENDING_MAX):
        propose(cast)
    with pytest.raises(DomainError, match="waiting"):
        propose(cast)
    proposals.withdraw(actor=cast["captain"], proposal=ScenarioProposal.objects.first())
    assert propose(cast).status == ScenarioProposal.Status.PENDING


def test_the_captain_withdraws_a_pending_proposal_and_nobody_else_does(cast):
    proposal = propose(cast)
    with pytest.raises(NotAllowed):
        proposals.withdraw(actor=cast["organizer"], proposal=proposal)
    proposals.withdraw(actor=cast["captain"], proposal=proposal)
    proposal.refresh_from_db()
    assert proposal.status == ScenarioProposal.Status.WITHDRAWN
    with pytest.raises(DomainError, match="already"):
        proposals.withdraw(actor=cast["captain"], proposal=proposal)


# --- accepting ----------------------------------------------------------------------------------


def test_accepting_sets_the_game_up_with_the_file_and_the_team_organizes_it(cast):
    proposal = propose(cast, content=DEMO.read_text(encoding="utf-8"), game=cast["game"])
    proposals.accept(actor=cast["organizer"], proposal=proposal, answer="Берём")
    proposal.refresh_from_db()
    assert proposal.status == ScenarioProposal.Status.ACCEPTED
    assert (proposal.decided_by, proposal.answer) == (cast["organizer"], "Берём")
    gg = GorodGame.objects.get(pk=cast["game"].pk)
    assert list(Level.objects.filter(gorod=gg).values_list("label", flat=True)) == ["1", "2", "3"]
    assert Game.objects.get(pk=cast["game"].pk).organizing_team == cast["alpha"]
    organizer_set = AuditEntry.objects.get(action="gorod.organizer", game_id=cast["game"].pk)
    assert organizer_set.after == {"organizing_team": cast["alpha"].pk}
    decided = AuditEntry.objects.filter(action="gorod.proposal", reason="Берём").get()
    assert decided.after["status"] == "accepted" and decided.actor == cast["organizer"]


def test_accepting_replaces_the_set_up_of_a_game_already_being_prepared(cast):
    gg = services.gorod_create(actor=cast["organizer"], game=cast["game"], levels=[
        {"label": "old", "codes": {"code": "OLD"}}])
    proposals.accept(actor=cast["organizer"], proposal=propose(cast), game=cast["game"].pk)
    assert [lv.label for lv in Level.objects.filter(gorod=gg)] == ["1", "2"]


def test_accepting_rejects_the_teams_application_and_refuses_a_new_one(cast):
    application = Application.objects.create(game=cast["game"], team=cast["alpha"],
                                             status=Application.Status.APPROVED)
    proposals.accept(actor=cast["organizer"], proposal=propose(cast), game=cast["game"])
    application.refresh_from_db()
    assert application.status == Application.Status.REJECTED
    notice = Notice.objects.get(team=cast["alpha"], kind=Notice.Kind.APPLICATION_REJECTED)
    assert "10.3" in notice.text
    with pytest.raises(DomainError, match="organizes this game"):
        teams_services.application_submit(game=cast["game"], team=cast["alpha"], members=[])


def test_a_proposal_for_any_game_is_accepted_for_the_game_the_organizer_chooses(cast):
    proposal = propose(cast)
    with pytest.raises(DomainError, match="Choose the game"):
        proposals.accept(actor=cast["organizer"], proposal=proposal)
    proposals.accept(actor=cast["organizer"], proposal=proposal, game=cast["game"])
    proposal.refresh_from_db()
    assert proposal.game == cast["game"]


def test_accepting_is_refused_once_the_game_has_started(cast):
    proposal = propose(cast, game=cast["game"])
    gg = services.gorod_create(actor=cast["organizer"], game=cast["game"], levels=[
        {"label": "1", "codes": {"code": "G1R1D"}}])
    GorodGame.objects.filter(pk=gg.pk).update(status=GorodGame.Status.RUNNING)
    with pytest.raises(DomainError, match="still to come"):
        proposals.accept(actor=cast["organizer"], proposal=proposal)
    proposal.refresh_from_db()
    assert proposal.status == ScenarioProposal.Status.PENDING
    assert Game.objects.get(pk=cast["game"].pk).organizing_team is None


def test_accepting_a_file_that_no_longer_validates_changes_nothing(cast):
    proposal = propose(cast, game=cast["game"])
    ScenarioProposal.objects.filter(pk=proposal.pk).update(content="levels: []\n")
    with pytest.raises(ScenarioError):
        proposals.accept(actor=cast["organizer"], proposal=proposal)
    assert not GorodGame.objects.filter(pk=cast["game"].pk).exists()
    assert Game.objects.get(pk=cast["game"].pk).organizing_team is None
    assert ScenarioProposal.objects.get(pk=proposal.pk).status == "pending"


def test_accepting_a_level_with_an_image_waits_for_the_image_in_the_game(cast):
    with_image = SMALL.replace("task: Найдите мост", "task: Найдите мост\n    images: [a.png]")
    proposal = propose(cast, content=with_image, game=cast["game"])
    with pytest.raises(ScenarioError, match="a.png"):
        proposals.accept(actor=cast["organizer"], proposal=proposal)
    assert ScenarioProposal.objects.get(pk=proposal.pk).status == "pending"


def test_only_organizers_accept_or_reject(cast):
    proposal = propose(cast, game=cast["game"])
    with pytest.raises(NotAllowed):
        proposals.accept(actor=cast["captain"], proposal=proposal)
    with pytest.raises(NotAllowed):
        proposals.reject(actor=cast["captain"], proposal=proposal, answer="нет")


# --- rejecting ----------------------------------------------------------------------------------


def test_rejecting_needs_an_answer_and_keeps_the_file_for_the_team(cast):
    proposal = propose(cast, game=cast["game"])
    with pytest.raises(DomainError, match="Say why"):
        proposals.reject(actor=cast["organizer"], proposal=proposal, answer="  ")
    proposals.reject(actor=cast["organizer"], proposal=proposal, answer="Слишком просто")
    proposal.refresh_from_db()
    assert (proposal.status, proposal.answer) == ("rejected", "Слишком просто")
    assert proposal.content == SMALL
    with pytest.raises(DomainError, match="already"):
        proposals.accept(actor=cast["organizer"], proposal=proposal)


# --- API ----------------------------------------------------------------------------------------


def upload(c, browser, content=SMALL, **fields):
    body = {"team": c["alpha"].pk, "note": "", **fields,
            "file": SimpleUploadedFile("night.yaml", content.encode())}
    return browser.post(reverse("gorod:api_proposals"), body)


def test_the_api_takes_a_captains_upload_and_lists_it_for_the_team(cast):
    browser = client(cast["captain"])
    answer = upload(cast, browser, game=cast["game"].pk)
    assert answer.status_code == 201, answer.json()
    assert answer.json()["status"] == "pending" and answer.json()["levels"] == 2
    listed = browser.get(reverse("gorod:api_proposals")).json()
    assert [p["id"] for p in listed] == [answer.json()["id"]]
    assert client(cast["other"]).get(reverse("gorod:api_proposals")).json() == []


def test_the_api_refuses_a_bad_file_with_a_detail(cast):
    answer = upload(cast, client(cast["captain"]), content="levels: [\n")
    assert answer.status_code == 400
    assert "not valid YAML" in answer.json()["detail"]


def test_the_api_refuses_an_upload_for_another_teams_captain(cast):
    answer = upload(cast, client(cast["other"]))
    assert answer.status_code == 403 and answer.json()["detail"]


def test_the_api_accepts_and_rejects_for_organizers(cast):
    first, second = propose(cast), propose(cast)
    organizer = client(cast["organizer"])
    accepted = organizer.post(reverse("gorod:api_proposal_accept", args=[first.pk]),
                              {"game": cast["game"].pk}, content_type="application/json")
    assert accepted.status_code == 200 and accepted.json()["status"] == "accepted"
    missing = organizer.post(reverse("gorod:api_proposal_reject", args=[second.pk]), {},
                             content_type="application/json")
    assert missing.status_code == 400 and "answer" in missing.json()["detail"]
    rejected = organizer.post(reverse("gorod:api_proposal_reject", args=[second.pk]),
                              {"answer": "Нет"}, content_type="application/json")
    assert rejected.json()["status"] == "rejected"


def test_the_api_withdraws_for_the_captain(cast):
    proposal = propose(cast)
    answer = client(cast["captain"]).post(
        reverse("gorod:api_proposal_withdraw", args=[proposal.pk]))
    assert answer.status_code == 200 and answer.json()["status"] == "withdrawn"


@pytest.mark.parametrize("who", ["other", "player", None])
def test_nobody_but_the_captain_and_organizers_sees_or_downloads_a_rejected_proposal(cast, who):
    proposal = propose(cast, game=cast["game"])
    proposals.reject(actor=cast["organizer"], proposal=proposal, answer="Нет")
    browser = client(cast[who] if who else None)
    for url in (reverse("gorod:api_proposal", args=[proposal.pk]),
                reverse("gorod:proposal_file", args=[proposal.pk])):
        answer = browser.get(url)
        assert answer.status_code in (302, 403), url
        assert b"G1R1D" not in answer.content
    assert b"G1R1D" not in browser.get(reverse("gorod:api_proposals")).content


@pytest.mark.parametrize("who", ["captain", "organizer"])
def test_the_captain_and_organizers_download_the_file_as_uploaded(cast, who):
    proposal = propose(cast)
    proposals.reject(actor=cast["organizer"], proposal=proposal, answer="Нет")
    answer = client(cast[who]).get(reverse("gorod:proposal_file", args=[proposal.pk]))
    assert answer.status_code == 200
    assert answer.content.decode() == SMALL
    assert "attachment" in answer["Content-Disposition"]


# --- pages --------------------------------------------------------------------------------------


def test_the_team_page_links_to_the_proposals_of_the_team(cast):
    page = client(cast["captain"]).get(reverse("teams:team_detail", args=[cast["alpha"].pk]))
    assert reverse("gorod:team_proposals", args=[cast["alpha"].pk]) in page.content.decode()


def test_the_captains_page_uploads_and_shows_the_answer(cast):
    browser = client(cast["captain"])
    url = reverse("gorod:team_proposals", args=[cast["alpha"].pk])
    sent = browser.post(url, {"game": cast["game"].pk, "note": "",
                              "file": SimpleUploadedFile("night.yaml", SMALL.encode())})
    assert sent.status_code == 302
    proposals.reject(actor=cast["organizer"], proposal=ScenarioProposal.objects.get(),
                     answer="Доработайте уровень 2")
    page = browser.get(url).content.decode()
    assert "Доработайте уровень 2" in page and "night.yaml" in page


def test_the_captains_page_shows_each_problem_of_a_bad_file_next_to_the_form(cast):
    browser = client(cast["captain"])
    url = reverse("gorod:team_proposals", args=[cast["alpha"].pk])
    page = browser.post(url, {"note": "",
                              "file": SimpleUploadedFile("n.yaml", b"levels: [\n")}, follow=True)
    assert page.status_code == 200
    assert "not valid YAML" in page.content.decode()
    assert not ScenarioProposal.objects.exists()


def test_another_captain_cannot_open_the_teams_proposals_page(cast):
    url = reverse("gorod:team_proposals", args=[cast["alpha"].pk])
    assert client(cast["other"]).get(url).status_code == 403


def test_the_organizers_page_accepts_for_the_chosen_game(cast):
    proposal = propose(cast)
    browser = client(cast["organizer"])
    assert "night.yaml" in browser.get(reverse("gorod:proposals")).content.decode()
    page = browser.post(reverse("gorod:proposal_action", args=[proposal.pk, "accept"]),
                        {"game": str(cast["game"].pk)}, follow=True)
    assert "Alpha" in page.content.decode()
    assert Game.objects.get(pk=cast["game"].pk).organizing_team == cast["alpha"]


def test_the_organizers_page_shows_a_refusal_as_a_message(cast):
    proposal = propose(cast)
    page = client(cast["organizer"]).post(
        reverse("gorod:proposal_action", args=[proposal.pk, "reject"]), {"answer": ""},
        follow=True)
    assert "Say why" in page.content.decode()
    assert ScenarioProposal.objects.get().status == "pending"


def test_a_captain_cannot_accept_through_the_page(cast):
    proposal = propose(cast, game=cast["game"])
    answer = client(cast["captain"]).post(
        reverse("gorod:proposal_action", args=[proposal.pk, "accept"]), {})
    assert answer.status_code == 403


def test_a_cyrillic_file_name_downloads_under_its_own_name(cast):
    proposal = propose(cast, name="ночь у реки.yaml")
    answer = client(cast["captain"]).get(reverse("gorod:proposal_file", args=[proposal.pk]))
    assert "filename*=utf-8''%D0%BD%D0%BE%D1%87%D1%8C" in answer["Content-Disposition"]


def test_the_organizers_see_the_waiting_proposals_first_oldest_first(cast):
    now = timezone.now()
    first = propose(cast, now=now - timedelta(days=2))
    decided = propose(cast, now=now - timedelta(days=3))
    proposals.reject(actor=cast["organizer"], proposal=decided, answer="Нет")
    second = propose(cast, now=now - timedelta(days=1))
    assert list(proposals.for_organizers()) == [first, second, decided]


def test_a_file_with_a_nul_byte_is_refused_not_stored(cast):
    with pytest.raises(ScenarioError):
        propose(cast, content=SMALL.replace("Мосты", "Мо\x00сты"))
    assert not ScenarioProposal.objects.exists()
