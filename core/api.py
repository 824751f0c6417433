"""API glue shared by the apps: the error shape every endpoint answers with."""

from __future__ import annotations

import logging

from django.db import OperationalError
from django.http import Http404
from django.utils.translation import gettext_lazy as _
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.negotiation import BaseContentNegotiation
from rest_framework.permissions import AllowAny
from rest_framework.renderers import JSONRenderer
from rest_framework.response import Response
from rest_framework.views import APIView
from rest_framework.views import exception_handler as drf_exception_handler

from core.converters import ID_MAX
from core.errors import DomainError
from core.permissions import IsOrganizer
from core.records import RecordError

log = logging.getLogger(__name__)

# How long a phone is asked to wait when every database connection of the worker is busy.
BUSY_RETRY_AFTER_S = 2


def pool_exhausted(exc: BaseException) -> bool:
    """The worker's database pool lent no connection in time (``DB_POOL_TIMEOUT_S``): more
    writes at once than the game can take, not a database that is down."""
    cause = exc.__cause__
    return isinstance(exc, OperationalError) and type(cause).__name__ == "PoolTimeout"


class ErrorSerializer(serializers.Serializer):
    """Every refusal's body: ``{"detail": "what is wrong, for the user"}`` (the schema's Error)."""

    detail = serializers.CharField()


def exception_handler(exc, context):
    """DRF's handler, plus: a service's ``DomainError`` or a bad game record (``RecordError``)
    is a 400 with ``{"detail": message}`` rather than a 500, a worker out of database
    connections (overload) a 503 with ``Retry-After``, and a serializer's field errors
    carry a ``detail`` line too (``"field: message; ..."``) beside the errors by field."""
    if isinstance(exc, DomainError):
        return Response({"detail": exc.message, **getattr(exc, "extra", {})},
                        status=exc.status_code)
    if isinstance(exc, RecordError):
        return Response({"detail": str(exc)}, status=status.HTTP_400_BAD_REQUEST)
    if pool_exhausted(exc):
        # Overload, answered as such: a 503 the phone can act on and one log line (nothing was
        # written: the request never had a connection), not a traceback per request.
        view = context.get("view")
        log.warning("busy: no database connection for %s in time; answered 503",
                    type(view).__name__ if view is not None else "a request")
        return Response({"detail": _("The server is busy: send it again in a moment.")},
                        status=status.HTTP_503_SERVICE_UNAVAILABLE,
                        headers={"Retry-After": str(BUSY_RETRY_AFTER_S)})
    response = drf_exception_handler(exc, context)
    if response is not None and not (isinstance(response.data, dict) and "detail" in response.data):
        # A serializer's field errors: keep them by field and say them in one "detail" line.
        fields = response.data if isinstance(response.data, dict) else {"": response.data}
        response.data = {"detail": "; ".join(_flatten(fields)), **fields}
    return response


def _flatten(errors, prefix: str = ""):
    if isinstance(errors, dict):
        for key, value in errors.items():
            yield from _flatten(value, f"{prefix}.{key}" if prefix else str(key))
    elif isinstance(errors, list):
        for item in errors:
            yield from _flatten(item, prefix)
    else:
        yield f"{prefix}: {errors}" if prefix and prefix != "non_field_errors" else str(errors)


class ServiceAPIView(APIView):
    """Base of the game APIs: a view parses its body with a serializer and calls one service."""

    def payload(self, serializer_class) -> dict:
        serializer = serializer_class(data=self.request.data)
        serializer.is_valid(raise_exception=True)
        return serializer.validated_data


# The Accept values under which DRF's negotiation always picks the JSON renderer (its media
# type has no parameters, so a token's own parameters and q never keep it from matching).
_JSON_ACCEPTED = frozenset({"*/*", "application/*", "application/json", "*/json"})


def takes_json(accept: str | None) -> bool:
    """Whether DRF would answer a request with this Accept header in JSON rather than 406:
    no header, or one naming JSON or a wildcard of it. Anything else may or may not be
    acceptable; DRF decides those."""
    if accept is None:
        return True
    return any(token.partition(";")[0].strip() in _JSON_ACCEPTED for token in accept.split(","))


