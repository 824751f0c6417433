"""Services: every registration rule with its message, notices, benefits (phone joins:
``test_joins``)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.contrib.sessions.backends.db import SessionStore
from django.utils import timezone

from teams import selectors, services
from teams.models import Application, Benefit, Game, Notice
from teams.services import TeamsError
from tests.teams.conftest import apply

pytestmark = pytest.mark.django_db


# --- teams and members --------------------------------------------------------------------


def test_team_name_is_stripped_and_unique_case_insensitively_in_any_script(alpha, beta):
    team = services.team_create(captain=alpha, name="  Альфа  ")
    assert team.name == "Альфа"
    with pytest.raises(TeamsError, match="already exists"):
        services.team_create(captain=beta, name="АЛЬФА")
    with pytest.raises(TeamsError, match="already exists"):
        services.team_create(captain=beta, name="альфа")


@pytest.mark.parametrize(
    ("name", "message"),
    [
        pytest.param("", "must not be empty", id="empty"),
        pytest.param("   \t ", "must not be empty", id="whitespace only"),
        pytest.param("\u200b", "must not be empty", id="zero-width space only"),
        pytest.param("x" * 101, "too long", id="101 characters"),
        pytest.param("x" * 1000, "too long", id="1000 characters"),
        pytest.param("bad\x00name", "control characters", id="NUL byte"),
    ],
)
def test_bad_team_names_are_refused(alpha, name, message):
    with pytest.raises(TeamsError, match=message):
        services.team_create(captain=alpha, name=name)


@pytest.mark.parametrize(
    "name",
    ["<script>alert(1)</script>", "Ёжики 🦔", "x" * 100, "Ω Team", "Команда «Кот»"],
    ids=["html is kept as text", "emoji", "exactly 100", "greek", "guillemets"],
)
def test_unicode_and_html_names_are_accepted_as_text(alpha, name):
    assert services.team_create(captain=alpha, name=name).name == name


def test_rename_keeps_uniqueness(team_alpha, team_beta):
    with pytest.raises(TeamsError, match="already exists"):
        services.team_rename(team=team_beta, name="альфа")
    assert services.team_rename(team=team_alpha, name="АЛЬФА").name == "АЛЬФА"


def test_member_nicknames_unique_within_team_and_email_checked(team_alpha, team_beta):
    with pytest.raises(TeamsError, match="already has a member"):
        services.member_create(team=team_alpha, nickname="ann")
    services.member_create(team=team_beta, nickname="Ann")  # other team: fine
    with pytest.raises(TeamsError, match="valid e-mail"):
        services.member_create(team=team_alpha, nickname="Zed", email="not-an-email")


def test_member_update_changes_private_data(team_alpha):
    member = team_alpha.members.get(nickname="Ann")
    services.member_update(member=member, phone="+7 999 000-00-00", full_name="Анна")
    member.refresh_from_db()
    assert (member.phone, member.full_name, member.nickname) == ("+7 999 000-00-00", "Анна", "Ann")


# --- games ----------------------------------------------------------------------------------


def test_game_defaults(game, organizer):
    assert (game.fee, game.rated, game.status, game.created_by) == (
        400,
        True,
        "scheduled",
        organizer,
    )


def test_late_publication_warns_but_publishes(organizer, now):
    game = services.game_create(
        actor=organizer, title="Скоро", game_format="gorod", starts_at=now + timedelta(days=2)
    )
    assert game.pk
    assert "4 days" in services.game_publication_warning(game=game)


def test_timely_publication_has_no_warning(game):
    assert services.game_publication_warning(game=game) is None


def test_game_needs_an_aware_start_and_a_known_format(organizer):
    from datetime import datetime

    with pytest.raises(TeamsError, match="time zone"):
        services.game_create(
            actor=organizer, title="X", game_format="gorod", starts_at=datetime(2030, 1, 1)
        )
    with pytest.raises(TeamsError, match="Unknown game format"):
        services.game_create(
            actor=organizer, title="X", game_format="chess", starts_at=timezone.now()
        )


# --- applications -----------------------------------------------------------------------------


def test_apply_and_approve(game, team_alpha, organizer):
    application = apply(team_alpha, game)
    assert application.status == "pending" and application.join_token is None
    application = services.application_approve(application=application, actor=organizer)
    assert application.status == "approved"
    assert len(application.join_token) >= 30
    assert len(application.join_pin) == 6 and application.join_pin.isdigit()
    assert Notice.objects.filter(team=team_alpha, kind="application_approved").exists()


@pytest.mark.parametrize(
    ("fmt", "size", "ok"),
    [
        pytest.param("kingofhill", 2, False, id="king of the hill with two"),
        pytest.param("kingofhill", 3, True, id="king of the hill with three"),
        pytest.param("gorod", 1, False, id="gorod with one"),
        pytest.param("gorod", 2, True, id="gorod with two"),
    ],
)
def test_roster_size_per_format(game, koth_game, team_alpha, fmt, size, ok):
    target = koth_game if fmt == "kingofhill" else game
    members = list(team_alpha.members.all()[:size])
    if ok:
        services.application_submit(game=target, team=team_alpha, members=members)
    else:
        with pytest.raises(TeamsError, match=f"with {2 if fmt == 'gorod' else 3} to 8 members"):
            services.application_submit(game=target, team=team_alpha, members=members)


def test_roster_of_nine_is_refused(game, team_alpha):
    for i in range(6):
        services.member_create(team=team_alpha, nickname=f"extra{i}")
    with pytest.raises(TeamsError, match="the roster has 9"):
        apply(team_alpha, game)


def test_roster_must_be_own_members(game, team_alpha, team_beta):
    members = [*team_alpha.members.all()[:2], team_beta.members.first()]
    with pytest.raises(TeamsError, match="only list members of the team"):
        services.application_submit(game=game, team=team_alpha, members=members)


def test_applications_close_one_hour_before(game, team_alpha):
    with pytest.raises(TeamsError, match="closed 1 hour before"):
        apply(team_alpha, game, now=game.starts_at - timedelta(minutes=59))
    apply(team_alpha, game, now=game.starts_at - timedelta(minutes=61))


def test_banned_team_cannot_apply_while_the_ban_lasts(game, team_alpha, organizer):
    services.ban_create(
        team=team_alpha, actor=organizer, reason="11.3.8", until=game.starts_at + timedelta(days=1)
    )
    with pytest.raises(TeamsError, match="banned from applying until"):
        apply(team_alpha, game)
    assert Notice.objects.filter(team=team_alpha, kind="banned").exists()


def test_ban_over_allows_applying(game, team_alpha, organizer, now):
    services.ban_create(
        team=team_alpha, actor=organizer, reason="old", until=now - timedelta(days=1)
    )
    application = apply(team_alpha, game)
    assert Application.objects.get(game=game, team=team_alpha) == application
    assert application.status == "pending"
    assert application.members.count() == team_alpha.members.count()


def test_ban_needs_a_reason(team_alpha, organizer, now):
    with pytest.raises(TeamsError, match="reason"):
        services.ban_create(team=team_alpha, actor=organizer, reason=" ", until=now)


def test_cancelled_game_refuses_applications(game, team_alpha, organizer):
    services.game_cancel(game=game, actor=organizer)
    with pytest.raises(TeamsError, match="does not accept applications"):
        apply(team_alpha, game)


def test_resubmitting_changes_the_roster_and_reopens_a_withdrawn_application(game, team_alpha):
    first = apply(team_alpha, game)
    services.application_submit(game=game, team=team_alpha, members=team_alpha.members.all()[:2])
    first.refresh_from_db()
    assert first.members.count() == 2
    services.application_withdraw(application=first)
    again = apply(team_alpha, game)
    assert again.pk == first.pk and again.status == "pending"


def test_only_pending_can_be_approved(approved_alpha, organizer):
    with pytest.raises(TeamsError, match="Only a pending application"):
        services.application_approve(application=approved_alpha, actor=organizer)


def test_reject_notifies_and_logs_phones_out(approved_alpha, organizer):
    session = SessionStore()
    services.join_by_token(session=session, token=approved_alpha.join_token)
    services.application_reject(application=approved_alpha, actor=organizer, reason="roster")
    assert selectors.team_entry_for_session(session, approved_alpha.game) is None
    notice = Notice.objects.get(kind="application_rejected")
    assert notice.text == "roster"


def test_few_applications_warning(game, team_alpha, team_beta):
    assert selectors.game_few_applications(game)
    apply(team_alpha, game)
    apply(team_beta, game)
    assert selectors.game_active_application_count(game) == 2
    assert selectors.game_few_applications(game)


def test_five_applications_are_enough(game, django_user_model):
    for i in range(5):
        captain = django_user_model.objects.create_user(f"cap{i}")
        team = services.team_create(captain=captain, name=f"T{i}")
        for nick in ("a", "b"):
            services.member_create(team=team, nickname=nick)
        apply(team, game)
    assert not selectors.game_few_applications(game)


def test_cancel_notifies_every_applicant(game, approved_alpha, team_beta, organizer):
    apply(team_beta, game)
    services.game_cancel(game=game, actor=organizer, reason="Мало команд")
    notices = Notice.objects.filter(kind="game_cancelled", game=game)
    assert {n.team.name for n in notices} == {"Альфа", "Бета"}
    assert all(n.text == "Мало команд" for n in notices)
    with pytest.raises(TeamsError, match="already cancelled"):
        services.game_cancel(game=game, actor=organizer)


def test_cancelled_game_has_no_team_entries(approved_alpha, organizer):
    session = SessionStore()
    services.join_by_token(session=session, token=approved_alpha.join_token)
    services.game_cancel(game=approved_alpha.game, actor=organizer)
    assert selectors.team_entry_for_session(session, approved_alpha.game) is None


def test_mark_paid(approved_alpha):
    services.application_mark_paid(application=approved_alpha, paid=True)
    approved_alpha.refresh_from_db()
    assert approved_alpha.paid and approved_alpha.paid_at


def test_mark_paid_needs_approval(game, team_alpha):
    with pytest.raises(TeamsError, match="approved"):
        services.application_mark_paid(application=apply(team_alpha, game))


# --- benefits and the ledger ----------------------------------------------------------------


def _past_game(organizer, days_ago, title):
    game = services.game_create(
        actor=organizer,
        title=title,
        game_format="gorod",
        starts_at=timezone.now() - timedelta(days=days_ago),
    )
    Game.objects.filter(pk=game.pk).update(status=Game.Status.FINISHED)
    return game


def _played(team, game, organizer):
    application, _ = Application.objects.get_or_create(game=game, team=team)
    application.members.set(team.members.all())
    application.status = Application.Status.APPROVED
    application.save()
    return application


def test_benefits_grant_and_ledger(organizer, team_alpha, team_beta, game, django_user_model):
    played = _past_game(organizer, 7, "Прошлая игра")
    _played(team_alpha, played, organizer)
    _played(team_beta, played, organizer)
    granted = services.benefits_grant(played, {team_alpha.pk: 1, team_beta.pk: 2})
    assert {(b.team_id, b.percent) for b in granted} == {(team_alpha.pk, 100), (team_beta.pk, 50)}
    services.application_approve(application=apply(team_alpha, game), actor=organizer)
    beta_app = services.application_approve(application=apply(team_beta, game), actor=organizer)
    alpha_ledger = selectors.team_ledger(team_alpha)
    assert [(line.game.title, line.due) for line in alpha_ledger.lines] == [
        ("Ночной ГоРоД", 0),
        ("Прошлая игра", 400),
    ]
    assert selectors.application_amount_due(beta_app) == 200
    assert selectors.team_ledger(team_beta).benefits[0].used_at == game


def test_benefits_grant_is_idempotent_and_ignores_other_places(organizer, team_alpha, team_beta):
    played = _past_game(organizer, 7, "Игра")
    services.benefits_grant(played, {team_alpha.pk: 1, team_beta.pk: 4})
    services.benefits_grant(played, {team_alpha.pk: 3, team_beta.pk: 4})
    assert list(Benefit.objects.values_list("team_id", "percent")) == [(team_alpha.pk, 25)]
    assert Notice.objects.filter(kind="benefit").count() == 1


def test_benefit_lapses_after_three_games(organizer, team_alpha):
    won = _past_game(organizer, 40, "Победа")
    for days, title in ((30, "1"), (20, "2"), (10, "3")):
        _past_game(organizer, days, title)
    services.benefits_grant(won, {team_alpha.pk: 1})
    ledger = selectors.team_ledger(team_alpha)
    assert ledger.benefits[0].lapsed and ledger.benefits[0].used_at is None
