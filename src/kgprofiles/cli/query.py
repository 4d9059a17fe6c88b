"""The SPARQL commands: ``query`` (a named query, a .rq file or -e text) and ``export`` (the whole
graph or one profile, in ttl, nt, nq or jsonld)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from kgprofiles.atomic_files import written_whole
from kgprofiles.cli.options import (
    EndpointOption,
    ServerKindOption,
    StoreOption,
    checked_output,
    open_reader,
    store_settings,
)
from kgprofiles.errors import InputError

if TYPE_CHECKING:
    from kgprofiles.config import Settings
    from kgprofiles.store.base import QueryResult
    from kgprofiles.store.sandbox import QueryPool

RESULT_FORMATS = ("table", "csv", "tsv", "json", "xml")
GRAPH_FORMATS = ("ttl", "nt", "jsonld")


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
    server_kind: ServerKindOption = None,
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
    from kgprofiles.config import MEMORY, seconds
    from kgprofiles.queries import load_queries
    from kgprofiles.store.sandbox import QueryPool

    if timeout is not None:
        seconds(timeout, "--timeout")
    settings = store_settings(ctx, store, endpoint, server_kind).with_overrides(query_timeout_s=timeout)
    if list_queries:
        for q in load_queries(settings.queries_dir).values():
            params = " ".join(f"--param {p.name}=<{p.type}{'?' if p.optional else ''}>" for p in q.params)
            typer.echo(f"{q.name} {params}\n    {q.summary}")
        return
    with QueryPool(workers=1, queue=0, memory_mb=settings.query_memory_mb, fork=True) as pool:
        if settings.endpoint is None and settings.store != MEMORY:  # the query runs in a worker,
            pool.start()  # forked now, before this process opens the store (0.1 s less than a forkserver)
        result = _run(settings, source, expression, param, pool)
    _print_result(result, output)


def _run(
    settings: Settings, source: str | None, expression: str | None, param: list[str] | None, pool: QueryPool
) -> QueryResult:
    """The answer to the query the options name, run by ``pool``'s worker (on-disk stores)."""
    from kgprofiles.config import read_text
    from kgprofiles.queries import NamedQuery, get_query, parse_query_file
    from kgprofiles.store.sandbox import query_once

    values = {}
    for item in param or []:
        name, eq, value = item.partition("=")
        if not eq:
            raise InputError(f"--param {item!r} is not NAME=VALUE")
        if name in values:  # (one value a parameter: which of the two was meant?)
            raise InputError(f"--param {name} is given more than once", "give each parameter one value")
        values[name] = value
    if expression is not None:
        named = NamedQuery("-e", "", (), expression, Path("-e"))
        if values:
            raise InputError("--param needs a named query or a .rq file with a header")
    elif source is None:
        raise InputError("give a query: a .rq file, -e 'SPARQL', or a name (see --list)")
    elif source.endswith(".rq") or Path(source).is_file():
        try:
            named = (
                parse_query_file(Path(source))
                if values
                else NamedQuery(source, "", (), read_text(Path(source)), Path(source))
            )
        except OSError as error:
            raise InputError(f"{source}: {error.strerror}") from error
    else:
        named = get_query(settings.queries_dir, source)
    target = open_reader(settings)
    try:
        result = query_once(
            target,
            named.text,
            named.bind(values),
            timeout_s=settings.query_timeout_s,
            max_depth=settings.query_max_depth,
            pool=pool,
        )
    finally:
        target.close()
    return result


