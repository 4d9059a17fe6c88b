"""Profiles kept on disk for one static-site build, shared by its worker processes.

A person's "Why?" pages need the other person's profile too, and at 100,000 people the other is
almost never among the profiles a process keeps in memory: without the shelf, every "Why?" page
made a profile again (some twenty queries), ten times a person. ``site build`` renders every
person's page first, each process putting the profile it made on the shelf, and the "Why?" pages
after, taking both profiles from it (a fraction of a millisecond each). The person's related
people are shelved beside it: ranking them again cost 1.3 ms a person at 100,000 people, once
or twice for their ten "Why?" pages.

One SQLite file in the build's private scratch directory; each process opens its own connection
(never one across a fork). Profiles are pickled: only this build writes the file, and only it
reads it back. Not compressed: zlib cost ~0.04 ms of each "Why?" page (a million at 100,000
people) to save ~200 MB of scratch disk (~3 KB a profile pickled).

>>> import tempfile
>>> from kgprofiles.profiles import Profile
>>> with tempfile.TemporaryDirectory() as scratch:
...     shelf = ProfileShelf(Path(scratch) / "profiles.sqlite")
...     p = Profile("https://example.org/p", "p", "P", None, None, (), (), (), (), (), (), (), (), ())
...     shelf.put(p.iri, p)
...     shelf.put_related(p.iri, 10, [])
...     (shelf.get("https://example.org/p").name, shelf.get("https://example.org/q"))
...     (shelf.related(p.iri, 10), shelf.related(p.iri, None), shelf.related("https://example.org/q", 10))
...     shelf.close()
('P', None)
([], None, None)
"""

from __future__ import annotations

import os
import pickle
import sqlite3
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from kgprofiles.profiles import Profile
    from kgprofiles.related import Related


class ProfileShelf:
    """Profiles, and the related people shown with them, by person IRI, in one file every process
    of a build reads and writes."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._connection: sqlite3.Connection | None = None
        self._pid = 0

    def _db(self) -> sqlite3.Connection:
        if self._connection is None or self._pid != os.getpid():  # a forked worker: its own connection
            connection = sqlite3.connect(self.path, timeout=60, isolation_level=None, check_same_thread=False)
            connection.execute("PRAGMA journal_mode=WAL")  # readers and one writer at a time, across processes
            connection.execute("PRAGMA synchronous=OFF")  # scratch: a crash loses the build anyway
            connection.execute("CREATE TABLE IF NOT EXISTS profile (iri TEXT PRIMARY KEY, data BLOB NOT NULL)")
            connection.execute(  # (limit -1: no limit)
                "CREATE TABLE IF NOT EXISTS related (iri TEXT, max INTEGER, data BLOB NOT NULL, PRIMARY KEY (iri, max))"
            )
            self._connection, self._pid = connection, os.getpid()
        return self._connection

    def get(self, iri: str) -> Profile | None:
        row = self._db().execute("SELECT data FROM profile WHERE iri = ?", (iri,)).fetchone()
        return None if row is None else pickle.loads(row[0])  # this build wrote it

    def put(self, iri: str, profile: Profile) -> None:
        data = pickle.dumps(profile, protocol=pickle.HIGHEST_PROTOCOL)
        self._db().execute("INSERT OR REPLACE INTO profile VALUES (?, ?)", (iri, data))

    def related(self, iri: str, limit: int | None) -> list[Related] | None:
        """The person's first ``limit`` related people (None: all), if they were put here."""
        row = self._db().execute("SELECT data FROM related WHERE iri = ? AND max = ?", (iri, _max(limit))).fetchone()
        return None if row is None else pickle.loads(row[0])  # this build wrote it

    def put_related(self, iri: str, limit: int | None, related: list[Related]) -> None:
        data = pickle.dumps(related, protocol=pickle.HIGHEST_PROTOCOL)
        self._db().execute("INSERT OR REPLACE INTO related VALUES (?, ?, ?)", (iri, _max(limit), data))

    def close(self) -> None:
        if self._connection is not None and self._pid == os.getpid():
            self._connection.close()
        self._connection = None


def _max(limit: int | None) -> int:
    return -1 if limit is None else limit
