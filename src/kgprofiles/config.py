"""Settings, resolved once: defaults, then ``kgprofiles.toml``, then environment, then options."""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, field, fields, replace
from pathlib import Path

from kgprofiles.errors import InputError

CONFIG_FILE = "kgprofiles.toml"
MEMORY = "memory:"
#: How many related people a profile shows (the seed page shows ten); `kgprofiles related` lists all.
RELATED_ON_PROFILE = 10


#: The most seconds a time budget may be (a day): past it, a budget is no budget, and the clocks
#: that enforce one cannot count that far (``poll`` takes at most about 24 days).
MAX_SECONDS = 86_400.0


def seconds(value: object, what: str) -> float:
    """``value`` as a time budget in seconds: a number above 0 and at most ``MAX_SECONDS``, else an
    InputError that names ``what`` (infinity or NaN would leave an engine without a budget)."""
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 < value <= MAX_SECONDS:
        raise InputError(f"{what} must be a number of seconds above 0 and at most {MAX_SECONDS:,.0f}, not {value!r}")
    return float(value)


def refuse_the_projects_own(settings: Settings, output: Path) -> None:
    """An InputError when ``output`` (absolute, its links resolved) is the project's data directory
    or store (with its generations), or inside one: never written by a site or an export, even
    with --force (what is written into data/ is loaded by the next build, and a site replaced whole
    there takes the data with it)."""
    from kgprofiles.store.generations import generations_dir

    own = [("data directory", settings.data_dir)]
    if settings.endpoint is None and settings.store != MEMORY:
        store = Path(settings.store)
        own += [("store", store), ("store", generations_dir(store))]
    for what, path in own:
        where = path.resolve()
        if output == where or where in output.parents:
            raise InputError(f"{output} is the project's {what}, or inside it", "give --output a place of its own")


def read_text(path: Path) -> str:
    """The text of a file a user wrote (kgprofiles.toml, a query): UTF-8, else an InputError that
    names the file, the line and the byte (never a UnicodeDecodeError, which reads as a bug)."""
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        data = path.read_bytes()
        line = data.count(b"\n", 0, exc.start) + 1
        raise InputError(
            f"{path}:{line}: not UTF-8 text (byte 0x{data[exc.start]:02x} at offset {exc.start})",
            "save the file as UTF-8",
        ) from exc


#: What ships with kgprofiles and a project may replace with its own directory of the same name.
BUNDLED = ("ontology", "shapes", "queries")


@dataclass(frozen=True)
class SearchPath:
    """Directories read in order, kgprofiles' own first: a project's shapes and queries are added
    beside the packaged ones, and a file of the project replaces the packaged file of the same name
    (``queries/person.rq`` overrides the named query ``person``)."""

    dirs: tuple[Path, ...]

    def files(self, pattern: str) -> list[Path]:
        """The files matching ``pattern`` (recursively), one per relative name, the last directory's
        winning, sorted by that name."""
        chosen: dict[str, Path] = {}
        for directory in self.dirs:
            for path in sorted(directory.rglob(pattern)):
                if path.is_file():
                    chosen[path.relative_to(directory).as_posix()] = path
        return [chosen[name] for name in sorted(chosen)]

    def __str__(self) -> str:
        return os.pathsep.join(str(d) for d in self.dirs)


def search_path(where: Path | SearchPath) -> SearchPath:
    """``where`` as a search path (a single directory is a path of one)."""
    return where if isinstance(where, SearchPath) else SearchPath((where,))


def bundled(name: str) -> Path:
    """Where kgprofiles' own ``ontology``, ``shapes`` or ``queries`` are: inside the installed
    package (a wheel carries them in ``kgprofiles/resources/``, see setup.py), or in the checkout
    an editable install runs from."""
    packaged = Path(__file__).resolve().parent / "resources" / name
    if packaged.is_dir():
        return packaged
    return Path(__file__).resolve().parents[2] / name


class NotAProject(InputError):
    """No kgprofiles.toml in the directory or above it."""


def find_project(start: Path) -> Path | None:
    """The nearest directory from ``start`` upwards that holds kgprofiles.toml (as git finds .git)."""
    for folder in (start, *start.parents):
        if (folder / CONFIG_FILE).is_file():
            return folder
    return None


