"""Players' profiles on the roster (rule 2.6): a player claims their entry through the
captain's invitation, or the captain links an account by e-mail; a typo's entry merges into
the right one. Every change is audited; only the team's captain and organizers may do it."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth.models import User
from django.core import mail, signing
from django.db import IntegrityError, transaction

from core.models import AuditEntry
from teams import profiles
from teams.errors import TeamsError
from teams.models import Member
from tests.teams.conftest import api_login, apply, login

pytestmark = pytest.mark.django_db


def _member(team, nickname) -> Member:
    return team.members.get(nickname=nickname)


def _player(username="anna", email="anna@example.org", **names) -> User:
    return User.objects.create_user(username, email=email, **names)


def _actions():
    return list(AuditEntry.objects.order_by("pk").values_list("action", flat=True))


# --- the invitation ----------------------------------------------------------------------


def test_a_player_claims_their_entry_with_the_captains_invitation_and_it_is_audited(team_alpha):
    ann = _member(team_alpha, "Ann")
    anna = _player()
    claimed = profiles.member_claim(user=anna, token=profiles.invite_token(ann))
    assert (claimed.pk, claimed.user, claimed.linked_at is not None) == (ann.pk, anna, True)
    entry = AuditEntry.objects.get(action="teams.profile_link")
    assert (entry.actor, entry.before["user"], entry.after["user"], entry.reason) == (
        anna, None, anna.pk, "invite")
    # Claiming again is no change and no second entry.
    profiles.member_claim(user=anna, token=profiles.invite_token(ann))
    assert _actions() == ["teams.profile_link"]


def test_a_wrong_invitation_or_one_whose_entry_is_gone_is_refused(team_alpha, client):
    ann = _member(team_alpha, "Ann")
    token = profiles.invite_token(ann)
    anna = _player()
    for bad in (token[:-2] + "xx", signing.dumps({"m": ann.pk}, salt="another")):
        with pytest.raises(TeamsError, match="wrong or expired"):
            profiles.member_claim(user=anna, token=bad)
    ann.delete()
    with pytest.raises(TeamsError, match="wrong or expired"):
        profiles.member_claim(user=anna, token=token)
    page = client.get(f"/teams/invite/{token}/")
    assert page.status_code == 400 and 'id="invite-error"' in page.content.decode()


def test_an_entry_is_one_profile_and_a_profile_one_entry_of_a_team(team_alpha, team_beta):
    ann, bob = _member(team_alpha, "Ann"), _member(team_alpha, "Bob")
    anna, other = _player(), _player("other", "other@example.org")
    profiles.member_claim(user=anna, token=profiles.invite_token(ann))
    with pytest.raises(TeamsError, match="already «Ann» in this team"):
        profiles.member_claim(user=anna, token=profiles.invite_token(bob))
    with pytest.raises(TeamsError, match="already linked to another profile"):
        profiles.member_claim(user=other, token=profiles.invite_token(ann))
    # Another team may have the same person.
    dan = profiles.member_claim(user=anna, token=profiles.invite_token(_member(team_beta, "Dan")))
    assert dan.user == anna
    with pytest.raises(IntegrityError), transaction.atomic():
        Member.objects.filter(pk=bob.pk).update(user=anna)
    assert list(Member.objects.filter(user=anna).order_by("pk")) == [ann, dan]


def test_the_invitation_page_asks_a_visitor_to_log_in_and_links_only_on_the_button(team_alpha):
    ann = _member(team_alpha, "Ann")
    url = f"/teams/invite/{profiles.invite_token(ann)}/"
    visitor = login(_player("visitor", "v@example.org")).get(url)
    assert 'id="invite-claim"' in visitor.content.decode()
    anonymous = login(_player("x", "x@example.org"))
    anonymous.logout()
    html = anonymous.get(url).content.decode()
    assert 'id="invite-signup"' in html and "next=%2Fteams%2Finvite%2F" in html
    assert 'id="invite-claim"' not in anonymous.post(url).content.decode()
    ann.refresh_from_db()
    assert ann.user is None  # neither opening it nor an anonymous POST links anything

    anna = _player(last_name="Лисицына", first_name="Анна")
    response = login(anna).post(url)
    ann.refresh_from_db()
    assert ann.user == anna
    assert response.headers["Location"] == f"/rating/players/{anna.pk}/"


def test_a_player_without_a_name_is_sent_to_the_profile_after_claiming(team_alpha):
    ann = _member(team_alpha, "Ann")
    response = login(_player()).post(f"/teams/invite/{profiles.invite_token(ann)}/")
    assert response.headers["Location"] == "/accounts/profile/"


def test_signing_up_from_the_invitation_comes_back_to_it_after_the_e_mail_link(
        team_alpha, client, django_capture_on_commit_callbacks):
    invite = f"/teams/invite/{profiles.invite_token(_member(team_alpha, 'Ann'))}/"
    with django_capture_on_commit_callbacks(execute=True):
        client.post(f"/accounts/signup/?next={invite}", {
            "username": "anna", "email": "anna@example.org", "next": invite,
            "password1": "a-long-Passw0rd", "password2": "a-long-Passw0rd"})
    link = re.search(r"https?://\S+/accounts/verify/\S+", mail.outbox[-1].body).group(0)
    response = client.get(link[link.index("/accounts/"):])
    assert response.headers["Location"] == invite
    # Another site is never a place to come back to.
    assert client.get("/accounts/signup/?next=https://evil.example/").context["next"] == ""


# --- the captain -------------------------------------------------------------------------


def test_the_captain_links_an_account_by_e_mail_and_unlinks_it(team_alpha, alpha):
    ann = _member(team_alpha, "Ann")
    anna = _player(email="Anna@Example.org")
    profiles.member_link(actor=alpha, member=ann, email=" anna@example.org ")
    ann.refresh_from_db()
    assert ann.user == anna
    profiles.member_unlink(actor=alpha, member=ann)
    ann.refresh_from_db()
    assert (ann.user, ann.linked_at) == (None, None)
    assert _actions() == ["teams.profile_link", "teams.profile_unlink"]
    with pytest.raises(TeamsError, match="not linked"):
        profiles.member_unlink(actor=alpha, member=ann)


def test_an_unknown_or_unconfirmed_e_mail_is_refused(team_alpha, alpha):
    ann = _member(team_alpha, "Ann")
    User.objects.create_user("sleepy", email="sleepy@example.org", is_active=False)
    for email in ("nobody@example.org", "sleepy@example.org", ""):
        with pytest.raises(TeamsError, match="No active account"):
            profiles.member_link(actor=alpha, member=ann, email=email)
    assert _actions() == []


def test_merging_a_typo_moves_its_games_and_profile_and_removes_it_audited(
        team_alpha, alpha, game, koth_game):
    ann = _member(team_alpha, "Ann")
    typo = profiles.member_claim(user=_player(), token=profiles.invite_token(
        Member.objects.create(team=team_alpha, nickname="Anm", nickname_key="anm",
                              phone="+79001112233")))
    first = apply(team_alpha, game)  # the whole roster: Ann and the typo
    first.members.remove(ann)
    second = apply(team_alpha, koth_game)  # both on it too
    merged = profiles.member_merge(actor=alpha, typo=typo, into=ann)
    assert not Member.objects.filter(pk=typo.pk).exists()
    assert (merged.pk, merged.user, merged.linked_at) == (ann.pk, typo.user, typo.linked_at)
    assert merged.phone == ann.phone  # its own data stays; only what it lacked comes over
    for application in (first, second):
        roster = set(application.members.values_list("nickname", flat=True))
        assert "Ann" in roster and "Anm" not in roster
    entry = AuditEntry.objects.get(action="teams.member_merge")
    assert (entry.actor, entry.before["typo"]["nickname"], entry.after["member"]) == (
        alpha, "Anm", ann.pk)
    assert sorted(entry.after["applications"]) == sorted([first.pk, second.pk])


def test_merging_is_refused_across_teams_and_between_two_profiles(team_alpha, team_beta, alpha):
    ann, bob = _member(team_alpha, "Ann"), _member(team_alpha, "Bob")
    with pytest.raises(TeamsError, match="same team"):
        profiles.member_merge(actor=alpha, typo=ann, into=_member(team_beta, "Dan"))
    profiles.member_claim(user=_player(), token=profiles.invite_token(ann))
    profiles.member_claim(user=_player("bob", "bob@example.org"),
                          token=profiles.invite_token(bob))
    with pytest.raises(TeamsError, match="different profiles"):
        profiles.member_merge(actor=alpha, typo=ann, into=bob)
    with pytest.raises(TeamsError, match="another entry"):
        profiles.member_merge(actor=alpha, typo=ann, into=ann)
    assert Member.objects.filter(pk__in=[ann.pk, bob.pk]).count() == 2
    assert "teams.member_merge" not in _actions()


# --- pages, API and who may ----------------------------------------------------------------


def test_the_member_page_shows_the_invitation_and_its_forms_work(team_alpha, alpha):
    ann, bob = _member(team_alpha, "Ann"), _member(team_alpha, "Bob")
    captain = login(alpha)
    base = f"/teams/{team_alpha.pk}/members/{ann.pk}/"
    html = captain.get(base).content.decode()
    token = re.search(r'id="invite-url" value="[^"]*/teams/invite/([^/"]+)/"', html).group(1)
    assert profiles.member_by_invite(token) == ann
    anna = _player()
    captain.post(base + "link/", {"email": "anna@example.org"})
    assert 'id="profile-linked"' in captain.get(base).content.decode()
    team_page = captain.get(f"/teams/{team_alpha.pk}/").content.decode()
    assert team_page.count('class="muted member-linked"') == 1
    refused = captain.post(base + "link/", {"email": "nobody@example.org"}, follow=True)
    assert "No active account" in refused.content.decode()
    response = captain.post(f"/teams/{team_alpha.pk}/members/{bob.pk}/merge/",
                            {"into": ann.pk})
    assert response.headers["Location"] == f"/teams/{team_alpha.pk}/"
    assert list(team_alpha.members.values_list("nickname", flat=True)) == ["Ann", "Cat"]
    ann.refresh_from_db()
    assert ann.user == anna
    captain.post(base + "unlink/")
    ann.refresh_from_db()
    assert ann.user is None


def test_only_the_captain_or_an_organizer_links_unlinks_and_merges(
        team_alpha, team_beta, beta, organizer, outsider):
    ann, bob = _member(team_alpha, "Ann"), _member(team_alpha, "Bob")
    _player()
    base = f"/teams/{team_alpha.pk}/members/{ann.pk}/"
    for user in (beta, outsider):
        client = login(user)
        assert client.post(base + "link/", {"email": "anna@example.org"}).status_code == 403
        assert client.post(base + "unlink/").status_code == 403
        assert client.post(base + "merge/", {"into": bob.pk}).status_code == 403
        api = api_login(user)
        assert api.post(f"/teams/api/teams/{team_alpha.pk}/members/{ann.pk}/profile/",
                        {"email": "anna@example.org"}).status_code == 403
    ann.refresh_from_db()
    assert ann.user is None and Member.objects.filter(pk=bob.pk).exists()
    assert login(organizer).post(base + "link/", {"email": "anna@example.org"}).status_code == 302
    ann.refresh_from_db()
    assert ann.user.username == "anna"


def test_the_api_links_merges_and_claims_with_a_detail_on_refusal(team_alpha, team_beta, alpha):
    ann, bob = _member(team_alpha, "Ann"), _member(team_alpha, "Bob")
    anna = _player()
    api = api_login(alpha)
    base = f"/teams/api/teams/{team_alpha.pk}/members/"
    linked = api.post(f"{base}{ann.pk}/profile/", {"email": "anna@example.org"}, format="json")
    assert (linked.status_code, linked.json()["user"]) == (200, anna.pk)
    refused = api.post(f"{base}{ann.pk}/merge/", {"into": _member(team_beta, "Dan").pk},
                       format="json")
    assert refused.status_code == 400 and "same team" in refused.json()["detail"]
    gone = api.post(f"{base}{ann.pk}/merge/", {"into": 10**12}, format="json")
    assert gone.status_code == 400 and gone.json()["detail"]
    merged = api.post(f"{base}{bob.pk}/merge/", {"into": ann.pk}, format="json")
    assert (merged.status_code, merged.json()["id"]) == (200, ann.pk)
    unlinked = api.delete(f"{base}{ann.pk}/profile/")
    assert (unlinked.status_code, unlinked.json()["user"]) == (200, None)

    claim = api_login(anna).post("/teams/api/invites/claim/",
                                 {"token": profiles.invite_token(ann)}, format="json")
    assert (claim.status_code, claim.json()["user"]) == (200, anna.pk)
    bad = api_login(anna).post("/teams/api/invites/claim/", {"token": "nope"}, format="json")
    assert bad.status_code == 400 and "wrong or expired" in bad.json()["detail"]
