"""New files for a curator: a project (``kgprofiles init``) and a person, organisation, topic or
source (``kgprofiles new …``), in the house formatting of the seed files. Every term is written
by a real serialiser (``link.turtle.turtle_term``): a name with quotes, newlines or triple
quotes stays one literal. Nothing is overwritten, and a slug already in use is refused."""

from __future__ import annotations

import contextlib
import fcntl
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pyoxigraph as ox

from kgprofiles.atomic_files import written_whole
from kgprofiles.config import CONFIG_FILE, Settings
from kgprofiles.errors import InputError
from kgprofiles.link.importer import slugify
from kgprofiles.link.turtle import comment, turtle_term
from kgprofiles.vocab import KGP_NS, XSD_NS, IdSpace, check_base_iri, ids

DATA_DIRS = ("people", "organizations", "topics", "sources")


def _prefixes(space: IdSpace) -> dict[str, str]:
    """The prefixes a draft declares: the ontology's and the project's kinds under its base IRI."""
    kinds = ("person", "organization", "topic", "source")
    return {"kgp": KGP_NS, **{kind: space.namespace(kind) for kind in kinds}}


EXAMPLE_PERSON = """# EXAMPLE — written by `kgprofiles init` to show the shape of a profile. It is not a real person:
# delete this file (or replace it) once you have written your own people.
{prefixes}

person:example-person a kgp:Person ;
    kgp:name "Example Person" ;
    kgp:source source:example-page .

# A claim: a role, with its status and its source (every claim needs one).
claim:example-person-role a kgp:Role ;
    kgp:holder person:example-person ;
    kgp:organization organization:example-organization ;
    kgp:title "Example role" ;
    kgp:status kgp:Current ;
    kgp:start "2020"^^xsd:gYear ;
    kgp:source source:example-page .

organization:example-organization a kgp:Organization ;
    kgp:name "Example Organization" .

source:example-page a kgp:Source ;
    kgp:title "An example page" ;
    kgp:url <https://example.org/> .
"""


def init_project(directory: Path, *, title: str, base_iri: str) -> list[Path]:
    """Make ``directory`` a kgprofiles project: kgprofiles.toml (title, base IRI, store), data/ with
    one directory per kind and an example person that validates, and a .gitignore for the store.
    Returns what it wrote."""
    config = directory / CONFIG_FILE
    if config.exists():
        raise InputError(f"{config} exists: {directory} is already a project", "nothing was written")
    try:
        space = IdSpace(check_base_iri(base_iri))
    except ValueError as exc:
        raise InputError(f"--base-iri: {exc}", "e.g. --base-iri https://example.org/whos-who/") from exc
    ignore = directory / ".gitignore"
    if ignore.is_dir():
        raise InputError(f"{ignore} is a directory, not a file", "nothing was written")
    directory.mkdir(parents=True, exist_ok=True)
    with _one_init(directory):
        if config.exists():  # (made by another init while this one looked)
            raise InputError(f"{config} exists: {directory} is already a project", "nothing was written")
        return _write_project(directory, config, ignore, space, title, base_iri)


@contextlib.contextmanager
def _one_init(directory: Path) -> Iterator[None]:
    """One ``init`` of ``directory`` at a time (a lock on the directory, released when the process
    ends however it ends): two at once both wrote, and both said so, leaving the kgprofiles.toml
    of one and the example person of the other. The second is refused at once."""
    fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise InputError(
                f"another `kgprofiles init` is making a project in {directory}",
                "nothing was written; once it is done, see its kgprofiles.toml",
            ) from None
        yield
    finally:
        os.close(fd)


def _write_project(
    directory: Path, config: Path, ignore: Path, space: IdSpace, title: str, base_iri: str
) -> list[Path]:
    written = []
    for name in DATA_DIRS:
        (directory / "data" / name).mkdir(parents=True, exist_ok=True)
    example = directory / "data" / "people" / "example-person.ttl"
    if not example.exists():
        example_prefixes = {**_prefixes(space), "claim": space.namespace("claim"), "xsd": XSD_NS}
        example.write_text(EXAMPLE_PERSON.format(prefixes="\n".join(_prefix_lines(example_prefixes))), encoding="utf-8")
        written.append(example)
    if not ignore.exists() or ".kgprofiles/" not in ignore.read_text(encoding="utf-8", errors="replace"):
        with ignore.open("a", encoding="utf-8") as handle:
            handle.write("# the built store: `kgprofiles build` makes it again from data/\n.kgprofiles/\n")
        written.append(ignore)
    # kgprofiles.toml last: it makes the directory a project, so an init that failed before it
    # can be run again (what it made is kept, or made again)
    config.write_text(
        f"# A kgprofiles project: `kgprofiles validate`, `build`, `serve` run from here or below.\n"
        f"[kgprofiles]\n"
        f"title = {_toml_string(title)}\n"
        f"# Where the IRIs of your people, works and sources live: <base>person/<slug>, ...\n"
        f"# Choose it before you publish (IRIs are meant to last); kgp: (the ontology) stays kgprofiles'.\n"
        f"base_iri = {_toml_string(base_iri)}\n"
        f'store = ".kgprofiles/store"\n',
        encoding="utf-8",
    )
    written.insert(0, config)
    return written


def placeholder_base_iri(directory: Path) -> str:
    """``https://example.org/<directory>/``: a base IRI that works until the user names theirs
    (example.org is reserved for examples, so nothing published can clash with it)."""
    return f"https://example.org/{slugify(directory.name) or 'kgprofiles'}/"


def _toml_string(text: str) -> str:
    escaped = text.replace("\\", "\\\\").replace('"', '\\"')
    # every control character TOML does not allow in a string as an escape: C0, DEL and C1
    escaped = "".join(f"\\u{ord(c):04x}" if c < " " or "\x7f" <= c <= "\x9f" else c for c in escaped)
    return f'"{escaped}"'