@dataclass(frozen=True)
class Limits:
    """The budgets of the engines and the caps on input (``[kgprofiles.limits]`` in kgprofiles.toml).

    Validation and inference each stop at ``engine_timeout_s``; inference also when it has
    produced more than ``inferred_triples_factor`` times the asserted triples (data and ontology);
    the engines that run in a child process (sh:sparql constraints, pyshacl, owlrl) get
    ``engine_memory_mb`` of address space. A literal in a data file may hold ``max_literal_bytes``
    (UTF-8); an answer ``max_answer_bytes``, from a remote SPARQL server or from ``serve``'s query
    workers. A JSON-LD export of the whole graph is compacted in memory: it is made for graphs of
    up to ``jsonld_max_quads`` quads."""

    engine_timeout_s: float = 600.0
    inferred_triples_factor: float = 10.0
    engine_memory_mb: int = 8192
    max_literal_bytes: int = 1_000_000
    max_answer_bytes: int = 200_000_000
    jsonld_max_quads: int = 500_000

    @classmethod
    def from_table(cls, table: object, where: str) -> Limits:
        """The limits a ``[kgprofiles.limits]`` table sets (the others keep their defaults);
        an unknown key or a value that is not a positive number is an InputError."""
        if not isinstance(table, dict):
            raise InputError(f"{where}: [kgprofiles.limits] must be a table", _LIMITS_HINT)
        known = {f.name: f.type for f in fields(cls)}
        values: dict[str, float | int] = {}
        for key, value in table.items():
            if key not in known:
                raise InputError(f"{where}: unknown limit {key!r} in [kgprofiles.limits]", _LIMITS_HINT)
            if isinstance(value, bool) or not isinstance(value, int | float) or not 0 < value < math.inf:
                raise InputError(f"{where}: limit {key} must be a positive number, not {value!r}", _LIMITS_HINT)
            if key.endswith("_s"):
                seconds(value, f"{where}: limit {key}")
            values[key] = float(value) if known[key] == "float" else int(value)
        return cls(**values)  # type: ignore[arg-type]


_LIMITS_HINT = "the limits are " + ", ".join(f.name for f in fields(Limits)) + " (see the README's Security section)"


@dataclass(frozen=True)
class Settings:
    """Everything a command needs to know about where things are, resolved once."""

    root: Path
    data_dir: Path
    ontology_dir: Path
    shapes_dir: SearchPath
    queries_dir: SearchPath
    store: str  # a directory path, or "memory:"
    endpoint: str | None = None  # a SPARQL 1.1 query endpoint URL: use the remote backend
    update_endpoint: str | None = None
    graph_store_endpoint: str | None = None
    server_kind: str = "generic"  # oxigraph, virtuoso, fuseki, graphdb, generic (store/server_kinds.py)
    credentials_file: Path | None = None  # a TOML file with user and password for the server
    server_max_rows: int | None = None  # the server's result cap, when it does not say it cut an answer
    server_triples_per_write: int | None = None  # most triples one write request carries (kind's default)
    query_timeout_s: float = 30.0
    query_workers: int = 2  # queries that run at once, each in its own process
    query_queue: int = 8  # queries that may wait for a worker; more are refused (503)
    query_memory_mb: int = 2048  # address space of a query worker
    query_max_depth: int = 128  # how deeply brackets may nest in a query
    related_weights: dict[str, float] = field(default_factory=dict)
    limits: Limits = field(default_factory=Limits)
    base_iri: str | None = None  # where the project mints IRIs; None: vocab.DEFAULT_BASE_IRI

    def with_overrides(self, **changes: object) -> Settings:
        """A copy with the given fields replaced, ignoring ``None`` values."""
        return replace(self, **{k: v for k, v in changes.items() if v is not None})  # type: ignore[arg-type]


_QUERY_LIMITS = ("query_workers", "query_queue", "query_memory_mb", "query_max_depth")


def _query_limits(table: dict[str, object]) -> dict[str, int]:
    """The query limits ``kgprofiles.toml`` sets: whole numbers, at least 1 (the queue: 0)."""
    limits = {}
    for key in _QUERY_LIMITS:
        if key not in table:
            continue
        value = table[key]
        least = 0 if key == "query_queue" else 1
        if not isinstance(value, int) or isinstance(value, bool) or value < least:
            raise InputError(f"{CONFIG_FILE}: {key} = {value!r} is not a whole number of at least {least}")
        limits[key] = value
    return limits


def _base_iri(table: dict[str, object], config_path: Path) -> str:
    """The project's ``base_iri`` (the seed project's when the file names none), checked."""
    from kgprofiles.vocab import DEFAULT_BASE_IRI, check_base_iri

    value = table.get("base_iri", DEFAULT_BASE_IRI)
    try:
        return check_base_iri(value if isinstance(value, str) else repr(value))
    except ValueError as exc:
        raise InputError(
            f"{config_path}: base_iri: {exc}",
            'give the address your IRIs live under, e.g. base_iri = "https://example.org/whos-who/"',
        ) from exc


_SERVER_KEYS = {"kind", "credentials_file", "max_rows", "triples_per_write"}
_SERVER_HINT = (
    "[kgprofiles.server] takes kind (oxigraph, virtuoso, fuseki, graphdb, generic), credentials_file "
    "(a file with user and password), max_rows (the server's result cap) and triples_per_write (the "
    "most triples one write request may carry)"
)


