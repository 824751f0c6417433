"""Server-rendered pages: captain's team page, organizer's game page, join pages, QR sheet.

Views authorize (``teams.permissions``), parse a form, call one service and show its error as
a message on the page. Captain and organizer pages need a login (anonymous users go to the log
in page; a logged-in user without the right gets 403). Team phones need no account.
"""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from core.forms import show_form_errors
from core.net import client_address, public_url
from core.roles import is_organizer, require_organizer
from teams import forms, rules, selectors, services
from teams.models import Application, Ban, Game, Member, Team
from teams.permissions import (
    can_manage_application,
    can_manage_team,
    get_team_entry,
)
from teams.presentation import notice_message, profile_context, qr_svg


def managed_team(request, pk: int) -> Team:
    team = get_object_or_404(Team.objects.select_related("captain"), pk=pk)
    if not can_manage_team(request.user, team):
        raise PermissionDenied
    return team


def _join_url(request, application: Application) -> str | None:
    if not application.join_token:
        return None
    return public_url(request, reverse("teams:join_token", args=[application.join_token]))


# --- public --------------------------------------------------------------------------------


def team_list_public(request):
    teams = Team.objects.filter(test_game__isnull=True).prefetch_related("members").order_by(
        "name")
    return render(request, "teams/public_list.html", {"teams": teams})


def team_public(request, pk: int):
    """What everybody may know of a team: its name, its players' nicknames and the games it
    plays (private contacts stay on the captain's page, linked for those who manage it)."""
    team = get_object_or_404(Team.objects.prefetch_related("members"), pk=pk)
    entries = selectors.team_applications(team).filter(status=Application.Status.APPROVED)
    return render(request, "teams/team_public.html", {
        "team": team, "entries": entries, "manages": can_manage_team(request.user, team)})


def game_detail(request, pk: int):
    """A game's own page for everybody; a captain applies to it from here with each team he
    manages (the application itself is the team's apply page and service)."""
    game = get_object_or_404(Game, pk=pk)
    now = timezone.now()
    open_now = game in selectors.games_open_for_applications(now=now)
    statuses = {a.team_id: a for a in Application.objects.filter(game=game)}
    # [decision] The teams the user captains: an organizer decides others' applications on
    # the game's organizer page, not here.
    captained = (Team.objects.filter(captain=request.user).order_by("name")
                 if request.user.is_authenticated else Team.objects.none())
    teams = [(team, statuses.get(team.pk)) for team in captained]
    return render(request, "teams/game_detail.html", {
        "game": game, "open": open_now, "teams": teams,
        "closes_at": rules.applications_close_at(game.starts_at),
        "organizer": is_organizer(request.user)})


def games(request):
    """Upcoming games for everybody; organizers also publish new games here."""
    organizer = is_organizer(request.user)
    form = forms.GameForm(request.POST or None)
    if request.method == "POST":
        if not organizer:
            raise PermissionDenied
        if form.is_valid():
            data = form.cleaned_data
            try:
                game = services.game_create(
                    actor=request.user,
                    title=data["title"],
                    game_format=data["format"],
                    starts_at=data["starts_at"],
                    fee=data["fee"],
                    rated=data["rated"],
                )
            except services.TeamsError as exc:
                messages.error(request, exc.message)
            else:
                messages.success(request, _("The game is published."))
                warning = services.game_publication_warning(game=game)
                if warning:
                    messages.warning(request, warning)
                return redirect("teams:game_manage", pk=game.pk)
        else:
            show_form_errors(request, form)
    game_list = (
        selectors.games_with_counts().order_by("-starts_at")
        if organizer
        else (selectors.games_upcoming())
    )
    return render(
        request,
        "teams/games.html",
        {"games": game_list, "form": form if organizer else None, "organizer": organizer},
    )


# --- captain -------------------------------------------------------------------------------