@dataclass(frozen=True)
class Draft:
    """A new data file: where it goes and what it says."""

    path: Path
    iri: str
    text: str

    def write(self) -> None:
        """Write the file whole or not at all (a full disk leaves no empty or truncated file in
        data/), and never over another: written beside its place, then hard-linked into it."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        try:
            with written_whole(self.path, over=False) as part:
                part.write_text(self.text, encoding="utf-8")
        except FileExistsError:  # (written meanwhile, by another `new`: as if it had been there)
            raise InputError(
                f"{self.path} exists; nothing was written", "choose another --slug, or edit that file"
            ) from None


KINDS = {
    "person": ("people", "kgp:Person", "A person"),
    "organization": ("organizations", "kgp:Organization", "An organisation"),
    "topic": ("topics", "kgp:Topic", "A topic"),
}


def new_entity(
    settings: Settings,
    kind: str,
    name: str,
    *,
    slug: str | None = None,
    source_url: str | None = None,
    source_title: str | None = None,
) -> Draft:
    """A new person, organisation or topic file; a person needs a source (``source_url``)."""
    directory, rdf_type, what = KINDS[kind]
    space = ids()
    prefixes = _prefixes(space)
    name = name.strip()
    if not name:
        raise InputError(f"{what} needs a name")
    slug = _checked_slug(slug or slugify(name))
    iri = f"{space.namespace(kind)}{slug}"
    path = settings.data_dir / directory / f"{slug}.ttl"
    _refuse_existing(settings, path, iri)
    if kind == "person" and not source_url:
        raise InputError(
            "a person needs a source: where their facts come from",
            f'kgprofiles new person {name!r} --source https://… (--source-title "…")',
        )
    lines = [
        f"# {comment(name)}: written by `kgprofiles new {kind}`. Add what the sources say, each claim with",
        "# its kgp:source (`kgprofiles validate` says what is missing).",
        *_prefix_lines(prefixes),
        "",
        f"{kind}:{slug} a {rdf_type} ;",
        f"    kgp:name {turtle_term(ox.Literal(name), prefixes)}" + (" ;" if source_url else " ."),
    ]
    if source_url:
        source = ox.NamedNode(f"{space.namespace('source')}{slug}-source")
        lines.append(f"    kgp:source {turtle_term(source, prefixes)} .")
        lines += ["", *_source_lines(source, source_url, source_title, prefixes)]
    return Draft(path, iri, "\n".join(lines) + "\n")


def new_source(settings: Settings, url: str, *, title: str | None = None, slug: str | None = None) -> Draft:
    """A new source file for the page at ``url``."""
    node = _url(url)
    slug = _checked_slug(slug or slugify(title or node.value.split("://", 1)[-1]))
    prefixes = _prefixes(ids())
    source = ox.NamedNode(f"{ids().namespace('source')}{slug}")
    path = settings.data_dir / "sources" / f"{slug}.ttl"
    _refuse_existing(settings, path, source.value)
    lines = [
        "# A source: written by `kgprofiles new source`. Cite it from claims with kgp:source.",
        *_prefix_lines(prefixes),
        "",
        *_source_lines(source, url, title, prefixes),
    ]
    return Draft(path, source.value, "\n".join(lines) + "\n")


def _source_lines(source: ox.NamedNode, url: str, title: str | None, prefixes: dict[str, str]) -> list[str]:
    page = _url(url)
    shown = title.strip() if title and title.strip() else page.value
    return [
        f"{turtle_term(source, prefixes)} a kgp:Source ;",
        f"    kgp:title {turtle_term(ox.Literal(shown), prefixes)} ;",
        f"    kgp:url {turtle_term(page, {})} .",
    ]


def _url(url: str) -> ox.NamedNode:
    text = url.strip()
    if not text.lower().startswith(("http://", "https://")):
        raise InputError(f"not a web address: {url!r}", "give the source's http:// or https:// address")
    try:
        return ox.NamedNode(text)
    except ValueError as exc:
        raise InputError(f"not a web address: {url!r} ({exc})") from exc


def _prefix_lines(prefixes: dict[str, str]) -> list[str]:
    width = max(len(name) for name in prefixes) + 2
    return [f"@prefix {(name + ':').ljust(width)}<{iri}> ." for name, iri in prefixes.items()]


#: The longest slug: its file name (slug + ".ttl") must fit the 255 bytes a file system allows,
#: and an IRI a person reads should stay readable.
MAX_SLUG = 120


def _checked_slug(slug: str) -> str:
    import re

    if not re.fullmatch(r"[a-z0-9]+(?:-[a-z0-9]+)*", slug):
        raise InputError(f"not a slug: {slug!r}", "use lower-case letters, digits and single hyphens (--slug)")
    if len(slug) > MAX_SLUG:  # (a file name of more than 255 bytes cannot be made: "File name too long")
        raise InputError(f"a slug of {len(slug):,} characters, past {MAX_SLUG}", "give a shorter --slug")
    return slug


def _refuse_existing(settings: Settings, path: Path, iri: str) -> None:
    """A file already there, or an IRI the data already uses, is refused."""
    from kgprofiles.link.local import LocalData

    if path.exists():
        raise InputError(f"{path} exists; nothing was written", "choose another --slug, or edit that file")
    if not settings.data_dir.is_dir():
        return
    local = LocalData(settings)
    try:
        in_use = local.ask("iri-in-use", resource=ox.NamedNode(iri))
    finally:
        local.close()
    if in_use:
        raise InputError(f"<{iri}> is already in use in {settings.data_dir}", "choose another --slug")
