"""The one base class for "the user asked for something the rules don't allow".

Services raise a subclass with a message fit for the user; the API answers it with 400
``{"detail": message}`` (``core.api.exception_handler``) and pages show it as a message.
"""


class DomainError(Exception):
    #: the HTTP status the API answers with; a subclass for "not your role" uses 403
    status_code = 400

    def __init__(self, message: str) -> None:
        self.message = str(message)
        super().__init__(self.message)


class NotAllowed(DomainError):
    """The actor's role does not allow this (the API answers 403)."""

    status_code = 403


class NotFound(DomainError):
    """The thing asked for does not exist (a game id of no game of that format)."""

    status_code = 404


class NeedsConfirmation(DomainError):
    """Allowed, but with consequences the actor must confirm first (the API answers 409 with
    ``detail`` and ``extra``, e.g. what a changed verdict would change; the client sends the
    request again with ``confirm: true``)."""

    status_code = 409

    def __init__(self, message: str, **extra) -> None:
        super().__init__(message)
        self.extra = extra


def is_api(request) -> bool:
    """API calls answer JSON ``{"detail"}``; everything else is a page for a person."""
    return "/api/" in getattr(request, "path", "")


def refusal(request, status: int, message: str):
    """A refusal fit for whoever asked: JSON ``{"detail"}`` for the API, a page otherwise."""
    from django.http import JsonResponse
    from django.shortcuts import render

    if is_api(request):
        return JsonResponse({"detail": str(message)}, status=status)
    return render(request, "error.html", {"status": status, "message": message}, status=status)
