"""Settings of the Wikidata client: defaults, then ``[kgprofiles.wikidata]`` in kgprofiles.toml, then
the environment (``KGPROFILES_WIKIDATA_ENDPOINT``, ``KGPROFILES_WIKIDATA_CACHE``), then options."""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass, fields, replace
from pathlib import Path
from urllib.parse import urlsplit

from kgprofiles import __version__
from kgprofiles.config import CONFIG_FILE, Settings, read_text
from kgprofiles.errors import InputError
from kgprofiles.vocab import PROJECT_URL

DEFAULT_ENDPOINT = "https://query.wikidata.org/sparql"
DEFAULT_USER_AGENT = f"kgprofiles/{__version__} ({PROJECT_URL}; Wikidata link and import tools) SPARQLWrapper"


@dataclass(frozen=True)
class ClientConfig:
    """How the client talks to a Wikidata SPARQL endpoint. Times are in seconds."""

    endpoint: str = DEFAULT_ENDPOINT
    user_agent: str = DEFAULT_USER_AGENT
    connect_timeout_s: float = 10.0  # to make the connection
    read_timeout_s: float = 30.0  # from the connection to the answer's last byte, however it trickles
    query_budget_s: float = 60.0  # one query, every attempt and every wait between them included
    max_attempts: int = 4  # requests per query, first try included
    backoff_s: float = 2.0  # first wait without Retry-After; doubles each retry
    backoff_max_s: float = 30.0
    min_interval_s: float = 1.0  # between two requests to the endpoint
    cache_dir: Path | None = None  # None: no cache
    cache_max_age_s: float = 24 * 3600.0
    max_bytes: int = 50 * 1024 * 1024  # an answer's size, read incrementally
    max_text_chars: int = 1000  # a longer label, description, alias, title or IRI is left out, with a notice
    batch_size: int = 200  # ids per request (VALUES rows)

    def with_overrides(self, **changes: object) -> ClientConfig:
        return replace(self, **{k: v for k, v in changes.items() if v is not None})  # type: ignore[arg-type]


_FLOATS = {f.name for f in fields(ClientConfig) if f.type == "float"}
_INTS = {f.name for f in fields(ClientConfig) if f.type == "int"}


def client_config(settings: Settings, **overrides: object) -> ClientConfig:
    """The client configuration for a project: its kgprofiles.toml, the environment, then ``overrides``."""
    table: dict[str, object] = {}
    path = settings.root / CONFIG_FILE
    if path.exists():
        try:
            table = tomllib.loads(read_text(path)).get("kgprofiles", {}).get("wikidata", {})
        except tomllib.TOMLDecodeError as exc:
            raise InputError(f"{path}: {exc}", "fix the TOML syntax of the [kgprofiles.wikidata] table") from exc
    values: dict[str, object] = {
        "endpoint": DEFAULT_ENDPOINT,
        "cache_dir": settings.root / ".kgprofiles" / "cache" / "wikidata",
    }
    known = {f.name for f in fields(ClientConfig)}
    for key, value in table.items():
        if key not in known:
            raise InputError(f"{path}: unknown setting wikidata.{key}", f"known settings: {', '.join(sorted(known))}")
        try:
            if key in _FLOATS:
                value = float(value)  # type: ignore[arg-type]
            elif key in _INTS:
                value = int(value)  # type: ignore[call-overload]
            elif key == "cache_dir":
                value = None if value in ("", False) else _path(settings.root, str(value))
        except (TypeError, ValueError) as exc:
            raise InputError(f"{path}: wikidata.{key} = {value!r} is not a number") from exc
        values[key] = value
    if "KGPROFILES_WIKIDATA_ENDPOINT" in os.environ:
        values["endpoint"] = os.environ["KGPROFILES_WIKIDATA_ENDPOINT"]
    if "KGPROFILES_WIKIDATA_CACHE" in os.environ:
        cache = os.environ["KGPROFILES_WIKIDATA_CACHE"]
        values["cache_dir"] = _path(settings.root, cache) if cache else None
    config = ClientConfig(**values)  # type: ignore[arg-type]
    config = config.with_overrides(**overrides)
    if not 1 <= config.batch_size <= 200:
        raise InputError(f"wikidata.batch_size must be 1 to 200, not {config.batch_size}")
    if config.max_attempts < 1:
        raise InputError("wikidata.max_attempts must be at least 1")
    parts = urlsplit(config.endpoint)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise InputError(
            f"the Wikidata endpoint must be an http or https URL, not {config.endpoint[:200]!r}",
            f"e.g. {DEFAULT_ENDPOINT} (--wikidata-endpoint, or endpoint in [kgprofiles.wikidata])",
        )
    for name in ("connect_timeout_s", "read_timeout_s", "query_budget_s", "max_bytes", "max_text_chars"):
        if not getattr(config, name) > 0:
            raise InputError(f"wikidata.{name} must be more than 0, not {getattr(config, name)}")
    return config


def _path(root: Path, value: str) -> Path:
    p = Path(value).expanduser()
    return p if p.is_absolute() else root / p
