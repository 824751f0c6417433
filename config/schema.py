"""The published OpenAPI schema, generated once per language and API version in each process.

drf-spectacular walks every view and serializer on every request of ``/api/schema/``: about half
a second of CPU each time, for a document that only a new release changes. The schema is the
public one (``SERVE_PUBLIC``), the same for every visitor, so it is kept after the first request;
only its descriptions depend on the language the request is answered in.
"""

from __future__ import annotations

from django.conf import settings
from django.utils import translation
from drf_spectacular.generators import SchemaGenerator

_generated: dict[tuple, dict] = {}


class OnceSchemaGenerator(SchemaGenerator):
    def get_schema(self, request=None, public=False):
        if self.urlconf is not None or self.patterns is not None:
            # A schema of other routes than the site's (a test's or a command's own): as asked.
            return super().get_schema(request=request, public=public)
        key = (settings.ROOT_URLCONF, translation.get_language(), self.api_version,
               getattr(request, "version", None), public)
        if key not in _generated:
            _generated[key] = super().get_schema(request=request, public=public)
        return _generated[key]
