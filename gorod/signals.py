"""The set-up version of a GoRoD game (``GorodGame.setup_version``) moves on with every change of
what its writes read from the process's cache (``selectors.setup``): a level saved or deleted
(the services, the admin), a playing team renamed. It moves on in the change's own transaction,
so no write can see the new data under the old number."""

from __future__ import annotations

from django.db.models import F
from django.db.models.signals import post_delete, post_save

from gorod.models import GorodGame, Level
from teams.models import Team


def bump(games) -> int:
    """Move the set-up version of these GoRoD games on (a queryset or ids)."""
    rows = games if hasattr(games, "update") else GorodGame.objects.filter(pk__in=list(games))
    return rows.update(setup_version=F("setup_version") + 1)


def _level_changed(sender, instance: Level, **kwargs) -> None:
    bump([instance.gorod_id])


def _team_saved(sender, instance: Team, created: bool = False, **kwargs) -> None:
    if not created:
        bump(GorodGame.objects.filter(game__applications__team=instance))


def connect() -> None:
    post_save.connect(_level_changed, sender=Level, dispatch_uid="gorod.setup.level_saved")
    post_delete.connect(_level_changed, sender=Level, dispatch_uid="gorod.setup.level_deleted")
    post_save.connect(_team_saved, sender=Team, dispatch_uid="gorod.setup.team_saved")
