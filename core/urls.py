from django.urls import path

from core import views

app_name = "core"
urlpatterns = [
    path("", views.home, name="home"),
    path("healthz", views.healthz, name="healthz"),
    path("announce/", views.announce, name="announce"),
    path("favicon.ico", views.favicon, name="favicon"),
    path("accounts/lockouts/", views.lockouts, name="lockouts"),
]