# A public read that answers bytes it already has: a plain GET that accepts JSON gets
# ``read``'s response with DRF's headers, without DRF's request, negotiation, permission and
# renderer steps (on a projector's poll they cost more than reading the state). Anything else
# — a refusal or failure of ``read``, another method, another Accept, a query string
# (``?format=``) — is DRF's, as in every other view, so the answers are DRF's to the byte.
# Skipping DRF's steps skips nothing they would do: such a view is public (``AllowAny``),
# authenticates no one and is not throttled, which ``__init_subclass__`` holds. (A comment, not
# a docstring: the schema describes an operation by its view's docstring.)
class PublicReadAPIView(ServiceAPIView):
    permission_classes = [AllowAny]
    authentication_classes: list = []
    throttle_classes: list = []

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if (any(p is not AllowAny for p in cls.permission_classes)
                or cls.authentication_classes or cls.throttle_classes):
            raise TypeError(f"{cls.__name__}: a public read checks no permission, "
                            "authenticates no one and is not throttled")
        # ``read(request, **kwargs) -> HttpResponse``: the answer, or raises what DRF answers
        # (``Http404`` for an unknown game). Required here rather than stubbed in the base.
        if not callable(getattr(cls, "read", None)):
            raise TypeError(f"{cls.__name__}: a public read says what it answers (read)")

    def get(self, request, **kwargs):
        return self.read(request, **kwargs)

    def dispatch(self, request, *args, **kwargs):
        if (request.method != "GET" or request.META.get("QUERY_STRING")
                or not takes_json(request.META.get("HTTP_ACCEPT"))):
            return super().dispatch(request, *args, **kwargs)
        self.args, self.kwargs = args, kwargs
        try:
            response = self.read(request, **kwargs)
        except Exception as failed:  # noqa: BLE001 - DRF answers each as it would from get()
            # DRF's own dispatch with ``read``'s exception as its handler's: the same
            # {"detail"}, status and headers, and without reading again.
            self.request = self.initialize_request(request, *args, **kwargs)
            self.headers = self.default_response_headers
            try:
                self.initial(self.request, *args, **kwargs)
                raise failed
            except Exception as exc:  # noqa: BLE001 - as DRF's dispatch
                self.response = self.finalize_response(
                    self.request, self.handle_exception(exc), *args, **kwargs)
            return self.response
        # The headers DRF's finalize_response adds, in its order (``read``'s response has no
        # Vary of its own to keep).
        headers = self.default_response_headers
        vary = headers.pop("Vary", None)
        if vary is not None:
            response["Vary"] = vary
        for header, value in headers.items():
            response[header] = value
        return response


class FileNegotiation(BaseContentNegotiation):
    """A download is its file whatever the Accept header says: a browser following a link asks
    for ``text/html`` first and would get DRF's browsable page saved instead of the file."""

    def select_parser(self, request, parsers):
        return parsers[0] if parsers else None

    def select_renderer(self, request, renderers, format_suffix=None):
        return renderers[0], renderers[0].media_type


class JSONFileAPIView(ServiceAPIView):
    """An endpoint whose answer is a JSON file (errors stay ``{"detail"}`` JSON too)."""

    renderer_classes = [JSONRenderer]
    content_negotiation_class = FileNegotiation

    def file_response(self, data, filename: str) -> Response:
        """``?download=1`` saves the file; without it the browser shows it, still as JSON."""
        response = Response(data)
        how = "attachment" if self.request.query_params.get("download") else "inline"
        response["Content-Disposition"] = f'{how}; filename="{filename}"'
        return response


def id_field(**kwargs) -> serializers.IntegerField:
    """A row id in a body: 1..2**63-1 (BigAutoField), so a huge number is a 400, not a 500."""
    return serializers.IntegerField(min_value=1, max_value=ID_MAX, **kwargs)


def model_int_field(model, name: str, **kwargs) -> serializers.IntegerField:
    """An integer in a body bounded by the column it is stored in (``model.name``): e.g. a
    PositiveSmallIntegerField takes 0..32767. A tighter ``min_value``/``max_value`` wins."""
    from django.db.backends.base.operations import BaseDatabaseOperations

    field = model._meta.get_field(name)
    low, high = BaseDatabaseOperations.integer_field_ranges[field.get_internal_type()]
    kwargs["min_value"] = max(kwargs.get("min_value", low), low)
    kwargs["max_value"] = min(kwargs.get("max_value", high), high)
    return serializers.IntegerField(**kwargs)


class PlausibleDateTimeField(serializers.DateTimeField):
    """A date-time within years 2000..2100 (``core.validators``): year 1 is a 400, not an
    ``OverflowError`` in the time-zone conversion or the database."""

    def to_internal_value(self, value):
        from django.core.exceptions import ValidationError as DjangoValidationError

        from core.validators import validate_plausible_datetime

        try:
            parsed = super().to_internal_value(value)
            validate_plausible_datetime(parsed)
        except OverflowError:
            parsed = None
        except DjangoValidationError as exc:
            raise serializers.ValidationError(exc.messages) from None
        if parsed is None:
            validate = serializers.ValidationError
            raise validate(str(_("Give a date between the years %(low)d and %(high)d.")
                               % {"low": 2000, "high": 2100}))
        return parsed


class AuditEntrySerializer(serializers.Serializer):
    id = serializers.IntegerField()
    app = serializers.CharField()
    game = serializers.IntegerField(allow_null=True)
    action = serializers.CharField(help_text='"<app>.<what>", e.g. "kingofhill.verdict"')
    actor = serializers.CharField(allow_null=True)
    at = serializers.DateTimeField()
    before = serializers.JSONField(allow_null=True)
    after = serializers.JSONField(allow_null=True)
    reason = serializers.CharField(allow_blank=True)


class AuditSerializer(serializers.Serializer):
    game = serializers.IntegerField(allow_null=True, help_text="null: every game")
    entries = AuditEntrySerializer(many=True)


class AuditAPI(ServiceAPIView):
    """A game's audit log for organizers: every host and organizer change, newest first."""

    permission_classes = [IsOrganizer]

    @extend_schema(tags=["Audit"], responses={200: AuditSerializer, 403: ErrorSerializer,
                                              404: ErrorSerializer},
                   summary="Every host and organizer change of a game, newest first")
    def get(self, request, game_id: int | None = None):
        from core import selectors

        if game_id is not None and selectors.audited_game(game_id) is None:
            raise Http404(_("No such game."))
        return Response({"game": game_id, "entries": [
            selectors.audit_entry_data(e) for e in selectors.audit_entries(game_id)]})
