"""The host's grouping help on the open question: the suggestions in the host's state, merging
groups (one group, one judgement, never a verdict by itself), splitting back, keeping apart,
and the refusals that change nothing, through the services and the API."""

from __future__ import annotations

import json

import pytest
from django.urls import reverse

from core.errors import DomainError, NotAllowed
from core.models import AuditEntry
from kingofhill import grouping, services
from kingofhill.live import LIVE
from kingofhill.models import Answer, Question
from live.messages import team_audience
from live.store import stream_versions
from tests.kingofhill.play import announce, answer, snapshot_of

pytestmark = pytest.mark.django_db


def host_view(koth) -> dict:
    return json.loads(LIVE.read(koth.pk, "host").text)["host"]


@pytest.fixture
def lomonosovs(running, host, alpha, beta, gamma):
    """Question 1 announced; Alpha «Ломоносов», Beta «Ломоносав», Gamma «Lomonosov»."""
    announce(running, host)
    for entry, text in ((alpha, "Ломоносов"), (beta, "Ломоносав"), (gamma, "Lomonosov")):
        answer(running, entry, text)
    return running


def merge(koth, host, keys=("ломоносов", "ломоносав", "lomonosov")):
    return grouping.groups_merge(actor=host, game=koth, question=1, keys=list(keys))


def test_the_host_state_suggests_merging_the_same_answer_written_three_ways(lomonosovs):
    view = host_view(lomonosovs)
    assert view["suggestions"] == [{"keys": ["ломоносов", "ломоносав", "lomonosov"],
                                    "reasons": ["spelling", "transliteration"]}]


def test_no_suggestion_for_different_answers_or_before_the_answers(running, host, alpha, beta):
    assert host_view(running)["suggestions"] == []
    announce(running, host)
    answer(running, alpha, "Рим")
    answer(running, beta, "Мир")
    assert host_view(running)["suggestions"] == []


def test_the_teams_never_see_the_suggestions(lomonosovs, alpha):
    state = json.loads(LIVE.read(lomonosovs.pk, team_audience(alpha.pk)).text)
    assert "host" not in state and "suggestions" not in json.dumps(state)


def test_merging_makes_one_unjudged_group_that_one_judgement_settles(lomonosovs, host):
    assert merge(lomonosovs, host) == 3
    view = host_view(lomonosovs)
    assert [(g["key"], g["count"], g["verdict"]) for g in view["groups"]] == [
        ("ломоносов", 3, None)]
    assert view["groups"][0]["texts"] == ["Ломоносов", "Ломоносав", "Lomonosov"]
    assert view["suggestions"] == []
    assert set(Answer.objects.values_list("verdict", flat=True)) == {None}  # not a verdict
    changed = services.answers_judge(actor=host, game=lomonosovs, question=1,
                                     normalized="ломоносов", verdict=True)
    assert changed == 3
    assert set(Answer.objects.values_list("verdict", flat=True)) == {True}


def test_a_merge_changes_only_the_hosts_view_and_is_audited(lomonosovs, host, alpha):
    before = stream_versions(lomonosovs.pk)
    merge(lomonosovs, host)
    after = stream_versions(lomonosovs.pk)
    assert after["host"] == before["host"] + 1
    assert after[team_audience(alpha.pk)] == before[team_audience(alpha.pk)]
    entry = AuditEntry.objects.get(action="kingofhill.merge")
    assert entry.before == {"question": 1, "groups": ["ломоносов", "ломоносав", "lomonosov"]}
    assert entry.after["group"] == "ломоносов"
    assert entry.after["texts"] == ["Lomonosov", "Ломоносав", "Ломоносов"]


def test_a_later_answer_with_a_merged_text_joins_the_merged_group(running, host, alpha, beta,
                                                                    gamma):
    announce(running, host)
    answer(running, alpha, "Ломоносов")
    answer(running, beta, "Ломоносав")
    grouping.groups_merge(actor=host, game=running, question=1, keys=["ломоносов", "ломоносав"])
    answer(running, gamma, "ломоносав!")
    assert [(g["key"], g["count"]) for g in host_view(running)["groups"]] == [("ломоносов", 3)]


def test_merging_a_judged_group_keeps_each_verdict_until_the_host_judges_the_group(
        lomonosovs, host):
    services.answers_judge(actor=host, game=lomonosovs, question=1, normalized="ломоносов",
                           verdict=True)
    merge(lomonosovs, host)
    group = host_view(lomonosovs)["groups"][0]
    assert group["verdict"] == "mixed"
    assert sorted(Answer.objects.values_list("verdict", flat=True), key=str) == [
        None, None, True]
    assert host_view(lomonosovs)["unjudged"] == 2