@login_required
def my_teams(request):
    form = forms.NameForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            team = services.team_create(captain=request.user, name=form.cleaned_data["name"])
        except services.TeamsError as exc:
            messages.error(request, exc.message)
        else:
            messages.success(request, _("The team is created."))
            return redirect("teams:team_detail", pk=team.pk)
    return render(
        request,
        "teams/my_teams.html",
        {"teams": selectors.teams_for_user(request.user), "form": form},
    )


@login_required
def team_detail(request, pk: int):
    team = managed_team(request, pk)
    now = timezone.now()
    applications = list(selectors.team_applications(team))
    for application in applications:
        application.join_url = _join_url(request, application)
    applied = {a.game_id for a in applications}
    notices = selectors.team_notices(team)
    for notice in notices:
        notice.message = notice_message(notice)
    context = {
        "team": team,
        "members": team.members.all(),
        "applications": applications,
        "open_games": [g for g in selectors.games_open_for_applications(now=now)],
        "applied": applied,
        "notices": notices,
        "ledger": selectors.team_ledger(team, now=now),
        "ban": selectors.team_active_ban(team, now=now),
        "bans": team.bans.all() if is_organizer(request.user) else [],
        "rename_form": forms.NameForm(initial={"name": team.name}),
        "member_form": forms.MemberForm(),
        "ban_form": forms.BanForm(),
        "organizer": is_organizer(request.user),
    }
    return render(request, "teams/team_detail.html", context)


@login_required
@require_POST
def team_rename(request, pk: int):
    team = managed_team(request, pk)
    form = forms.NameForm(request.POST)
    if form.is_valid():
        try:
            services.team_rename(team=team, name=form.cleaned_data["name"])
        except services.TeamsError as exc:
            messages.error(request, exc.message)
        else:
            messages.success(request, _("The team is renamed."))
    return redirect("teams:team_detail", pk=team.pk)


@login_required
@require_POST
def member_add(request, pk: int):
    team = managed_team(request, pk)
    form = forms.MemberForm(request.POST)
    if form.is_valid():
        try:
            services.member_create(team=team, **form.cleaned_data)
        except services.TeamsError as exc:
            messages.error(request, exc.message)
        else:
            messages.success(request, _("The member is added."))
    return redirect("teams:team_detail", pk=team.pk)


@login_required
def member_edit(request, pk: int, member_pk: int):
    team = managed_team(request, pk)
    member = get_object_or_404(Member, pk=member_pk, team=team)
    form = forms.MemberForm(
        request.POST or None,
        initial={
            "nickname": member.nickname,
            "full_name": member.full_name,
            "phone": member.phone,
            "email": member.email,
        },
    )
    if request.method == "POST" and form.is_valid():
        try:
            services.member_update(member=member, **form.cleaned_data)
        except services.TeamsError as exc:
            messages.error(request, exc.message)
        else:
            messages.success(request, _("The member is saved."))
            return redirect("teams:team_detail", pk=team.pk)
    return render(request, "teams/member_edit.html", {
        "team": team, "member": member, "form": form,
        **profile_context(request, member)})


@login_required
@require_POST
def member_delete(request, pk: int, member_pk: int):
    team = managed_team(request, pk)
    services.member_delete(member=get_object_or_404(Member, pk=member_pk, team=team))
    messages.success(request, _("The member is removed."))
    return redirect("teams:team_detail", pk=team.pk)


@login_required
def apply(request, pk: int, game_pk: int):
    team = managed_team(request, pk)
    game = get_object_or_404(Game, pk=game_pk)
    existing = Application.objects.filter(game=game, team=team).first()
    initial = {"members": list(existing.members.all())} if existing else {}
    form = forms.ApplicationForm(request.POST or None, team=team, initial=initial)
    if request.method == "POST":
        if form.is_valid():
            try:
                services.application_submit(
                    game=game, team=team, members=form.cleaned_data["members"]
                )
            except services.TeamsError as exc:
                messages.error(request, exc.message)
            else:
                messages.success(request, _("The application is sent."))
                # Back where the captain came from: the game's page or the team's.
                if request.GET.get("from") == "game":
                    return redirect("teams:game_detail", pk=game.pk)
                return redirect("teams:team_detail", pk=team.pk)
        else:
            show_form_errors(request, form)
    low, high = rules.TEAM_SIZE[game.format]
    return render(
        request,
        "teams/apply.html",
        {
            "team": team,
            "game": game,
            "form": form,
            "existing": existing,
            "low": low,
            "high": high,
            "closes_at": rules.applications_close_at(game.starts_at),
        },
    )


