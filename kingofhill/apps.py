from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class KingOfHillConfig(AppConfig):
    name = "kingofhill"
    verbose_name = _("King of the Hill")
