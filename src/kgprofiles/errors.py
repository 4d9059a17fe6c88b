"""Errors a user can act on: each kind has an exit code, and each error a hint."""

from __future__ import annotations


class KgError(Exception):
    """An error reported to the user as one clear message, never as a traceback."""

    exit_code = 2
    kind = "error"

    def __init__(self, message: str, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint

    def __str__(self) -> str:
        return self.message if not self.hint else f"{self.message}\nhint: {self.hint}"


class InputError(KgError):
    """A file or argument could not be read or understood (exit 2)."""

    kind = "input error"
    exit_code = 2


class ValidationFailed(KgError):
    """The data breaks a SHACL shape; nothing was stored (exit 1)."""

    kind = "validation"
    exit_code = 1


class QueryError(KgError):
    """A SPARQL query is malformed, or a named query or parameter is unknown (exit 2)."""

    kind = "query error"
    exit_code = 2


class StoreError(KgError):
    """The store could not be opened, read or written (exit 3)."""

    kind = "store error"
    exit_code = 3


class RemoteError(StoreError):
    """A remote SPARQL server failed or could not be reached (exit 4)."""

    kind = "remote error"
    exit_code = 4


class Forbidden(QueryError):
    """A query or update asks for something refused here: fetching a URL (SERVICE, LOAD, a FROM
    graph the store does not hold)."""

    kind = "forbidden"


class LimitHit(KgError):
    """A query ran into a limit: ``which`` is "time", "rows", "size" (of the answer), "memory" or
    "busy" (no worker free)."""

    kind = "limit"

    def __init__(self, which: str, message: str, hint: str | None = None, *, retry_after_s: int | None = None) -> None:
        super().__init__(message, hint)
        self.which = which
        self.retry_after_s = retry_after_s  # when to ask again, if not the query workers' default


class ShapesError(InputError):
    """The SHACL shapes cannot be used: a query in them fetches from elsewhere or does not parse,
    or the SHACL engine failed on them (exit 2)."""

    kind = "shapes error"
