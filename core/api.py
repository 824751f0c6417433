"""API glue shared by the apps: the error shape every endpoint answers with."""

from __future__ import annotations

from rest_framework import serializers, status
from rest_framework.negotiation import BaseContentNegotiation
from rest_framework.renderers import JSONRenderer
from rest_framework.response import Response
from rest_framework.views import APIView
from rest_framework.views import exception_handler as drf_exception_handler

from core.errors import DomainError
from core.records import RecordError


class ErrorSerializer(serializers.Serializer):
    """Every refusal's body: ``{"detail": "what is wrong, for the user"}`` (the schema's Error)."""

    detail = serializers.CharField()


def exception_handler(exc, context):
    """DRF's handler, plus: a service's ``DomainError`` or a bad game record (``RecordError``)
    is a 400 with ``{"detail": message}`` rather than a 500."""
    if isinstance(exc, DomainError):
        return Response({"detail": exc.message}, status=exc.status_code)
    if isinstance(exc, RecordError):
        return Response({"detail": str(exc)}, status=status.HTTP_400_BAD_REQUEST)
    return drf_exception_handler(exc, context)


class ServiceAPIView(APIView):
    """Base of the game APIs: a view parses its body with a serializer and calls one service."""

    def payload(self, serializer_class) -> dict:
        serializer = serializer_class(data=self.request.data)
        serializer.is_valid(raise_exception=True)
        return serializer.validated_data


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
