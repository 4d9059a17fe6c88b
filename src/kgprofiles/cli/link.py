"""The `kgprofiles link …` and `kgprofiles import wikidata …` commands: options → one library call
→ output. Wikidata errors are reported by the error boundary (``cli/boundary.py``), exit 4."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated

import typer

from kgprofiles.cli.options import project_settings
from kgprofiles.config import Settings
from kgprofiles.errors import InputError

link_app = typer.Typer(
    name="link",
    help="Link people and organisations to Wikidata: check links, suggest links, compare claims.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
import_app = typer.Typer(
    name="import",
    help="Draft a profile from another source.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

DataOption = Annotated[
    Path | None, typer.Option("--data", help="The data directory to read (default: the project's data/).")
]
EndpointOption = Annotated[
    str | None,
    typer.Option(
        "--wikidata-endpoint",
        help="Wikidata SPARQL endpoint (default: KGPROFILES_WIKIDATA_ENDPOINT, else [kgprofiles.wikidata] "
        "endpoint, else https://query.wikidata.org/sparql).",
    ),
]
NoCacheOption = Annotated[bool, typer.Option("--no-cache", help="Neither read nor write the answer cache.")]
FormatOption = Annotated[str, typer.Option("--format", "-f", help="text or json.")]


def _say(message: str) -> None:
    typer.echo(message, err=True)


@contextmanager
def _session(ctx: typer.Context, data: Path | None, endpoint: str | None, no_cache: bool) -> Iterator[tuple]:
    """Our data (LocalData) and Wikidata (link.wikidata.Wikidata) for one command."""
    from kgprofiles.link.client import WikidataClient
    from kgprofiles.link.local import LocalData
    from kgprofiles.link.wikidata import Wikidata
    from kgprofiles.link.wikidata_settings import client_config

    settings = project_settings(ctx)
    config = client_config(settings, endpoint=endpoint)
    data_dir = (Path.cwd() / data).resolve() if data else None
    local = LocalData(settings, data_dir)
    try:
        client = WikidataClient(config, use_cache=not no_cache, notify=_say)
        yield settings, local, Wikidata(client, settings.queries_dir)
    finally:
        local.close()


def _check_format(output: str) -> None:
    if output not in ("text", "json"):
        raise InputError(f"unknown format {output!r}", "choose text or json")


def _echo_lines(lines: list[str]) -> None:
    for line in lines:
        typer.echo(line)


# ------------------------------------------------------------------------------------------ check


@link_app.command("check")
def check_command(
    ctx: typer.Context,
    data: DataOption = None,
    endpoint: EndpointOption = None,
    no_cache: NoCacheOption = False,
    output: FormatOption = "text",
) -> None:
    """Check every owl:sameAs into Wikidata: the item exists, is not a redirect (the target is
    shown), has the right type (a person is a human, Q5; an organisation is not), and its label
    or an alias is our name. Exit 0 when every link is right, 1 when one is not, 4 when Wikidata
    cannot be asked."""
    from kgprofiles.link.check import OK, check_links, format_json, format_text

    _check_format(output)
    with _session(ctx, data, endpoint, no_cache) as (_, local, wikidata):
        links = local.links()
        if output == "text":
            _say(f"checking {len(links)} Wikidata link(s) against {wikidata.client.endpoint}")
        checks = check_links(links, wikidata)
    if output == "json":
        typer.echo(format_json(checks))
    else:
        _echo_lines(format_text(checks))
    raise typer.Exit(0 if all(c.status == OK for c in checks) else 1)


# ------------------------------------------------------------------------------------------ suggest


@link_app.command("suggest")
def suggest_command(
    ctx: typer.Context,
    entity: Annotated[
        str | None, typer.Argument(help="A person (slug, CURIE, IRI, name) or organization:SLUG.")
    ] = None,
    all_entities: Annotated[bool, typer.Option("--all", help="Every person and organisation without a link.")] = False,
    apply: Annotated[bool, typer.Option("--apply", help="Write the best candidate's link into the data file.")] = False,
    yes: Annotated[bool, typer.Option("--yes", help="With --apply: apply even below the threshold.")] = False,
    threshold: Annotated[float, typer.Option(help="The score --apply needs without --yes.")] = 0.8,
    data: DataOption = None,
    endpoint: EndpointOption = None,
    no_cache: NoCacheOption = False,
    output: FormatOption = "text",
) -> None:
    """Find Wikidata candidates for people and organisations without a link, by label, alias and
    type, ranked by evidence (shared employer, works, fields of work, dates). --apply adds
    `owl:sameAs wd:Q…` to the entity's data file as one clean edit, and refuses below the
    threshold unless --yes is given."""
    from kgprofiles.link.suggest import format_json, format_text, suggest
    from kgprofiles.link.turtle import WD, add_same_as, editing
    from kgprofiles.link.wikidata_errors import NotApplied

    _check_format(output)
    if (entity is None) == (not all_entities):
        raise InputError("give a person or organisation, or --all", "e.g. `kgprofiles link suggest horace-he`")
    with _session(ctx, data, endpoint, no_cache) as (settings, local, wikidata):
        if entity is not None:
            iri = local.resolve(entity)
            entities = local.unlinked(iri)
            if not entities:
                linked = [e for e in local.links() if e.iri == iri]
                raise InputError(
                    f"{entity} is already linked to Wikidata ({', '.join(e.wikidata or '' for e in linked)})"
                    if linked
                    else f"{entity} is not a person or organisation of the data",
                    "`kgprofiles link check` checks existing links",
                )
        else:
            entities = local.unlinked()
        suggestions = suggest(entities, local, wikidata)
        if output == "json":
            typer.echo(format_json(suggestions))
        else:
            _echo_lines(format_text(suggestions, threshold))
        if not apply:
            return
        refused = []
        for suggestion in suggestions:
            reason = suggestion.refusal(threshold, yes)
            if reason is None and suggestion.entity.file is None:
                reason = "the data file that defines it was not found"
            if reason is not None:
                refused.append(f"{suggestion.entity.label}: {reason}")
                continue
            best = suggestion.best
            assert best is not None and suggestion.entity.file is not None
            with editing(suggestion.entity.file):  # (read and written under its lock: another edit waits)
                edit = add_same_as(suggestion.entity.file, suggestion.entity.iri, WD + best.qid)
                edit.write()
            shown = _display(suggestion.entity.file, settings.root)
            to_stderr = output == "json"  # keep stdout one JSON document
            typer.echo(f"applied: {suggestion.entity.label} owl:sameAs wd:{best.qid} in {shown}", err=to_stderr)
            typer.echo(edit.diff(shown), nl=False, err=to_stderr)
        if refused and entity is not None:
            raise NotApplied(refused[0])
        for line in refused:
            typer.echo(f"not applied: {line}", err=True)


def _display(path: Path, root: Path) -> str:
    try:
        return str(path.resolve().relative_to(root.resolve()))
    except ValueError:
        return str(path)


# ------------------------------------------------------------------------------------------ diff


@link_app.command("diff")
def diff_command(
    ctx: typer.Context,
    person: Annotated[str | None, typer.Argument(help="A linked person (slug, CURIE, IRI, name or Q-id).")] = None,
    all_people: Annotated[bool, typer.Option("--all", help="Every person linked to Wikidata.")] = False,
    data: DataOption = None,
    endpoint: EndpointOption = None,
    no_cache: NoCacheOption = False,
    output: FormatOption = "text",
) -> None:
    """Our claims beside Wikidata's: name, employers (P108) and positions (P39) with start and end
    (P580, P582) at their precision, works (P50, P800) with dates, fields of work (P101), birth and
    death (P569, P570, P19, P20), awards (P166), education (P69), doctoral advisors and students
    (P184, P185), identifiers (ORCID, DBLP, Google Scholar, GitHub). Prints what agrees, what
    differs, and what only one side has."""
    from kgprofiles.link.diff import diff_people, format_json, format_text

    _check_format(output)
    if (person is None) == (not all_people):
        raise InputError("give a person, or --all", "e.g. `kgprofiles link diff horace-he`")
    with _session(ctx, data, endpoint, no_cache) as (_, local, wikidata):
        people = [e for e in local.links() if e.kind == "person"]
        if person is not None:
            iri = local.resolve(person)
            people = [e for e in people if e.iri == iri]
            if not people:
                raise InputError(f"{person} has no Wikidata link", "`kgprofiles link suggest` finds candidates")
        diffs = diff_people(people, local, wikidata)
    if output == "json":
        typer.echo(format_json(diffs))
    else:
        _echo_lines(format_text(diffs))


# ------------------------------------------------------------------------------------------ import


@import_app.command("wikidata")
def import_wikidata(
    ctx: typer.Context,
    qid: Annotated[str, typer.Argument(help="The Wikidata item of a person, e.g. Q42.")],
    out: Annotated[
        Path | None, typer.Option("--output", "-o", help="Where to write the draft (default: data/people/SLUG.ttl).")
    ] = None,
    slug: Annotated[str | None, typer.Option(help="The person's slug (default: from the label).")] = None,
    force: Annotated[bool, typer.Option("--force", help="Overwrite an existing file.")] = False,
    data: DataOption = None,
    endpoint: EndpointOption = None,
    no_cache: NoCacheOption = False,
) -> None:
    """Write a draft profile of a Wikidata person: name, description, employers and positions with
    dates, works, fields of work, birth and death, awards, education, doctoral advisors and
    students, identifiers, and one source per Wikidata reference plus the item itself.
    Then validate it: exit 0 when the draft validates, 1 when `validate` lists what the curator
    must add (printed), 4 when Wikidata cannot be asked."""
    from kgprofiles.atomic_files import written_whole
    from kgprofiles.link.importer import default_path, import_person

    with _session(ctx, data, endpoint, no_cache) as (settings, local, wikidata):
        draft = import_person(qid.strip().upper(), local, wikidata, slug=slug)
        target = (Path.cwd() / out).resolve() if out else default_path(local.data_dir, draft)
        if target.exists() and not force:
            raise InputError(f"{target} exists; nothing was written", "give --output PATH, or --force")
        target.parent.mkdir(parents=True, exist_ok=True)
        with written_whole(target) as part:  # (with --force, the file it replaces stays whole till then)
            part.write_text(draft.text, encoding="utf-8")
        shown = _display(target, settings.root)
        typer.echo(
            f"wrote {shown}: {draft.person} from {draft.qid}, {len(draft.sources)} source(s) "
            f"({len(draft.references)} Wikidata reference(s) and the item)"
        )
        for note in draft.notes:
            typer.echo(f"note: {note}")
        report = _validate_draft(settings, local.data_dir, target)
    mine = [r for r in report.results if r.file == shown]
    violations = [r for r in mine if r.severity == "violation"]
    if not violations:
        typer.echo(f"the draft validates ({len(mine)} warning(s); `kgprofiles validate {shown}` shows them)")
        return
    typer.echo(f"`kgprofiles validate` lists {len(violations)} thing(s) the curator must add:")
    for result in violations:
        typer.echo(f"  {result.format()}")
    raise typer.Exit(1)


def _validate_draft(settings: Settings, data_dir: Path, draft: Path):
    """The SHACL report of the data directory with the draft in it."""
    from kgprofiles.ingest import parse_files
    from kgprofiles.validate import validate_files

    files = parse_files([data_dir, draft], settings.root, data_dir)
    return validate_files(files, settings)