def _print_result(result: object, output: str | None) -> None:
    from kgprofiles.export import serialize_triples
    from kgprofiles.store import rdf_syntax
    from kgprofiles.store.base import GraphResult, SelectResult
    from kgprofiles.store.oxigraph import as_bytes

    if isinstance(result, bool):
        formats = {"json": rdf_syntax.QueryResultsFormat.JSON, "xml": rdf_syntax.QueryResultsFormat.XML}
        if output in formats:
            document = json.dumps({"head": {}, "boolean": result}).encode()
            parsed = rdf_syntax.parse_query_results(document, format=rdf_syntax.QueryResultsFormat.JSON)
            sys.stdout.buffer.write(as_bytes(parsed.serialize(format=formats[output])))
            typer.echo("")
        elif output in (None, "table", "csv", "tsv"):
            typer.echo("true" if result else "false")
        else:
            raise InputError(f"--format {output} is not for ASK results", "ASK gives table, json or xml")
        return
    if isinstance(result, list):
        if isinstance(result, GraphResult) and result.capped_at is not None:
            typer.echo(
                f"warning: the server cut the solutions of this CONSTRUCT at its cap of {result.capped_at} rows: "
                "more triples may match (add LIMIT/OFFSET to page, or raise the server's cap)",
                err=True,
            )
        fmt = output or "ttl"
        if fmt not in GRAPH_FORMATS:
            raise InputError(
                f"--format {fmt} is for SELECT results", f"CONSTRUCT and DESCRIBE give {', '.join(GRAPH_FORMATS)}"
            )
        sys.stdout.buffer.write(serialize_triples(result, fmt))
        return
    assert isinstance(result, SelectResult)
    if result.capped_at is not None:
        typer.echo(
            f"warning: the server cut this answer at its cap of {result.capped_at} rows: more rows may match "
            "(add LIMIT/OFFSET to page, or raise the server's cap)",
            err=True,
        )
    fmt = output or "table"
    if fmt not in RESULT_FORMATS:
        raise InputError(
            f"--format {fmt} is for CONSTRUCT/DESCRIBE results", f"SELECT gives {', '.join(RESULT_FORMATS)}"
        )
    if fmt == "table":
        from rich.console import Console
        from rich.table import Table

        table = Table(*result.variables, show_lines=False)
        for row in result.rows:
            table.add_row(*(_cell(row.get(v)) for v in result.variables))
        Console(soft_wrap=False).print(table)
        typer.echo(f"{len(result)} row(s)")
        return
    formats = {
        "csv": rdf_syntax.QueryResultsFormat.CSV,
        "tsv": rdf_syntax.QueryResultsFormat.TSV,
        "json": rdf_syntax.QueryResultsFormat.JSON,
        "xml": rdf_syntax.QueryResultsFormat.XML,
    }
    sys.stdout.buffer.write(result.serialize(formats[fmt]))


def _cell(term: object) -> str:
    """A term in a table: an IRI as a CURIE with the project's prefixes (and ``kgs:`` for the
    shapes), or as <IRI>; anything else as its text. (Not through rdflib: 0.1 s of imports.)"""
    import pyoxigraph as ox

    from kgprofiles.vocab import KGS_NS, PREFIXES, curie

    if term is None:
        return ""
    if isinstance(term, ox.NamedNode):
        return curie(term.value, {**PREFIXES, "kgs": KGS_NS}) or f"<{term.value}>"
    return str(term.value)  # type: ignore[attr-defined]


def export(
    ctx: typer.Context,
    person: Annotated[
        str | None,
        typer.Argument(help="Only this person's profile (slug, CURIE, IRI, name or Wikidata Q-id, as for `profile`)."),
    ] = None,
    output: Annotated[str, typer.Option("--format", "-f", help="ttl, nt, nq or jsonld.")] = "ttl",
    out: Annotated[Path | None, typer.Option("--output", "-o", help="Write to this file instead of stdout.")] = None,
    store: StoreOption = None,
    endpoint: EndpointOption = None,
    server_kind: ServerKindOption = None,
) -> None:
    """Export the whole graph (N-Quads keep the named graphs) or one person's profile: the person,
    their claims and everything those cite. The same store always gives byte-identical output."""
    from kgprofiles.export import check_format, export_profile, export_store_to
    from kgprofiles.profiles import Views
    from kgprofiles.queries import get_query

    settings = store_settings(ctx, store, endpoint, server_kind)
    check_format(output)
    if out is not None:
        out = checked_output(settings, out)  # (resolved: a link to the file stays a link)
    target = open_reader(settings)
    try:
        if person is None and out is not None:  # streamed into a file beside it, then renamed
            with written_whole(out) as written:
                export_store_to(target, output, written, jsonld_max_quads=settings.limits.jsonld_max_quads)
            typer.echo(f"wrote {out.stat().st_size} bytes to {out}", err=True)
            return
        if person is None:  # streamed to standard output
            export_store_to(target, output, sys.stdout.buffer, jsonld_max_quads=settings.limits.jsonld_max_quads)
            sys.stdout.buffer.flush()
            return
        iri = Views(target, settings.queries_dir).resolve_person(person)  # (no such person: an InputError)
        data = export_profile(target, get_query(settings.queries_dir, "person-export"), iri, output)
    finally:
        target.close()
    if out is None:
        sys.stdout.buffer.write(data)
    else:
        with written_whole(out) as written:
            written.write_bytes(data)
        typer.echo(f"wrote {len(data)} bytes to {out}", err=True)
