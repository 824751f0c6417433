"""The published API schema (config.schema): generated once per language, served alike."""

from __future__ import annotations

import pytest
from django.test import Client
from drf_spectacular.generators import SchemaGenerator

from config import schema

pytestmark = pytest.mark.django_db


@pytest.fixture
def generations(monkeypatch) -> list[str]:
    """Each time drf-spectacular really walks the views, with the language it did it in."""
    from django.utils import translation

    monkeypatch.setattr(schema, "_generated", {})
    made: list[str] = []
    generate = SchemaGenerator.get_schema

    def counted(self, *args, **kwargs):
        made.append(translation.get_language())
        return generate(self, *args, **kwargs)

    monkeypatch.setattr(SchemaGenerator, "get_schema", counted)
    return made


def test_the_api_schema_is_generated_once_per_language_and_answered_alike(generations):
    client = Client()
    english = [client.get("/api/schema/?format=json", HTTP_ACCEPT_LANGUAGE="en")
               for _ in range(2)]
    assert [r.status_code for r in english] == [200, 200]
    assert english[0].json() == english[1].json()
    assert "/teams/api/join/" in english[0].json()["paths"]
    assert generations == ["en"]
    russian = [client.get("/api/schema/", HTTP_ACCEPT_LANGUAGE="ru") for _ in range(2)]
    assert [r.status_code for r in russian] == [200, 200]
    assert russian[0].content == russian[1].content
    assert generations == ["en", "ru"]


def test_a_schema_of_other_routes_is_generated_as_asked(generations):
    from django.urls import path
    from rest_framework.decorators import api_view
    from rest_framework.response import Response

    @api_view(["GET"])
    def ping(request):
        return Response({})

    own = schema.OnceSchemaGenerator(patterns=[path("ping/", ping)]).get_schema(public=True)
    assert list(own["paths"]) == ["/ping/"]
    assert len(generations) == 1 and schema._generated == {}
