"""The view commands: ``profile``, ``related``, ``org``, ``topic``, ``people`` and ``search``, each over the
store opened to read, rendered as text, Markdown, HTML or JSON."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, TextIO

import typer

from kgprofiles.atomic_files import written_whole
from kgprofiles.cli.options import (
    EndpointOption,
    QuietOption,
    ServerKindOption,
    StoreOption,
    checked_output,
    open_reader,
    store_settings,
)
from kgprofiles.config import RELATED_ON_PROFILE
from kgprofiles.errors import InputError

if TYPE_CHECKING:
    from kgprofiles.profiles import Views

ViewFormat = Annotated[str, typer.Option("--format", "-f", help="text, md, html or json.")]


@contextmanager
def _views(
    ctx: typer.Context, store: str | None, endpoint: str | None, server_kind: str | None = None
) -> Iterator[Views]:
    """The views over the chosen store (opened to read), closed afterwards."""
    from kgprofiles.profiles import Views

    settings = store_settings(ctx, store, endpoint, server_kind)
    target = open_reader(settings)
    try:
        yield Views(target, settings.queries_dir, settings.related_weights)
    finally:
        target.close()


def _render(kind: str, fmt: str, model: object, **extras: object) -> str:
    import importlib

    modules = {"text": "text", "md": "markdown", "markdown": "markdown", "html": "html", "json": "json"}
    if fmt not in modules:
        raise InputError(f"unknown format {fmt!r}", "choose text, md, html or json")
    module = importlib.import_module(f"kgprofiles.render.{modules[fmt]}")
    render = getattr(module, kind, None)
    if render is None:
        raise InputError(f"the {kind} view has no {fmt} form", "choose text or json")
    return render(model, **extras)  # type: ignore[no-any-return]


def profile(
    ctx: typer.Context,
    person: Annotated[
        str,
        typer.Argument(
            help="A slug (horace-he), CURIE, IRI, name (any case or accents; middle names and initials may be "
            "left out) or Wikidata Q-id."
        ),
    ],
    output: ViewFormat = "text",
    related_count: Annotated[
        int, typer.Option("--related", min=0, help="Show this many related people (`kgprofiles related` lists all).")
    ] = RELATED_ON_PROFILE,
    store: StoreOption = None,
    endpoint: EndpointOption = None,
    server_kind: ServerKindOption = None,
) -> None:
    """Print a person's profile, section by section, every claim with its footnotes: summary,
    research and writing, works, timeline, roles, where they work, related people, sources.
    md and html open with a summary box; html also draws the timeline and the people around them."""
    with _views(ctx, store, endpoint, server_kind) as views:
        shown = views.profile(views.resolve_person(person), related_count)
        extras: dict[str, object] = {}
        if output in ("md", "markdown", "html"):  # the summary box: two more queries, for these forms only
            from kgprofiles.infobox import person_box, person_facts

            facts = person_facts(views, shown)
            extras = {"box": person_box(facts)} if output != "html" else {"facts": facts}
        typer.echo(_render("profile", output, shown, **extras), nl=False)


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
    out: Annotated[
        Path | None,
        typer.Option("--out", "-o", help="With --all: write this file (outside data/ and the store), not stdout."),
    ] = None,
    quiet: QuietOption = False,
    store: StoreOption = None,
    endpoint: EndpointOption = None,
    server_kind: ServerKindOption = None,
) -> None:
    """People related to a person, best first, each with the reason: a prize both shared and a
    doctoral supervision weigh most, then a shared current organisation, works both contributed
    to, an organisation where their roles overlap in time, any other shared organisation, shared
    topics and events both took part in. Equal scores go to the one sharing more links, then by
    name. Weights: [kgprofiles.related_weights] in kgprofiles.toml."""
    from kgprofiles.render import json as json_view
    from kgprofiles.render import text as text_view

    if everyone == (person is not None):
        raise InputError(
            "give a PERSON, or --all for everyone", "kgprofiles related horace-he; kgprofiles related --all"
        )
    if out is not None:
        if not everyone:
            raise InputError("--out goes with --all", "kgprofiles related --all --out related.jsonl")
        out = checked_output(store_settings(ctx, store, endpoint, server_kind), out, "--out")
    with _views(ctx, store, endpoint, server_kind) as views:
        if everyone:
            _related_for_everyone(views, limit or RELATED_ON_PROFILE, out, quiet)
            return
        people = views.related(views.resolve_person(person), limit)  # type: ignore[arg-type]
        if output == "json":
            typer.echo(json_view.related(people), nl=False)
        elif output == "text":
            typer.echo(text_view.related(people, explain), nl=False)
        else:
            raise InputError(f"unknown format {output!r}", "choose text or json")


def _related_for_everyone(views: Views, limit: int, out: Path | None, quiet: bool) -> None:
    """One JSON line per person with their related people, from the in-memory index."""
    from kgprofiles.progress import report_progress
    from kgprofiles.render import json as json_view

    with report_progress("related", quiet) as progress:
        from kgprofiles.related_index import QUERIES

        progress.stage("read the links", len(QUERIES))
        index = views.related_index(progress.advance)
        people = index.people
        progress.stage("rank", len(people))
        with ExitStack() as stack:
            # (into a file beside --output, put in its place at the end: a previous one kept till then)
            sink: TextIO = sys.stdout
            if out:  # (resolved: a link to the file stays a link)
                part = stack.enter_context(written_whole(out))
                sink = stack.enter_context(part.open("w", encoding="utf-8"))
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


def org(
    ctx: typer.Context,
    organization: Annotated[str, typer.Argument(help="A slug (pytorch), CURIE or IRI.")],
    output: Annotated[str, typer.Option("--format", "-f", help="text or json.")] = "text",
    store: StoreOption = None,
    endpoint: EndpointOption = None,
    server_kind: ServerKindOption = None,
) -> None:
    """An organisation and its people: current roles first, then former, then not confirmed."""
    with _views(ctx, store, endpoint, server_kind) as views:
        typer.echo(_render("organization", output, views.organization(organization)), nl=False)


def topic(
    ctx: typer.Context,
    name: Annotated[str, typer.Argument(help="A slug (inference-and-serving), CURIE or IRI.")],
    output: Annotated[str, typer.Option("--format", "-f", help="text or json.")] = "text",
    store: StoreOption = None,
    endpoint: EndpointOption = None,
    server_kind: ServerKindOption = None,
) -> None:
    """A topic and the people who work on it, with their current organisations."""
    with _views(ctx, store, endpoint, server_kind) as views:
        typer.echo(_render("topic", output, views.topic(name)), nl=False)


def people(
    ctx: typer.Context,
    name: Annotated[
        str | None,
        typer.Option(
            "--name", help="A name or part of it: any case or accents, middle names and initials may be left out."
        ),
    ] = None,
    topic: Annotated[str | None, typer.Option("--topic", help="Only people on this topic.")] = None,
    organization: Annotated[str | None, typer.Option("--org", help="Only people with a role here.")] = None,
    output: Annotated[str, typer.Option("--format", "-f", help="text or json.")] = "text",
    store: StoreOption = None,
    endpoint: EndpointOption = None,
    server_kind: ServerKindOption = None,
) -> None:
    """List the people of the graph, filtered by name, topic or organisation."""
    with _views(ctx, store, endpoint, server_kind) as views:
        typer.echo(_render("people", output, views.people(name, topic, organization)), nl=False)


def search(
    ctx: typer.Context,
    text: Annotated[
        str, typer.Argument(help="Words to look for; each also matches as a prefix (flex → FlexAttention).")
    ],
    limit: Annotated[int, typer.Option("--limit", min=1, max=1000, help="Show at most this many results.")] = 20,
    output: Annotated[str, typer.Option("--format", "-f", help="text or json.")] = "text",
    store: StoreOption = None,
    endpoint: EndpointOption = None,
    server_kind: ServerKindOption = None,
) -> None:
    """Full-text search over names, other names, headlines, narrative, works, organisations and topics."""
    from kgprofiles.search import SearchIndex

    settings = store_settings(ctx, store, endpoint, server_kind)
    target = open_reader(settings)
    try:
        index = SearchIndex.over(settings, target)
        try:
            results = index.search(text, limit)
        finally:
            index.close()
    finally:
        target.close()
    typer.echo(_render("search", output, results), nl=False)
