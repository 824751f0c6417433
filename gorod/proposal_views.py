"""Pages of scenario proposals (rules 10.1–10.4): the captain's (propose a file, see the
team's proposals with their answers, download them, withdraw a pending one) and the
organizers' list (download, accept for a game, reject with an answer). Each parses a form,
calls one service of ``gorod.proposals`` and shows its refusal as a message on the page."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.http import content_disposition_header
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from core.converters import ID_MAX
from core.errors import DomainError, NotAllowed, NotFound
from core.roles import require_organizer
from gorod import forms, proposals, scenario
from teams.models import Team
from teams.permissions import can_manage_team


def _refused(request, exc: DomainError) -> None:
    problems = exc.problems if isinstance(exc, scenario.ScenarioError) else [exc.message]
    for problem in problems:
        messages.error(request, _("The scenario file: %(why)s") % {"why": problem}
                       if isinstance(exc, scenario.ScenarioError) else problem)


@login_required
def team_proposals(request, team_id: int):
    """The captain's page: «Propose a scenario» and the team's proposals."""
    team = get_object_or_404(Team, pk=team_id)
    if not can_manage_team(request.user, team):
        raise PermissionDenied
    form = forms.ProposalForm(request.POST or None, request.FILES or None,
                              games=proposals.target_games())
    if request.method == "POST":
        if form.is_valid():
            upload = form.cleaned_data["file"]
            try:
                proposal = proposals.propose(
                    actor=request.user, team=team, game=form.cleaned_data["game"],
                    note=form.cleaned_data["note"], file_name=upload.name,
                    content=upload.read(scenario.MAX_BYTES + 1))
            except DomainError as exc:
                _refused(request, exc)
            else:
                messages.success(request, _("The scenario «%(file)s» is sent to the organizers.")
                                 % {"file": proposal.file_name})
                return redirect("gorod:team_proposals", team_id=team.pk)
    return render(request, "gorod/team_proposals.html", {
        "team": team, "form": form, "proposals": proposals.of_team(team),
        "captain": team.captain_id == request.user.pk})


@login_required
def proposal_list(request):
    """The organizers' list: pending first, oldest first (10.4)."""
    require_organizer(request.user)
    return render(request, "gorod/proposals.html", {
        "proposals": proposals.for_organizers(), "games": proposals.target_games()})


def _visible(request, proposal_id: int):
    try:
        return proposals.visible(request.user, proposal_id)
    except NotFound as exc:
        raise Http404(exc.message) from None
    except NotAllowed:
        raise PermissionDenied from None


@login_required
def proposal_file(request, proposal_id: int):
    """The proposal's file as it was uploaded (its team's captain and organizers only)."""
    proposal = _visible(request, proposal_id)
    kind = "application/json" if proposal.file_name.lower().endswith(".json") else (
        "application/yaml")
    response = HttpResponse(proposal.content.encode(), content_type=f"{kind}; charset=utf-8")
    response["Content-Disposition"] = content_disposition_header(True, proposal.file_name)
    response["Cache-Control"] = "private, no-store"
    return response


@login_required
@require_POST
def proposal_action(request, proposal_id: int, action: str):
    """withdraw (the captain) | accept | reject (organizers)."""
    proposal = _visible(request, proposal_id)
    if action in ("accept", "reject"):
        require_organizer(request.user)
    back = ("gorod:proposals", {}) if action != "withdraw" else (
        "gorod:team_proposals", {"team_id": proposal.team_id})
    try:
        if action == "withdraw":
            proposals.withdraw(actor=request.user, proposal=proposal)
            done = _("The proposal is withdrawn.")
        elif action == "accept":
            game = request.POST.get("game") or None
            if game is not None and not (game.isdigit() and 0 < int(game) <= ID_MAX):
                raise DomainError(_("Choose the game the scenario goes to."))
            accepted = proposals.accept(actor=request.user, proposal=proposal,
                                        game=int(game) if game else None,
                                        answer=request.POST.get("answer", ""))
            done = _("The scenario is accepted: it is now the scenario of «%(game)s», and "
                     "«%(team)s» organizes that game.") % {"game": accepted.game.title,
                                                           "team": accepted.team.name}
        elif action == "reject":
            proposals.reject(actor=request.user, proposal=proposal,
                             answer=request.POST.get("answer", ""))
            done = _("The proposal is rejected; the team reads the answer.")
        else:
            raise Http404(_("Unknown action."))
    except DomainError as exc:
        _refused(request, exc)
    else:
        messages.success(request, done)
    return redirect(back[0], **back[1])
