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
