"""The ``kgprofiles`` command: thin commands, each options → one library call → output."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from kgprofiles import __version__
from kgprofiles.config import RELATED_ON_PROFILE, Settings, load_settings
from kgprofiles.errors import KgError

if TYPE_CHECKING:
    from kgprofiles.profiles import Views

app = typer.Typer(
    name="kgprofiles",
    help="Keep a sourced knowledge graph of people: validate, build, query, export and browse profiles.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


def settings_from(ctx: typer.Context) -> Settings:
    return ctx.obj  # type: ignore[no-any-return]


def fail(error: KgError) -> typer.Exit:
    typer.secho(f"kgprofiles: {error.kind}: {error.message}", err=True, fg="red")
    if error.hint:
        typer.echo(f"hint: {error.hint}", err=True)
    return typer.Exit(error.exit_code)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"kgprofiles {__version__}")
        raise typer.Exit()


@app.callback()
def main(
    ctx: typer.Context,
    project: Annotated[
        Path | None, typer.Option(help="Project root (holds data/, ontology/, shapes/, queries/).")
    ] = None,
    version: Annotated[bool, typer.Option("--version", callback=_version, is_eager=True)] = False,
) -> None:
    """Keep a sourced knowledge graph of people."""
    try:
        ctx.obj = load_settings(project)
    except KgError as error:
        raise fail(error) from error


@app.command()
def validate(
    ctx: typer.Context,
    paths: Annotated[list[Path] | None, typer.Argument(help="Files or directories (default: data/).")] = None,
    output: Annotated[str, typer.Option("--format", help="text or json.")] = "text",
) -> None:
    """Check data files against the SHACL shapes.

    Prints one line per result, `file:line: severity: message (focus node, path, shape)`, grouped by
    file, then a summary. Exit 0: no violation (warnings never fail); 1: violations; 2: unreadable input.
    """
    from kgprofiles.ingest import parse_files
    from kgprofiles.validate import validate_files

    settings = settings_from(ctx)
    try:
        files = parse_files(paths or [settings.data_dir], settings.root)
        report = validate_files(files, settings)
    except KgError as error:
        raise fail(error) from error
    if output == "json":
        typer.echo(report.to_json())
    else:
        current = None
        for result in report.results:
            if result.file != current:
                if current is not None:
                    typer.echo("")
                current = result.file
            colour = "red" if result.severity == "violation" else "yellow"
            typer.secho(result.format(), fg=colour if sys.stdout.isatty() else None)
        typer.echo(report.summary())
    raise typer.Exit(0 if report.conforms else 1)


StoreOption = Annotated[
    str | None, typer.Option("--store", help="Store directory, or memory: (default .kgprofiles/store).")
]
EndpointOption = Annotated[
    str | None,
    typer.Option("--endpoint", help="A SPARQL 1.1 query endpoint URL: use that server instead of the embedded store."),
]
QuietOption = Annotated[bool, typer.Option("--quiet", "-q", help="No progress output.")]


def _settings(ctx: typer.Context, store: str | None, endpoint: str | None) -> Settings:
    from kgprofiles.config import MEMORY

    settings = settings_from(ctx)
    if store is not None and store != MEMORY:
        store = str((Path.cwd() / store).absolute())  # not resolve(): the store path is a link to publish
    return settings.with_overrides(store=store, endpoint=endpoint)


def _open(settings: Settings):
    from kgprofiles.store import open_store

    if not settings.endpoint and settings.store != "memory:" and not Path(settings.store).exists():
        raise fail(KgError(f"no store at {settings.store}", "run `kgprofiles build` first, or give --store/--endpoint"))
    return open_store(settings)


@app.command()
def build(
    ctx: typer.Context,
    paths: Annotated[list[Path] | None, typer.Argument(help="Files or directories (default: data/).")] = None,
    store: StoreOption = None,
    endpoint: EndpointOption = None,
    quiet: QuietOption = False,
    reference: Annotated[
        bool,
        typer.Option("--reference", help="Validate with pyshacl and infer with owlrl themselves (slow at scale)."),
    ] = False,
) -> None:
    """Build the graph: parse data/ (one named graph per file), validate it with SHACL, add the
    OWL RL closure in its own graph, and store it, atomically: on any error the previous store
    stays exactly as it was. Exit 1 on a violation, 2 on unreadable input.

    Validation and inference take fast paths that give exactly pyshacl's results and owlrl's triples.

    Where they fall back to those engines, the build says so.

    On disk, the parsed data waits in a scratch file beside the store (about 160 bytes a triple)."""
    from kgprofiles.pipeline import build as run_build
    from kgprofiles.progress import report_progress

    settings = _settings(ctx, store, endpoint)
    try:
        with report_progress("build", quiet) as progress:
            report = run_build(settings, paths, progress, reference=reference)
    except KgError as error:
        raise fail(error) from error
    for note in report.notes:
        typer.echo(f"note: {note}", err=True)
    typer.echo(f"built: {report.summary()}")


@app.command()
def load(
    ctx: typer.Context,
    paths: Annotated[list[Path], typer.Argument(help="The files to add or replace.")],
    store: StoreOption = None,
    endpoint: EndpointOption = None,
    quiet: QuietOption = False,
    reference: Annotated[
        bool,
        typer.Option("--reference", help="Validate with pyshacl and re-infer everything with owlrl (slow at scale)."),
    ] = False,
) -> None:
    """Add or replace single files in the built store without a full rebuild, in one transaction.
    On the embedded store only what the files touch is validated and re-inferred."""
    from kgprofiles.pipeline import load as run_load
    from kgprofiles.progress import report_progress

    settings = _settings(ctx, store, endpoint)
    target = _open(settings)
    try:
        with report_progress("load", quiet) as progress:
            report = run_load(settings, paths, progress, store=target, reference=reference)
    except KgError as error:
        raise fail(error) from error
    finally:
        target.close()
    for note in report.notes:
        typer.echo(f"note: {note}", err=True)
    typer.echo(f"loaded: {report.summary()}")


RESULT_FORMATS = ("table", "csv", "tsv", "json", "xml")
GRAPH_FORMATS = ("ttl", "nt", "jsonld")


@app.command()
def query(
    ctx: typer.Context,
    source: Annotated[str | None, typer.Argument(help="A .rq file, or the name of a query in queries/.")] = None,
    expression: Annotated[str | None, typer.Option("-e", "--expression", help="SPARQL text.")] = None,
    param: Annotated[list[str] | None, typer.Option("--param", "-p", help="NAME=VALUE for a named query.")] = None,
    output: Annotated[
        str | None,
        typer.Option("--format", "-f", help="table, csv, tsv, json, xml; ttl, nt, jsonld for CONSTRUCT/DESCRIBE."),
    ] = None,
    store: StoreOption = None,
    endpoint: EndpointOption = None,
    list_queries: Annotated[bool, typer.Option("--list", help="List the named queries and their parameters.")] = False,
    timeout: Annotated[
        float | None,
        typer.Option(
            "--timeout", help="Seconds the query may run before it is stopped (default: query_timeout_s, 30)."
        ),
    ] = None,
) -> None:
    """Run SPARQL: a .rq file, -e 'SPARQL', or a named query (`kgprofiles query org-members
    --param org=pytorch`). The project's prefixes (kgp:, person:, schema:, …) are predeclared.
    The query runs in a worker process, stopped at the time limit."""
    from kgprofiles.queries import NamedQuery, get_query, load_queries, parse_query_file
    from kgprofiles.store.sandbox import query_once

    if timeout is not None and timeout <= 0:
        raise fail(KgError("--timeout must be positive"))
    settings = _settings(ctx, store, endpoint).with_overrides(query_timeout_s=timeout)
    try:
        if list_queries:
            for q in load_queries(settings.queries_dir).values():
                params = " ".join(f"--param {p.name}=<{p.type}{'?' if p.optional else ''}>" for p in q.params)
                typer.echo(f"{q.name} {params}\n    {q.summary}")
            return
        values = {}
        for item in param or []:
            name, eq, value = item.partition("=")
            if not eq:
                raise KgError(f"--param {item!r} is not NAME=VALUE")
            values[name] = value
        if expression is not None:
            named = NamedQuery("-e", "", (), expression, Path("-e"))
            if values:
                raise KgError("--param needs a named query or a .rq file with a header")
        elif source is None:
            raise KgError("give a query: a .rq file, -e 'SPARQL', or a name (see --list)")
        elif source.endswith(".rq") or Path(source).is_file():
            named = (
                parse_query_file(Path(source))
                if values
                else NamedQuery(source, "", (), Path(source).read_text(encoding="utf-8"), Path(source))
            )
        else:
            named = get_query(settings.queries_dir, source)
        target = _open(settings)
        try:
            result = query_once(
                target,
                named.text,
                named.bind(values),
                timeout_s=settings.query_timeout_s,
                memory_mb=settings.query_memory_mb,
                max_depth=settings.query_max_depth,
            )
        finally:
            target.close()
        _print_result(result, output)
    except KgError as error:
        raise fail(error) from error
    except OSError as error:
        raise fail(KgError(f"{source}: {error.strerror}")) from error


def _print_result(result: object, output: str | None) -> None:
    import pyoxigraph as ox

    from kgprofiles.export import serialize_triples
    from kgprofiles.store.base import SelectResult

    if isinstance(result, bool):
        formats = {"json": ox.QueryResultsFormat.JSON, "xml": ox.QueryResultsFormat.XML}
        if output in formats:
            document = json.dumps({"head": {}, "boolean": result}).encode()
            parsed = ox.parse_query_results(document, format=ox.QueryResultsFormat.JSON)
            sys.stdout.buffer.write(parsed.serialize(format=formats[output]))  # type: ignore[union-attr]
            typer.echo("")
        elif output in (None, "table", "csv", "tsv"):
            typer.echo("true" if result else "false")
        else:
            raise KgError(f"--format {output} is not for ASK results", "ASK gives table, json or xml")
        return
    if isinstance(result, list):
        fmt = output or "ttl"
        if fmt not in GRAPH_FORMATS:
            raise KgError(
                f"--format {fmt} is for SELECT results", f"CONSTRUCT and DESCRIBE give {', '.join(GRAPH_FORMATS)}"
            )
        sys.stdout.buffer.write(serialize_triples(result, fmt))
        return
    assert isinstance(result, SelectResult)
    fmt = output or "table"
    if fmt not in RESULT_FORMATS:
        raise KgError(f"--format {fmt} is for CONSTRUCT/DESCRIBE results", f"SELECT gives {', '.join(RESULT_FORMATS)}")
    if fmt == "table":
        from rich.console import Console
        from rich.table import Table

        from kgprofiles.validate import compact

        table = Table(*result.variables, show_lines=False)
        for row in result.rows:
            table.add_row(*(_cell(row.get(v), compact) for v in result.variables))
        Console(soft_wrap=False).print(table)
        typer.echo(f"{len(result)} row(s)")
        return
    formats = {
        "csv": ox.QueryResultsFormat.CSV,
        "tsv": ox.QueryResultsFormat.TSV,
        "json": ox.QueryResultsFormat.JSON,
        "xml": ox.QueryResultsFormat.XML,
    }
    sys.stdout.buffer.write(result.serialize(formats[fmt]))


def _cell(term: object, compact) -> str:
    import pyoxigraph as ox
    from rdflib import URIRef

    if term is None:
        return ""
    if isinstance(term, ox.NamedNode):
        return compact(URIRef(term.value)) or term.value
    return str(term.value)  # type: ignore[attr-defined]


@app.command()
def export(
    ctx: typer.Context,
    person: Annotated[str | None, typer.Argument(help="Only this person's profile (slug, CURIE, IRI).")] = None,
    output: Annotated[str, typer.Option("--format", "-f", help="ttl, nt, nq or jsonld.")] = "ttl",
    out: Annotated[Path | None, typer.Option("--output", "-o", help="Write to this file instead of stdout.")] = None,
    store: StoreOption = None,
    endpoint: EndpointOption = None,
) -> None:
    """Export the whole graph (N-Quads keep the named graphs) or one person's profile: the person,
    their claims and everything those cite. The same store always gives byte-identical output."""
    import pyoxigraph as ox

    from kgprofiles.export import check_format, export_profile, export_store
    from kgprofiles.queries import get_query, resolve_iri
    from kgprofiles.vocab import PERSON

    settings = _settings(ctx, store, endpoint)
    try:
        check_format(output)
        target = _open(settings)
        try:
            if person is None:
                data = export_store(target, output)
            else:
                iri = ox.NamedNode(resolve_iri(person, str(PERSON)))
                data = export_profile(target, get_query(settings.queries_dir, "person-export"), iri, output)
        finally:
            target.close()
    except KgError as error:
        raise fail(error) from error
    if out is None:
        sys.stdout.buffer.write(data)
    else:
        out.write_bytes(data)
        typer.echo(f"wrote {len(data)} bytes to {out}", err=True)


ViewFormat = Annotated[str, typer.Option("--format", "-f", help="text, md, html or json.")]


@contextmanager
def _views(ctx: typer.Context, store: str | None, endpoint: str | None) -> Iterator[Views]:
    """The views over the chosen store, closed afterwards; a KgError inside becomes a clean exit."""
    from kgprofiles.profiles import Views

    settings = _settings(ctx, store, endpoint)
    target = _open(settings)
    try:
        yield Views(target, settings.queries_dir, settings.related_weights)
    except KgError as error:
        raise fail(error) from error
    finally:
        target.close()


def _render(kind: str, fmt: str, model: object) -> str:
    import importlib

    modules = {"text": "text", "md": "markdown", "markdown": "markdown", "html": "html", "json": "json"}
    if fmt not in modules:
        raise KgError(f"unknown format {fmt!r}", "choose text, md, html or json")
    module = importlib.import_module(f"kgprofiles.render.{modules[fmt]}")
    render = getattr(module, kind, None)
    if render is None:
        raise KgError(f"the {kind} view has no {fmt} form", "choose text or json")
    return render(model)  # type: ignore[no-any-return]


@app.command()
def profile(
    ctx: typer.Context,
    person: Annotated[str, typer.Argument(help="A slug (horace-he), CURIE, IRI, name or Wikidata Q-id.")],
    output: ViewFormat = "text",
    related_count: Annotated[
        int, typer.Option("--related", min=0, help="Show this many related people (`kgprofiles related` lists all).")
    ] = RELATED_ON_PROFILE,
    store: StoreOption = None,
    endpoint: EndpointOption = None,
) -> None:
    """Print a person's profile, section by section, every claim with its footnotes: summary,
    research and writing, works, timeline, roles, where they work, related people, sources."""
    with _views(ctx, store, endpoint) as views:
        shown = views.profile(views.resolve_person(person), related_count)
        typer.echo(_render("profile", output, shown), nl=False)


@app.command()
def related(
    ctx: typer.Context,
    person: Annotated[
        str | None, typer.Argument(help="A slug, CURIE, IRI, name or Wikidata Q-id (leave out with --all).")
    ] = None,
    limit: Annotated[int | None, typer.Option("--limit", "-n", min=1, help="At most this many people.")] = None,
    explain: Annotated[bool, typer.Option("--explain", help="Show each component of the score.")] = False,
    output: Annotated[str, typer.Option("--format", "-f", help="text or json (with --all: JSON Lines).")] = "text",
    everyone: Annotated[
        bool,
        typer.Option(
            "--all",
            help="Every person's related people, one JSON line each ({person, name, related}), for a static "
            "export or a cache. The graph's links are read into memory once. Default --limit 10.",
        ),
    ] = False,
    out: Annotated[Path | None, typer.Option("--out", "-o", help="With --all: write here, not stdout.")] = None,
    quiet: QuietOption = False,
    store: StoreOption = None,
    endpoint: EndpointOption = None,
) -> None:
    """People related to a person, best first, each with the reason: shared organisations (a
    shared current one weighs most), shared topics, works both contributed to, shared events.
    Ties break by name. Weights: \\[kgprofiles.related_weights] in kgprofiles.toml."""
    from kgprofiles.render import json as json_view
    from kgprofiles.render import text as text_view

    if everyone == (person is not None):
        raise fail(
            KgError("give a PERSON, or --all for everyone", "kgprofiles related horace-he; kgprofiles related --all")
        )
    with _views(ctx, store, endpoint) as views:
        if everyone:
            _related_for_everyone(views, limit or RELATED_ON_PROFILE, out, quiet)
            return
        people = views.related(views.resolve_person(person), limit)  # type: ignore[arg-type]
        if output == "json":
            typer.echo(json_view.related(people), nl=False)
        elif output == "text":
            typer.echo(text_view.related(people, explain), nl=False)
        else:
            raise KgError(f"unknown format {output!r}", "choose text or json")


def _related_for_everyone(views: Views, limit: int, out: Path | None, quiet: bool) -> None:
    """One JSON line per person with their related people, from the in-memory index."""
    from kgprofiles.progress import report_progress
    from kgprofiles.render import json as json_view

    with report_progress("related", quiet) as progress:
        progress.stage("read the links")
        index = views.related_index()
        people = index.people
        progress.stage("rank", len(people))
        with out.open("w", encoding="utf-8") if out else nullcontext(sys.stdout) as sink:
            for iri in people:
                line = {
                    "person": iri,
                    "name": index.name(iri),
                    "related": [json_view.related_data(r) for r in index.related(iri, limit)],
                }
                sink.write(json.dumps(line, sort_keys=True, ensure_ascii=False) + "\n")
                progress.advance()
    if out:
        typer.echo(f"wrote related people for {len(people)} people to {out}", err=True)


@app.command()
def org(
    ctx: typer.Context,
    organization: Annotated[str, typer.Argument(help="A slug (pytorch), CURIE or IRI.")],
    output: Annotated[str, typer.Option("--format", "-f", help="text or json.")] = "text",
    store: StoreOption = None,
    endpoint: EndpointOption = None,
) -> None:
    """An organisation and its people: current roles first, then former, then not confirmed."""
    with _views(ctx, store, endpoint) as views:
        typer.echo(_render("organization", output, views.organization(organization)), nl=False)


@app.command()
def topic(
    ctx: typer.Context,
    name: Annotated[str, typer.Argument(help="A slug (inference-and-serving), CURIE or IRI.")],
    output: Annotated[str, typer.Option("--format", "-f", help="text or json.")] = "text",
    store: StoreOption = None,
    endpoint: EndpointOption = None,
) -> None:
    """A topic and the people who work on it, with their current organisations."""
    with _views(ctx, store, endpoint) as views:
        typer.echo(_render("topic", output, views.topic(name)), nl=False)


@app.command()
def people(
    ctx: typer.Context,
    name: Annotated[str | None, typer.Option("--name", help="Part of the name, any case.")] = None,
    topic: Annotated[str | None, typer.Option("--topic", help="Only people on this topic.")] = None,
    organization: Annotated[str | None, typer.Option("--org", help="Only people with a role here.")] = None,
    output: Annotated[str, typer.Option("--format", "-f", help="text or json.")] = "text",
    store: StoreOption = None,
    endpoint: EndpointOption = None,
) -> None:
    """List the people of the graph, filtered by name, topic or organisation."""
    with _views(ctx, store, endpoint) as views:
        typer.echo(_render("people", output, views.people(name, topic, organization)), nl=False)


from kgprofiles.web.command import serve  # noqa: E402

app.command()(serve)

from kgprofiles.link.command import import_app, link_app  # noqa: E402

app.add_typer(link_app, name="link")
app.add_typer(import_app, name="import")
