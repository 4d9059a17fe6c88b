"""Credentials for a SPARQL server: HTTP Basic or Digest, whichever the server asks for.

They come from the environment (``KGPROFILES_SERVER_USER`` and ``KGPROFILES_SERVER_PASSWORD``)
or from a credentials file that ``kgprofiles.toml`` points to (``credentials_file`` in
``[kgprofiles.server]``: a TOML file with ``user`` and ``password``), never from kgprofiles.toml
itself and never from the endpoint URL. The password is never printed, logged or put in an error
message: ``Credentials`` does not show it in its ``repr``, and errors name only where the
credentials came from.
"""

from __future__ import annotations

import os
import tomllib
import urllib.parse
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

from kgprofiles.errors import InputError

__all__ = ["PASSWORD_ENV", "USER_ENV", "Credentials", "credentials_from", "opener_for"]

USER_ENV = "KGPROFILES_SERVER_USER"
PASSWORD_ENV = "KGPROFILES_SERVER_PASSWORD"
NEEDED_HINT = (
    f"set {USER_ENV} and {PASSWORD_ENV} (or credentials_file in [kgprofiles.server] of kgprofiles.toml), "
    "for a user the server lets write"
)


@dataclass(frozen=True)
class Credentials:
    """A user and password, and where they came from (for messages)."""

    user: str
    password: str = field(repr=False)
    source: str = ""

    def __repr__(self) -> str:
        return f"Credentials(user={self.user!r}, source={self.source!r})"


def credentials_from(file: str | Path | None = None, environ: dict[str, str] | None = None) -> Credentials | None:
    """The credentials the environment gives, else those of ``file``, else None."""
    env = os.environ if environ is None else environ
    user, password = env.get(USER_ENV), env.get(PASSWORD_ENV)
    if user or password:
        if not (user and password):
            raise InputError(f"{USER_ENV} and {PASSWORD_ENV} must be set together", NEEDED_HINT)
        return Credentials(user, password, f"{USER_ENV}/{PASSWORD_ENV}")
    if file is None:
        return None
    path = Path(file).expanduser()
    try:
        table = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise InputError(f"cannot read the credentials file {path}: {exc.strerror}", NEEDED_HINT) from exc
    except tomllib.TOMLDecodeError as exc:
        # the parser's message may quote the line, and the line may hold the password
        raise InputError(
            f"the credentials file {path} is not valid TOML", 'write user = "…" and password = "…"'
        ) from exc
    user, password = table.get("user"), table.get("password")
    if not isinstance(user, str) or not isinstance(password, str) or not user or not password:
        raise InputError(f"the credentials file {path} needs user and password (strings)", NEEDED_HINT)
    return Credentials(user, password, str(path))


def check_endpoint_url(url: str) -> None:
    """Refuse an endpoint URL with a user or password in it (the message does not repeat it)."""
    parts = urllib.parse.urlsplit(url)
    if parts.username is not None or parts.password is not None:
        raise InputError("an endpoint URL may not hold credentials", NEEDED_HINT)


def opener_for(url: str, credentials: Credentials | None) -> urllib.request.OpenerDirector:
    """An opener that answers the server's Basic or Digest challenge with ``credentials``, for
    ``url``'s scheme, host and port only."""
    if credentials is None:
        return urllib.request.build_opener()
    parts = urllib.parse.urlsplit(url)
    passwords = urllib.request.HTTPPasswordMgrWithDefaultRealm()
    passwords.add_password(None, f"{parts.scheme}://{parts.netloc}/", credentials.user, credentials.password)
    return urllib.request.build_opener(
        urllib.request.HTTPDigestAuthHandler(passwords), urllib.request.HTTPBasicAuthHandler(passwords)
    )
