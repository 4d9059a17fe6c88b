"""Errors of the Wikidata commands, as KgError kinds the CLI reports with a hint and an exit code."""

from __future__ import annotations

from kgprofiles.errors import KgError, RemoteError


class WikidataError(RemoteError):
    """The Wikidata endpoint failed, could not be reached, or answered something unusable (exit 4)."""

    kind = "wikidata"


class WikidataUnreachable(WikidataError):
    """No connection could be made to the endpoint."""


class WikidataTimeout(WikidataError):
    """The endpoint did not answer in time."""


class WikidataRateLimited(WikidataError):
    """The endpoint kept answering 429/503, or asked us to wait longer than we will."""


class WikidataRedirected(WikidataError):
    """The endpoint redirected to another server (or a POST, or too often): not followed."""


class WikidataBadAnswer(WikidataError):
    """The endpoint answered, but not with SPARQL results (an HTML page, an error status, bad JSON)."""


class NotApplied(KgError):
    """`link suggest --apply` refused to write a link (below the threshold, ambiguous, or the edit
    could not be made cleanly). Nothing was written (exit 1)."""

    kind = "not applied"
    exit_code = 1
