from django.urls import path

from core.accounts import views

app_name = "accounts"
urlpatterns = [
    path("signup/", views.signup, name="signup"),
    path("verify/<str:uidb64>/<str:token>/", views.verify, name="verify"),
    path("profile/", views.profile, name="profile"),
    path("roles/", views.roles, name="roles"),
]
