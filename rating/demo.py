"""The rating's part of ``manage.py demo`` (``core.demo.DEMO_BUILDERS``): where each demo
game's results page is, printed after the games' own screens."""

from __future__ import annotations

from django.urls import reverse

from teams.models import Game


def results_links() -> list[str]:
    return [f"results «{game.title}»: {{base}}{reverse('rating:results', args=[game.pk])}"
            for game in Game.objects.order_by("starts_at")]
