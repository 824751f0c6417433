"""Pages of the players' profiles on the roster (rule 2.6): the captain's part of a member's
page (the invitation link, linking by e-mail, unlinking, merging a typo) and the invitation a
player opens to claim their entry. The writes are ``teams.profiles``.
"""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.http import urlencode
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_POST

from core.accounts.selectors import rating_name
from core.forms import show_form_errors
from teams import forms, profiles
from teams.errors import TeamsError
from teams.models import Member
from teams.views import managed_team


def _team_member(request, pk: int, member_pk: int) -> Member:
    team = managed_team(request, pk)
    return get_object_or_404(Member.objects.select_related("team", "user"), pk=member_pk,
                             team=team)


@login_required
@require_POST
def member_link(request, pk: int, member_pk: int):
    member = _team_member(request, pk, member_pk)
    form = forms.ProfileLinkForm(request.POST)
    form.is_valid()
    try:
        member = profiles.member_link(actor=request.user, member=member,
                                      email=form.cleaned_data.get("email", ""))
    except TeamsError as exc:
        messages.error(request, exc.message)
    else:
        messages.success(request, _("«%(nickname)s» is linked to the profile of %(name)s.")
                         % {"nickname": member.nickname, "name": rating_name(member.user)})
    return redirect("teams:member_edit", pk=pk, member_pk=member_pk)


@login_required
@require_POST
def member_unlink(request, pk: int, member_pk: int):
    member = _team_member(request, pk, member_pk)
    try:
        profiles.member_unlink(actor=request.user, member=member)
    except TeamsError as exc:
        messages.error(request, exc.message)
    else:
        messages.success(request, _("«%(nickname)s» is no longer linked to a profile.")
                         % {"nickname": member.nickname})
    return redirect("teams:member_edit", pk=pk, member_pk=member_pk)


@login_required
@require_POST
def member_merge(request, pk: int, member_pk: int):
    member = _team_member(request, pk, member_pk)
    form = forms.MemberMergeForm(request.POST, member=member)
    if not form.is_valid():
        show_form_errors(request, form)
        return redirect("teams:member_edit", pk=pk, member_pk=member_pk)
    into = form.cleaned_data["into"]
    try:
        profiles.member_merge(actor=request.user, typo=member, into=into)
    except TeamsError as exc:
        messages.error(request, exc.message)
        return redirect("teams:member_edit", pk=pk, member_pk=member_pk)
    messages.success(request, _("«%(typo)s» is merged into «%(into)s».")
                     % {"typo": member.nickname, "into": into.nickname})
    return redirect("teams:team_detail", pk=pk)


@require_http_methods(["GET", "POST"])
def invite(request, token: str):
    """The invitation a captain sends a player: it shows the team and the roster entry, asks a
    visitor to log in or sign up first (coming back here after), and claims on the button's
    POST only, so opening the link changes nothing."""
    try:
        member = profiles.member_by_invite(token)
    except TeamsError as exc:
        return render(request, "teams/invite.html", {"error": exc.message}, status=400)
    here = request.get_full_path()
    if request.method == "POST" and request.user.is_authenticated:
        try:
            member = profiles.member_claim(user=request.user, token=token)
        except TeamsError as exc:
            messages.error(request, exc.message)
        else:
            messages.success(request, _("You are «%(nickname)s» of %(team)s now.")
                             % {"nickname": member.nickname, "team": member.team.name})
            if not (request.user.last_name.strip() and request.user.first_name.strip()):
                messages.warning(request, _("Give your surname and first name in your profile: "
                                            "the players' rating counts you only with them."))
                return redirect("accounts:profile")
            return redirect("rating:player", user_id=request.user.pk)
        return redirect(here)
    return render(request, "teams/invite.html", {
        "member": member, "team": member.team,
        "mine": member.user_id is not None and member.user_id == request.user.pk,
        "taken": member.user_id is not None and member.user_id != request.user.pk,
        "next": urlencode({"next": here})})
