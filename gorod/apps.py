from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class GorodConfig(AppConfig):
    name = "gorod"
    verbose_name = _("GoRoD")
