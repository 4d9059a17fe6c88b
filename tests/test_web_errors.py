"""The web app's one error boundary (web/errors.py): handlers raise, the status and form follow
from the error, and nothing else reaches the client."""

from __future__ import annotations

import httpx
import pytest
from starlette.testclient import TestClient

from kgprofiles.config import Settings
from kgprofiles.errors import Forbidden, InputError, LimitHit, QueryError, RemoteError, StoreError
from kgprofiles.profiles import Ambiguous, NotFound
from kgprofiles.web import create_app
from kgprofiles.web.errors import status_of
from web.server import serving


def test_each_kind_of_error_has_its_status() -> None:
    assert status_of(NotFound("x")) == 404
    assert status_of(Ambiguous("x")) == 409
    assert status_of(InputError("x")) == status_of(QueryError("x")) == 400
    assert status_of(Forbidden("x")) == 403
    assert status_of(LimitHit("time", "x", "y")) == status_of(LimitHit("busy", "x", "y")) == 503
    assert status_of(LimitHit("rows", "x", "y")) == 422
    assert status_of(RemoteError("x")) == 502
    assert status_of(StoreError("x")) == 503


def test_a_store_that_fails_under_the_server_gives_503_with_the_message_not_a_traceback(
    settings: Settings, seed_store_factory
) -> None:
    store = seed_store_factory()
    with serving(create_app(settings, store)) as url, httpx.Client(base_url=url, timeout=30) as client:
        assert client.get("/api/person/horace-he").status_code == 200
        store.close()  # the store goes away under the running server
        # (people not asked for before: what a page has read of the store is kept in memory)
        api = client.get("/api/person/jane-xu")
        assert api.status_code == 503 and api.json()["error"].endswith("is closed")
        page = client.get("/id/person/chris-lattner", headers={"Accept": "text/html"})
        assert page.status_code == 503 and "is closed" in page.text and "Traceback" not in page.text
        assert page.headers["x-content-type-options"] == "nosniff"


@pytest.mark.parametrize(
    "limit",
    ["9" * 5000, "\uff11", "-1", "0", "1e3", ""],
    ids=["5000-digits", "fullwidth-one", "negative", "zero", "exponent", "empty"],
)
def test_a_related_limit_that_is_no_whole_number_is_400_json(settings: Settings, seed_store, limit: str) -> None:
    """``/api/person/{id}/related?limit=`` 5,000 nines: int() refused the digits (Python's limit on
    long integer strings), a ValueError no handler knew, and the answer was a 500. A full-width
    "１" passed str.isdigit() and was taken as 1."""
    with TestClient(create_app(settings, seed_store)) as client:
        answer = client.get("/api/person/horace-he/related", params={"limit": limit})
    assert answer.status_code == 400, answer.text
    assert answer.json()["error"].startswith("limit must be a whole number, at least 1, not ")