def test_groups_judged_differently_are_not_merged_and_nothing_changes(lomonosovs, host):
    services.answers_judge(actor=host, game=lomonosovs, question=1, normalized="ломоносов",
                           verdict=True)
    services.answers_judge(actor=host, game=lomonosovs, question=1, normalized="ломоносав",
                           verdict=False)
    before = snapshot_of(lomonosovs)
    with pytest.raises(DomainError, match="judged differently"):
        merge(lomonosovs, host)
    assert snapshot_of(lomonosovs) == before
    assert Question.objects.get(number=1).merged == {}
    # ... and the console does not offer that pair
    assert host_view(lomonosovs)["suggestions"] == [
        {"keys": ["ломоносов", "lomonosov"], "reasons": ["transliteration"]}]


def test_a_split_undoes_the_merge_and_keeps_the_verdicts(lomonosovs, host):
    merge(lomonosovs, host)
    services.answers_judge(actor=host, game=lomonosovs, question=1, normalized="ломоносов",
                           verdict=True)
    assert grouping.groups_split(actor=host, game=lomonosovs, question=1,
                                 key="ломоносов") == 3
    view = host_view(lomonosovs)
    assert sorted((g["key"], g["verdict"]) for g in view["groups"]) == [
        ("lomonosov", True), ("ломоносав", True), ("ломоносов", True)]
    assert AuditEntry.objects.filter(action="kingofhill.split").count() == 1


def test_a_suggestion_kept_apart_does_not_come_back_for_that_question(lomonosovs, host):
    grouping.groups_keep_apart(actor=host, game=lomonosovs, question=1,
                               keys=["ломоносов", "ломоносав", "lomonosov"])
    assert host_view(lomonosovs)["suggestions"] == []
    assert AuditEntry.objects.filter(action="kingofhill.apart").count() == 1
    versions = stream_versions(lomonosovs.pk)
    grouping.groups_keep_apart(actor=host, game=lomonosovs, question=1,
                               keys=["ломоносов", "ломоносав"])  # already apart: nothing new
    assert stream_versions(lomonosovs.pk) == versions


@pytest.mark.parametrize(("keys", "message"), [
    (["ломоносов"], "at least two different groups"),
    (["ломоносов", "ломоносов"], "at least two different groups"),
    (["ломоносов", "пушкин"], "No group «пушкин»"),
    ("ломоносов", "list of their keys"),
])
def test_a_bad_merge_is_refused_and_changes_nothing(lomonosovs, host, keys, message):
    before = snapshot_of(lomonosovs)
    with pytest.raises(DomainError, match=message):
        grouping.groups_merge(actor=host, game=lomonosovs, question=1, keys=keys)
    assert snapshot_of(lomonosovs) == before


def test_only_the_open_question_is_grouped_and_only_by_a_host(lomonosovs, host, outsider):
    with pytest.raises(NotAllowed):
        merge(lomonosovs, outsider)
    with pytest.raises(DomainError, match="Question 2 is not open"):
        grouping.groups_merge(actor=host, game=lomonosovs, question=2,
                              keys=["ломоносов", "ломоносав"])
    with pytest.raises(DomainError, match="not a merge"):
        grouping.groups_split(actor=host, game=lomonosovs, question=1, key="ломоносов")


def test_the_api_merges_and_a_bad_body_is_a_400_with_a_detail(client, lomonosovs, host):
    client.force_login(host)
    url = reverse("kingofhill:api_groups_merge", args=[lomonosovs.pk])
    r = client.post(url, {"question": 1, "keys": ["ломоносов", "пушкин"]},
                    content_type="application/json")
    assert r.status_code == 400 and "пушкин" in r.json()["detail"]
    r = client.post(url, {"question": 1, "keys": "ломоносов"}, content_type="application/json")
    assert r.status_code == 400 and r.json()["detail"]
    r = client.post(url, {"question": 1, "keys": ["ломоносов", "ломоносав", "lomonosov"]},
                    content_type="application/json")
    assert r.status_code == 200, r.content
    assert [g["count"] for g in r.json()["state"]["host"]["groups"]] == [3]
    split = reverse("kingofhill:api_groups_split", args=[lomonosovs.pk])
    r = client.post(split, {"question": 1, "key": "ломоносов"}, content_type="application/json")
    assert r.status_code == 200 and len(r.json()["state"]["host"]["groups"]) == 3
    apart = reverse("kingofhill:api_groups_apart", args=[lomonosovs.pk])
    r = client.post(apart, {"question": 1, "keys": ["ломоносов", "ломоносав"]},
                    content_type="application/json")
    assert r.status_code == 200
    assert r.json()["state"]["host"]["suggestions"] == [
        {"keys": ["ломоносов", "lomonosov"], "reasons": ["transliteration"]}]


def test_a_merged_group_is_still_offered_what_matches_any_of_its_texts(running, host, alpha,
                                                                       beta, gamma):
    announce(running, host)
    for entry, text in ((alpha, "Ломоносав"), (beta, "Ломоносов"), (gamma, "М. Ломоносов")):
        answer(running, entry, text)
    grouping.groups_merge(actor=host, game=running, question=1, keys=["ломоносав", "ломоносов"])
    assert host_view(running)["suggestions"] == [
        {"keys": ["ломоносав", "м ломоносов"], "reasons": ["initials"]}]