@login_required
@require_POST
def application_withdraw(request, pk: int):
    application = get_object_or_404(Application.objects.select_related("team", "game"), pk=pk)
    if not can_manage_application(request.user, application):
        raise PermissionDenied
    try:
        services.application_withdraw(application=application)
    except services.TeamsError as exc:
        messages.error(request, exc.message)
    else:
        messages.success(request, _("The application is withdrawn."))
    return redirect("teams:team_detail", pk=application.team_id)


# --- organizer -----------------------------------------------------------------------------


@login_required
def game_manage(request, pk: int):
    require_organizer(request.user)
    game = get_object_or_404(Game, pk=pk)
    applications = list(selectors.game_applications(game))
    now = timezone.now()
    for application in applications:
        application.join_url = _join_url(request, application)
        if application.status == Application.Status.APPROVED:
            application.amount_due = selectors.application_amount_due(application, now=now)
        application.active_ban = selectors.team_active_ban(application.team, now=now)
    return render(
        request,
        "teams/game_manage.html",
        {
            "game": game,
            "applications": applications,
            "few": selectors.game_few_applications(game),
            "count": selectors.game_active_application_count(game),
            "publication_warning": services.game_publication_warning(game=game),
            "closes_at": rules.applications_close_at(game.starts_at),
            "cancel_form": forms.ReasonForm(),
            "ban_form": forms.BanForm(),
            "pin_budget": selectors.game_pin_budget(game, now=now),
        },
    )


@login_required
@require_POST
def pin_budget_lift(request, pk: int):
    """The organizer lifts a pause of PIN joins (the game's hourly budget of wrong PINs)."""
    require_organizer(request.user)
    game = get_object_or_404(Game, pk=pk)
    services.game_pin_budget_lift(game=game)
    messages.success(request, _("PIN joins are open again."))
    return redirect("teams:game_manage", pk=game.pk)


ACTIONS = {"approve", "reject", "paid", "unpaid", "revoke"}


@login_required
@require_POST
def application_action(request, pk: int, action: str):
    require_organizer(request.user)
    application = get_object_or_404(Application.objects.select_related("team", "game"), pk=pk)
    if action not in ACTIONS:
        raise PermissionDenied
    try:
        if action == "approve":
            services.application_approve(application=application, actor=request.user)
        elif action == "reject":
            services.application_reject(
                application=application, actor=request.user, reason=request.POST.get("reason", "")
            )
        elif action in ("paid", "unpaid"):
            services.application_mark_paid(application=application, paid=action == "paid")
        else:
            services.application_revoke_join(application=application)
    except services.TeamsError as exc:
        messages.error(request, f"{application.team.name}: {exc.message}")
    else:
        messages.success(request, _("Saved: %(team)s.") % {"team": application.team.name})
    return redirect("teams:game_manage", pk=application.game_id)


@login_required
@require_POST
def game_cancel(request, pk: int):
    require_organizer(request.user)
    game = get_object_or_404(Game, pk=pk)
    try:
        services.game_cancel(game=game, actor=request.user, reason=request.POST.get("reason", ""))
    except services.TeamsError as exc:
        messages.error(request, exc.message)
    else:
        messages.success(request, _("The game is cancelled; the teams that applied are notified."))
    return redirect("teams:game_manage", pk=game.pk)


@login_required
@require_POST
def ban_create(request, pk: int):
    require_organizer(request.user)
    team = get_object_or_404(Team, pk=pk)
    form = forms.BanForm(request.POST)
    if form.is_valid():
        try:
            services.ban_create(team=team, actor=request.user, **form.cleaned_data)
        except services.TeamsError as exc:
            messages.error(request, exc.message)
        else:
            messages.success(request, _("The team is banned."))
    else:
        show_form_errors(request, form)
    game_id = request.POST.get("game", "")
    if game_id.isdigit() and Game.objects.filter(pk=int(game_id)).exists():
        return redirect("teams:game_manage", pk=int(game_id))
    return redirect("teams:team_detail", pk=team.pk)


