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

__all__ = ["PASSWORD_ENV", "USER_ENV", "Credentials", "PreemptiveDigest", "credentials_from", "digest_of", "opener_for"]

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
    except UnicodeDecodeError as exc:  # (not the byte: it may be the password's)
        raise InputError(f"the credentials file {path} is not UTF-8 text", NEEDED_HINT) from exc
    except tomllib.TOMLDecodeError as exc:
        # the parser's message may quote the line, and the line may hold the password
        raise InputError(
            f"the credentials file {path} is not valid TOML", 'write user = "…" and password = "…"'
        ) from exc
    user, password = table.get("user"), table.get("password")
    if not isinstance(user, str) or not isinstance(password, str) or not user or not password:
        raise InputError(f"the credentials file {path} needs user and password (strings)", NEEDED_HINT)
    return Credentials(user, password, str(path))


ENDPOINT_HINT = "give the SPARQL server's URL, e.g. http://127.0.0.1:7878/query"


def check_endpoint_url(url: str) -> None:
    """Refuse an endpoint URL that is not http(s)://host… (said at once, not at the first query of
    a server already started), or with a user or password in it (the message does not repeat it)."""
    try:
        parts = urllib.parse.urlsplit(url)
        credentials = parts.username is not None or parts.password is not None
        host = parts.hostname
    except ValueError:  # (an unclosed "[" of an IPv6 address, a port that is no number)
        raise InputError("an endpoint URL that cannot be read", ENDPOINT_HINT) from None
    if credentials:
        raise InputError("an endpoint URL may not hold credentials", NEEDED_HINT)
    if parts.scheme.lower() not in ("http", "https") or not host:
        raise InputError(f"not an http:// or https:// endpoint URL: {url!r}", ENDPOINT_HINT)


class PreemptiveDigest(urllib.request.HTTPDigestAuthHandler):
    """Digest that, once the server has challenged, signs every later request before sending it.

    urllib answers each challenge after the fact: the request goes out without credentials, the
    server answers 401, the request goes again. With a large body (a graph PUT) the server may
    answer 401 and close the connection while the body is still being sent ("Broken pipe", seen
    with Virtuoso). ``primed`` says whether a challenge is known; ``RemoteStore`` primes it with a
    small request before sending a large one."""

    def __init__(self, passwords: urllib.request.HTTPPasswordMgr) -> None:
        super().__init__(passwords)
        self.challenge: dict[str, str] | None = None

    @property
    def primed(self) -> bool:
        return self.challenge is not None

    def retry_http_digest_auth(self, req: urllib.request.Request, auth: str) -> object:
        _, challenge = auth.split(" ", 1)
        self.challenge = urllib.request.parse_keqv_list([p for p in urllib.request.parse_http_list(challenge) if p])
        return super().retry_http_digest_auth(req, auth)

    def http_request(self, req: urllib.request.Request) -> urllib.request.Request:
        if self.challenge is not None and not req.has_header("Authorization"):
            signed = self.get_authorization(req, self.challenge)
            if signed:
                req.add_unredirected_header("Authorization", f"Digest {signed}")
        return req

    https_request = http_request


def opener_for(url: str, credentials: Credentials | None) -> urllib.request.OpenerDirector:
    """An opener that answers the server's Basic or Digest challenge with ``credentials``, for
    ``url``'s scheme, host and port only (Digest: signing ahead once challenged)."""
    if credentials is None:
        return urllib.request.build_opener()
    parts = urllib.parse.urlsplit(url)
    passwords = urllib.request.HTTPPasswordMgrWithDefaultRealm()
    passwords.add_password(None, f"{parts.scheme}://{parts.netloc}/", credentials.user, credentials.password)
    return urllib.request.build_opener(PreemptiveDigest(passwords), urllib.request.HTTPBasicAuthHandler(passwords))


def digest_of(opener: urllib.request.OpenerDirector) -> PreemptiveDigest | None:
    """The opener's signing Digest handler, if it has one."""
    handlers = getattr(opener, "handlers", [])  # (an attribute urllib does not declare)
    return next((h for h in handlers if isinstance(h, PreemptiveDigest)), None)
