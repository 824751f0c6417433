from django.contrib import admin
from django.contrib.auth.views import LoginView
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView

from core.accounts.forms import LoginForm
from core.accounts.views import PasswordResetView

urlpatterns = [
    path("admin/", admin.site.urls),
    # The site's own account pages first; login, logout and password reset are Django's.
    path("accounts/", include("core.accounts.urls")),
    # Django's log-in view with the form that tells an unconfirmed account so.
    path("accounts/login/", LoginView.as_view(authentication_form=LoginForm), name="login"),
    # Django's reset, its mailed link built on PUBLIC_URL when set.
    path("accounts/password_reset/", PasswordResetView.as_view(), name="password_reset"),
    path("accounts/", include("django.contrib.auth.urls")),
    path("i18n/", include("django.conf.urls.i18n")),
    path("api/schema/", SpectacularAPIView.as_view(), name="api-schema"),
    # The split view serves Swagger UI's start-up script as a file of its own (?script): the
    # Content-Security-Policy runs no inline script.
    path("api/docs/", SpectacularSwaggerSplitView.as_view(url_name="api-schema"),
         name="api-docs"),
    path("teams/", include("teams.urls")),
    path("koth/", include("kingofhill.urls")),
    path("gorod/", include("gorod.urls")),
    path("rating/", include("rating.urls")),
    path("", include("core.urls")),
]

handler400 = "core.views.bad_request"
handler403 = "core.views.permission_denied"
handler404 = "core.views.page_not_found"
handler500 = "core.views.server_error"
