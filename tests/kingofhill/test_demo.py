"""The demo: a King of the Hill game with 8 approved teams, created once, with its links."""

import pytest

from core.demo import DEMO_BUILDERS, demo_users
from kingofhill.demo import build_demo
from kingofhill.models import KothGame

pytestmark = pytest.mark.django_db


def test_the_demo_builder_is_registered_by_the_app():
    assert "kingofhill.demo.build_demo" in DEMO_BUILDERS


def test_the_demo_makes_a_game_with_eight_teams_and_prints_host_projector_and_join_links():
    demo_users()  # as core.demo.load_demo does before every app's builder
    lines = build_demo()
    koth = KothGame.objects.get()
    assert lines[0] == f"King of the Hill host:      {{base}}/koth/{koth.pk}/host/"
    assert lines[1] == f"King of the Hill projector: {{base}}/koth/{koth.pk}/projector/"
    joins = [line for line in lines if "/teams/j/" in line]
    assert len(joins) == 8
    assert build_demo() == lines  # idempotent
    assert KothGame.objects.count() == 1
