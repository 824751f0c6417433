"""Accounts: captains sign up and verify their e-mail, reset a forgotten password through
Django's views, edit the name the players' rating shows; organizers grant and revoke roles."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth.models import Group, User
from django.core import mail

from core.accounts import selectors, services
from core.models import RoleChange
from core.roles import HOST, ORGANIZER, is_host, is_organizer

pytestmark = pytest.mark.django_db
GOOD_PASSWORD = "Ночной-город-2026"


def signup(client, captured, username="lisa", email="lisa@example.org", password=GOOD_PASSWORD,
           password2=None):
    with captured(execute=True):
        return client.post("/accounts/signup/", {
            "username": username, "email": email, "password1": password,
            "password2": password if password2 is None else password2})


def link_in(message) -> str:
    return re.search(r"https?://\S+", message.body).group(0).replace("http://testserver", "")


@pytest.fixture
def captured(django_capture_on_commit_callbacks):
    return django_capture_on_commit_callbacks


@pytest.fixture
def organizer():
    user = User.objects.create_user("boss", "boss@example.org", "pw-boss-2026")
    user.groups.add(Group.objects.get(name=ORGANIZER))
    return user


# --- sign-up and verification -------------------------------------------------------------------


def test_a_captain_signs_up_gets_a_link_and_is_logged_in_by_it(client, captured):
    response = signup(client, captured)
    assert response.status_code == 200 and "lisa@example.org" in response.content.decode()
    user = User.objects.get(username="lisa")
    assert not user.is_active  # no login before the address is proven
    assert not client.login(username="lisa", password=GOOD_PASSWORD)
    assert len(mail.outbox) == 1 and mail.outbox[0].to == ["lisa@example.org"]
    response = client.get(link_in(mail.outbox[0]), follow=True)
    assert response.redirect_chain[-1][0] == "/teams/"
    assert response.context["user"].username == "lisa"
    assert User.objects.get(username="lisa").is_active


def test_a_verification_link_works_once(client, captured):
    signup(client, captured)
    link = link_in(mail.outbox[0])
    client.get(link)
    client.logout()
    response = client.get(link)
    assert response.status_code == 400
    assert "wrong, used or expired" in response.content.decode()


@pytest.mark.parametrize("path", [
    "/accounts/verify/MQ/bad-token/",
    "/accounts/verify/not-base64!/abc-def/",
    "/accounts/verify/OTk5OTk/abc-def/",  # user 99999 does not exist
])
def test_a_bad_verification_link_is_refused_with_a_message(client, path):
    User.objects.create_user("lisa", "lisa@example.org", GOOD_PASSWORD, is_active=False)
    response = client.get(path)
    assert response.status_code == 400
    assert "wrong, used or expired" in response.content.decode()
    assert not User.objects.get(username="lisa").is_active


def test_a_password_reset_token_does_not_verify_an_account(client):
    from django.contrib.auth.tokens import default_token_generator
    from django.utils.encoding import force_bytes
    from django.utils.http import urlsafe_base64_encode

    user = User.objects.create_user("lisa", "lisa@example.org", GOOD_PASSWORD, is_active=False)
    uid = urlsafe_base64_encode(force_bytes(user.pk))
    response = client.get(f"/accounts/verify/{uid}/{default_token_generator.make_token(user)}/")
    assert response.status_code == 400


def test_a_taken_username_is_refused_whatever_its_case(client, captured):
    User.objects.create_user("Lisa", "other@example.org", GOOD_PASSWORD)
    response = signup(client, captured, username="lisa")
    assert response.status_code == 200
    assert "A user with that username already exists." in response.content.decode()
    assert User.objects.count() == 1 and mail.outbox == []


def test_a_taken_email_is_refused(client, captured):
    User.objects.create_user("fox", "Lisa@Example.org", GOOD_PASSWORD)
    response = signup(client, captured)
    assert "An account with this e-mail already exists." in response.content.decode()
    assert not User.objects.filter(username="lisa").exists()


@pytest.mark.parametrize(("password", "password2", "why"), [
    ("12345678", None, "This password is too common."),
    ("83920174655", None, "This password is entirely numeric."),
    ("lisa2", None, "This password is too short."),
    ("lisa@example.org", None, "The password is too similar to the email address."),
    (GOOD_PASSWORD, GOOD_PASSWORD + "x", "The two password fields didn’t match."),
])
def test_a_weak_or_mistyped_password_is_refused_with_the_reason(client, captured, password,
                                                                password2, why):
    response = signup(client, captured, password=password, password2=password2)
    assert why in response.content.decode().replace("&#x27;", "'")
    assert not User.objects.filter(username="lisa").exists()


def test_signing_up_needs_an_email(client, captured):
    response = signup(client, captured, email="not-an-address")
    assert "Enter a valid email address." in response.content.decode()
    assert not User.objects.exists()


# --- password reset ------------------------------------------------------------------------------


def test_a_forgotten_password_is_reset_through_the_mailed_link(client):
    User.objects.create_user("lisa", "lisa@example.org", "old-Password-2026")
    response = client.post("/accounts/password_reset/", {"email": "lisa@example.org"}, follow=True)
    assert response.redirect_chain[-1][0] == "/accounts/password_reset/done/"
    assert len(mail.outbox) == 1
    form_page = client.get(link_in(mail.outbox[0]), follow=True)
    assert 'id="reset-form"' in form_page.content.decode()
    set_url = form_page.redirect_chain[-1][0]
    weak = client.post(set_url, {"new_password1": "12345678", "new_password2": "12345678"})
    assert "This password is too common." in weak.content.decode()
    done = client.post(set_url, {"new_password1": GOOD_PASSWORD, "new_password2": GOOD_PASSWORD},
                       follow=True)
    assert done.redirect_chain[-1][0] == "/accounts/reset/done/"
    assert client.login(username="lisa", password=GOOD_PASSWORD)


def test_a_bad_reset_link_says_so_and_offers_a_new_one(client):
    User.objects.create_user("lisa", "lisa@example.org", "old-Password-2026")
    response = client.get("/accounts/reset/MQ/bad-token/")
    html = response.content.decode()
    assert 'id="reset-invalid"' in html and 'href="/accounts/password_reset/"' in html


def test_a_reset_for_an_unknown_address_sends_nothing_and_tells_nothing(client):
    response = client.post("/accounts/password_reset/", {"email": "nobody@example.org"})
    assert response.status_code == 302 and mail.outbox == []


# --- the links in the mail -------------------------------------------------------------------
# Behind a proxy or on a hall laptop the Host a request came with ("testserver" here) may be a
# name only the server knows: the mailed links are on PUBLIC_URL when it is set.

PUBLIC = "https://club.example.org"


def mailed_link(message) -> str:
    return re.search(r"https?://\S+", message.body).group(0)


@pytest.mark.parametrize(("public_url", "base"), [
    pytest.param(PUBLIC, PUBLIC, id="on PUBLIC_URL when it is set"),
    pytest.param("", "http://testserver", id="on the address asked when it is not"),
])
def test_the_verification_link_is_on_the_sites_public_address(client, captured, settings,
                                                             public_url, base):
    settings.PUBLIC_URL = public_url
    signup(client, captured)
    link = mailed_link(mail.outbox[0])
    assert link.startswith(base + "/accounts/verify/")
    response = client.get(link.removeprefix(base), follow=True)
    assert response.context["user"].username == "lisa"


@pytest.mark.parametrize(("public_url", "base"), [
    pytest.param(PUBLIC, PUBLIC, id="on PUBLIC_URL when it is set"),
    pytest.param("", "http://testserver", id="on the address asked when it is not"),
])
def test_the_password_reset_link_is_on_the_sites_public_address(client, settings, public_url,
                                                               base):
    settings.PUBLIC_URL = public_url
    User.objects.create_user("lisa", "lisa@example.org", "old-Password-2026")
    client.post("/accounts/password_reset/", {"email": "lisa@example.org"})
    link = mailed_link(mail.outbox[0])
    assert link.startswith(base + "/accounts/reset/")
    form_page = client.get(link.removeprefix(base), follow=True)
    assert 'id="reset-form"' in form_page.content.decode()


def test_the_new_link_an_unconfirmed_login_mails_is_on_public_url(client, captured, settings):
    settings.PUBLIC_URL = PUBLIC
    signup(client, captured)
    mail.outbox.clear()
    client.post("/accounts/login/", {"username": "lisa", "password": GOOD_PASSWORD})
    assert mailed_link(mail.outbox[0]).startswith(PUBLIC + "/accounts/verify/")


# --- the profile ---------------------------------------------------------------------------------


def test_the_profile_sets_the_name_the_players_rating_shows(client):
    user = User.objects.create_user("lisa", "lisa@example.org", GOOD_PASSWORD)
    client.force_login(user)
    assert selectors.rating_name(user) == "lisa"
    response = client.post("/accounts/profile/", {"last_name": "Лисицына", "first_name": "Анна",
                                                 "email": "anna@example.org"}, follow=True)
    assert "Лисицына Анна" in response.content.decode()
    user.refresh_from_db()
    assert (user.email, selectors.rating_name(user)) == ("anna@example.org", "Лисицына Анна")


def test_the_profile_refuses_an_email_of_another_account(client):
    User.objects.create_user("fox", "fox@example.org", GOOD_PASSWORD)
    user = User.objects.create_user("lisa", "lisa@example.org", GOOD_PASSWORD)
    client.force_login(user)
    response = client.post("/accounts/profile/", {"email": "FOX@example.org"}, follow=True)
    assert "An account with this e-mail already exists." in response.content.decode()
    user.refresh_from_db()
    assert user.email == "lisa@example.org"


def test_the_profile_needs_a_login(client):
    assert client.get("/accounts/profile/").status_code == 302


# --- roles ---------------------------------------------------------------------------------------


def grant(client, user, role, granted=True):
    return client.post("/accounts/roles/", {"user": user.pk, "role": role,
                                            "granted": "1" if granted else "0"}, follow=True)


def test_an_organizer_grants_and_revokes_the_host_role_and_it_is_recorded(client, organizer):
    lisa = User.objects.create_user("lisa", "lisa@example.org", GOOD_PASSWORD)
    client.force_login(organizer)
    response = grant(client, lisa, HOST)
    assert "lisa is now host." in response.content.decode()
    assert is_host(lisa) and not is_organizer(lisa)
    grant(client, lisa, HOST, granted=False)
    assert not is_host(User.objects.get(pk=lisa.pk))
    changes = list(RoleChange.objects.order_by("id").values_list("role", "granted", "changed_by"))
    assert changes == [(HOST, True, organizer.pk), (HOST, False, organizer.pk)]
    assert "boss revoked the host role of lisa" in client.get("/accounts/roles/").content.decode()


def test_an_organizer_makes_another_organizer(client, organizer):
    lisa = User.objects.create_user("lisa", "lisa@example.org", GOOD_PASSWORD)
    client.force_login(organizer)
    grant(client, lisa, ORGANIZER)
    assert is_organizer(lisa)


@pytest.mark.parametrize(("data", "message"), [
    ({"role": "king"}, "Choose an active account and a role."),
    ({"user": "99999"}, "Choose an active account and a role."),
    ({"granted": "maybe"}, "Choose an active account and a role."),
])
def test_bad_role_input_gets_a_message_and_changes_nothing(client, organizer, data, message):
    lisa = User.objects.create_user("lisa", "lisa@example.org", GOOD_PASSWORD)
    client.force_login(organizer)
    post = {"user": lisa.pk, "role": HOST, "granted": "1", **data}
    response = client.post("/accounts/roles/", post, follow=True)
    assert message in response.content.decode()
    assert not RoleChange.objects.exists() and not is_host(lisa)


def test_granting_a_role_twice_or_revoking_a_missing_one_says_so(client, organizer):
    lisa = User.objects.create_user("lisa", "lisa@example.org", GOOD_PASSWORD)
    client.force_login(organizer)
    grant(client, lisa, HOST)
    assert "lisa already has the host role." in grant(client, lisa, HOST).content.decode()
    page = grant(client, lisa, ORGANIZER, granted=False).content.decode()
    assert "lisa does not have the organizer role." in page
    assert RoleChange.objects.count() == 1


def test_an_organizer_cannot_revoke_their_own_organizer_role(client, organizer):
    client.force_login(organizer)
    page = grant(client, organizer, ORGANIZER, granted=False).content.decode()
    assert "You cannot revoke your own organizer role." in page
    assert is_organizer(organizer)


def test_an_unverified_account_gets_no_role(organizer):
    lisa = User.objects.create_user("lisa", "lisa@example.org", GOOD_PASSWORD, is_active=False)
    with pytest.raises(services.AccountError, match="not active"):
        services.role_set(actor=organizer, user=lisa, role=HOST, granted=True)


def test_only_organizers_open_the_roles_page_or_grant(client):
    host = User.objects.create_user("judge", "judge@example.org", GOOD_PASSWORD)
    host.groups.add(Group.objects.get(name=HOST))
    assert client.get("/accounts/roles/").status_code == 302  # to the login
    client.force_login(host)
    assert client.get("/accounts/roles/").status_code == 403
    assert client.post("/accounts/roles/", {"user": host.pk, "role": ORGANIZER,
                                            "granted": "1"}).status_code == 403
    assert not is_organizer(host)
    with pytest.raises(services.NotAllowed):
        services.role_set(actor=host, user=host, role=ORGANIZER, granted=True)


def test_the_roles_page_finds_accounts_by_name_or_email(client, organizer):
    User.objects.create_user("lisa", "anna@example.org", GOOD_PASSWORD, last_name="Лисицына")
    User.objects.create_user("fox", "fox@example.org", GOOD_PASSWORD)
    client.force_login(organizer)
    html = client.get("/accounts/roles/?q=Лисиц").content.decode()
    assert 'data-user="lisa"' in html and 'data-user="fox"' not in html