@login_required
@require_POST
def ban_lift(request, pk: int):
    require_organizer(request.user)
    ban = get_object_or_404(Ban, pk=pk)
    team_id = ban.team_id
    services.ban_lift(ban=ban, actor=request.user)
    messages.success(request, _("The ban is lifted."))
    return redirect("teams:team_detail", pk=team_id)


@login_required
def join_sheet(request, pk: int):
    """Printable: one page per approved team with its name, QR code, link and PIN."""
    require_organizer(request.user)
    game = get_object_or_404(Game, pk=pk)
    sheets = []
    for application in selectors.game_approved_applications(game):
        url = _join_url(request, application)
        if url:
            sheets.append({"application": application, "url": url, "qr": qr_svg(url)})
    # "or open <address> and enter PIN": the address a phone can type, without the scheme.
    # A test run is on no list: its address names it, so the join page offers it.
    named = f"?game={game.pk}" if game.test_of_id is not None else ""
    pin_address = public_url(request, reverse("teams:join") + named).split("://", 1)[-1]
    return render(request, "teams/join_sheet.html",
                  {"game": game, "sheets": sheets, "pin_address": pin_address})


# --- team phones ---------------------------------------------------------------------------


def join(request):
    """Enter the game and the team's 6-digit PIN."""
    games_qs = selectors.games_to_join(request.POST.get("game") or request.GET.get("game"))
    # A team page sends an unjoined phone here with its game chosen (?game=<id>).
    form = forms.PinForm(request.POST or None, games=games_qs,
                         initial={"game": request.GET.get("game", "")})
    if request.method == "POST":
        if form.is_valid():
            try:
                entry = services.join_by_pin(
                    session=request.session,
                    game=form.cleaned_data["game"],
                    pin=form.cleaned_data["pin"],
                    client_ip=client_address(request),
                )
            except services.TeamsError as exc:
                messages.error(request, exc.message)
            else:
                return redirect("teams:playing", game_pk=entry.game_id)
        else:
            show_form_errors(request, form)
    entries = selectors.session_entries(request.session)
    return render(request, "teams/join.html", {"form": form, "entries": entries})


def join_token(request, token: str):
    """The QR code / link target. Opening it shows the team and the game and asks; only the
    POST of its button (CSRF-protected) binds this browser, so nobody is joined by merely
    loading the address (a link or an image on another site)."""
    if request.method == "POST":
        try:
            entry = services.join_by_token(session=request.session, token=token)
        except services.TeamsError as exc:
            messages.error(request, exc.message)
            return redirect("teams:join")
        return redirect("teams:playing", game_pk=entry.game_id)
    application = selectors.application_by_join_token(token)
    if application is None:
        messages.error(
            request, _("This join link is not valid (it may have been replaced). Ask your captain.")
        )
        return redirect("teams:join")
    current = get_team_entry(request, application.game)
    if current is not None and current.pk == application.pk:
        return redirect("teams:playing", game_pk=application.game_id)
    return render(
        request,
        "teams/join_confirm.html",
        {"application": application, "game": application.game, "current": current},
    )


def playing(request, game_pk: int):
    game = get_object_or_404(Game, pk=game_pk)
    entry = get_team_entry(request, game)
    if entry is None:
        messages.error(request, _("This phone is not joined to a team for this game."))
        return redirect("teams:join")
    notices = selectors.team_game_notices(entry.team, game)
    for notice in notices:
        notice.message = notice_message(notice)
    return render(
        request, "teams/playing.html", {"entry": entry, "game": game, "notices": notices}
    )


@require_POST
def leave(request, game_pk: int):
    game = get_object_or_404(Game, pk=game_pk)
    services.join_leave(session=request.session, game=game)
    messages.success(request, _("This phone left the team."))
    return redirect("teams:join")