def _server_table(table: dict[str, object], where: Path) -> dict[str, object]:
    """``[kgprofiles.server]``, checked: never a password in kgprofiles.toml itself."""
    server = table.get("server", {})
    if not isinstance(server, dict):
        raise InputError(f"{where}: [kgprofiles.server] must be a table", _SERVER_HINT)
    if {"user", "password"} & set(server):
        raise InputError(
            f"{where}: credentials do not go in kgprofiles.toml (it is shared, and often in git)",
            "set KGPROFILES_SERVER_USER and KGPROFILES_SERVER_PASSWORD, or credentials_file = a file of your own",
        )
    unknown = sorted(set(server) - _SERVER_KEYS)
    if unknown:
        raise InputError(f"{where}: unknown key {unknown[0]!r} in [kgprofiles.server]", _SERVER_HINT)
    for key in ("max_rows", "triples_per_write"):
        value = server.get(key)
        if value is not None and (not isinstance(value, int) or isinstance(value, bool) or value < 1):
            raise InputError(f"{where}: {key} = {value!r} is not a whole number of at least 1", _SERVER_HINT)
    return server


def load_settings(root: Path | None = None, **overrides: object) -> Settings:
    """Settings for the project at ``root`` (default: ``KGPROFILES_PROJECT``, else the nearest
    directory from the current one upwards that holds kgprofiles.toml; NotAProject if none does).
    The project's ``ontology/`` replaces the one kgprofiles ships; its ``shapes/`` and ``queries/``
    are added beside kgprofiles' own (``replace_shapes = true`` / ``replace_queries = true``: instead
    of them)."""
    if root is None and os.environ.get("KGPROFILES_PROJECT"):
        root = Path(os.environ["KGPROFILES_PROJECT"])
    if root is None:
        found = find_project(Path.cwd())
        if found is None:
            raise NotAProject(
                f"not in a kgprofiles project: no {CONFIG_FILE} in {Path.cwd()} or any directory above it",
                "run `kgprofiles init` to start a project here, or give --project DIR",
            )
        root = found
    if not root.is_dir():
        raise NotAProject(f"no project directory {root}", "give --project DIR of a directory with kgprofiles.toml")
    root = root.resolve()
    table: dict[str, object] = {}
    config_path = root / CONFIG_FILE
    if config_path.exists():
        import tomllib

        try:
            table = tomllib.loads(read_text(config_path)).get("kgprofiles", {})
        except tomllib.TOMLDecodeError as exc:
            raise InputError(f"{config_path}: {exc}", "fix the TOML syntax of the [kgprofiles] table") from exc

    def pick(key: str, env: str, default: object) -> object:
        if env in os.environ:
            return os.environ[env]
        return table.get(key, default)

    def path(value: object) -> Path:
        p = Path(str(value))
        return p if p.is_absolute() else root / p

    def own_or_bundled(name: str) -> Path:
        if name in table:
            return path(table[name])
        own = root / name
        return own if own.is_dir() else bundled(name)

    def beside_bundled(name: str) -> SearchPath:
        """kgprofiles' own, then the project's (``<name>/`` or the directory the file names), or
        the project's alone when the file says ``replace_<name> = true``."""
        own = path(table[name]) if name in table else root / name
        if table.get(f"replace_{name}") is True:
            return SearchPath((own,))
        packaged = bundled(name)
        added = own.is_dir() and own.resolve() != packaged.resolve()
        return SearchPath((packaged, own) if added else (packaged,))

    store = str(pick("store", "KGPROFILES_STORE", ".kgprofiles/store"))
    if store != MEMORY:
        store = str(path(store))
    weights = table.get("related_weights", {})
    base_iri = _base_iri(table, config_path)
    server = _server_table(table, config_path)
    settings = Settings(
        root=root,
        data_dir=path(pick("data", "KGPROFILES_DATA", "data")),
        ontology_dir=own_or_bundled("ontology"),
        shapes_dir=beside_bundled("shapes"),
        queries_dir=beside_bundled("queries"),
        store=store,
        endpoint=pick("endpoint", "KGPROFILES_ENDPOINT", None),  # type: ignore[arg-type]
        update_endpoint=table.get("update_endpoint"),  # type: ignore[arg-type]
        graph_store_endpoint=table.get("graph_store_endpoint"),  # type: ignore[arg-type]
        server_kind=str(os.environ.get("KGPROFILES_SERVER_KIND") or server.get("kind") or "generic"),
        credentials_file=path(server["credentials_file"]) if server.get("credentials_file") else None,
        server_max_rows=server.get("max_rows"),  # type: ignore[arg-type]
        server_triples_per_write=server.get("triples_per_write"),  # type: ignore[arg-type]
        query_timeout_s=seconds(table.get("query_timeout_s", 30.0), f"{CONFIG_FILE}: query_timeout_s"),
        **_query_limits(table),
        related_weights=dict(weights) if isinstance(weights, dict) else {},
        limits=Limits.from_table(table.get("limits", {}), str(config_path)),
        base_iri=base_iri,
    )
    from kgprofiles.vocab import use_base_iri

    use_base_iri(base_iri)
    if "store" in overrides and overrides["store"] not in (None, MEMORY):
        overrides["store"] = str(path(overrides["store"]))
    return settings.with_overrides(**overrides)
