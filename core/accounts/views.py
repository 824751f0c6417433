"""Account pages: sign-up and its e-mail link, the profile, the organizers' roles page.

Login, logout and password reset are Django's views (``django.contrib.auth.urls``); the reset
only builds its mailed link on the site's public address (``PasswordResetView``)."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_required
from django.shortcuts import redirect, render
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods

from core.accounts import forms, selectors, services
from core.forms import show_form_errors
from core.net import public_url
from core.roles import require_organizer


def _next_path(request) -> str:
    """The local page to come back to (a player's invitation), never another site."""
    target = request.POST.get("next") or request.GET.get("next") or ""
    return target if url_has_allowed_host_and_scheme(target, allowed_hosts=None) else ""


@require_http_methods(["GET", "POST"])
def signup(request):
    form = forms.SignupForm(request.POST or None)
    next_path = _next_path(request)
    if request.method == "POST" and form.is_valid():
        try:
            services.account_signup(
                username=form.cleaned_data["username"], email=form.cleaned_data["email"],
                password=form.cleaned_data["password1"],
                site_url=public_url(request, "/"), next_path=next_path)
        except services.AccountError as exc:
            messages.error(request, exc.message)
        else:
            return render(request, "registration/signup_done.html",
                          {"email": form.cleaned_data["email"]})
    return render(request, "registration/signup.html", {"form": form, "next": next_path})


class PasswordResetView(auth_views.PasswordResetView):
    """Django's password reset, its mailed link on the site's public address: behind a proxy or
    on a hall laptop the Host the request came with may be a name only the server knows."""

    def form_valid(self, form):
        scheme, _sep, domain = public_url(self.request, "/").removesuffix("/").partition("://")
        self.extra_email_context = {**(self.extra_email_context or {}),
                                    "protocol": scheme, "domain": domain}
        return super().form_valid(form)


def verify(request, uidb64: str, token: str):
    try:
        user = services.account_verify(uidb64=uidb64, token=token)
    except services.AccountError as exc:
        return render(request, "registration/verify_failed.html", {"message": exc.message},
                      status=400)
    login(request, user, backend="django.contrib.auth.backends.ModelBackend")
    next_path = _next_path(request)
    if next_path:
        messages.success(request, _("Your e-mail is verified and you are logged in."))
        return redirect(next_path)
    messages.success(request, _("Your e-mail is verified and you are logged in. Create your team "
                                "here."))
    return redirect("teams:my_teams")


@login_required
@require_http_methods(["GET", "POST"])
def profile(request):
    user = request.user
    form = forms.ProfileForm(request.POST or None, initial={
        "first_name": user.first_name, "last_name": user.last_name, "email": user.email})
    if request.method == "POST":
        if form.is_valid():
            try:
                services.profile_update(user=user, **form.cleaned_data)
            except services.AccountError as exc:
                messages.error(request, exc.message)
            else:
                messages.success(request, _("The profile is saved."))
                return redirect("accounts:profile")
        else:
            show_form_errors(request, form)
    return render(request, "registration/profile.html", {
        "form": form, "rating_name": selectors.rating_name(user)})


@login_required
@require_http_methods(["GET", "POST"])
def roles(request):
    require_organizer(request.user)
    search = request.GET.get("q", "").strip()
    if request.method == "POST":
        form = forms.RoleForm(request.POST)
        if form.is_valid():
            data = form.cleaned_data
            try:
                services.role_set(actor=request.user, user=data["user"], role=data["role"],
                                  granted=data["granted"])
            except services.AccountError as exc:
                messages.error(request, exc.message)
            else:
                text = (_("%(user)s is now %(role)s.") if data["granted"]
                        else _("%(user)s is no longer %(role)s."))
                messages.success(request, text % {
                    "user": data["user"].get_username(),
                    "role": dict(form.fields["role"].choices)[data["role"]]})
        else:
            messages.error(request, _("Choose an active account and a role."))
        return redirect(request.get_full_path())
    return render(request, "registration/roles.html", {
        "rows": selectors.role_rows(search), "search": search,
        "changes": selectors.recent_role_changes()})
