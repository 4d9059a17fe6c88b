"""``kgprofiles site build``: the whole graph as a static site (``static_site.py``)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from kgprofiles.cli.options import (
    EndpointOption,
    QuietOption,
    ServerKindOption,
    StoreOption,
    open_reader,
    store_settings,
)

site_app = typer.Typer(
    name="site",
    help="Publish the graph as static files any web server can serve.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


@site_app.command("build")
def build(
    ctx: typer.Context,
    output: Annotated[Path, typer.Option("--output", "-o", help="The directory to write the site into.")],
    force: Annotated[
        bool,
        typer.Option("--force", help="Write into a non-empty directory that is not a previous site (its files stay)."),
    ] = False,
    jobs: Annotated[
        int | None,
        typer.Option(
            "--jobs",
            "-j",
            min=1,
            help="Processes rendering pages (default: one per core), and one more writing the whole-graph "
            "downloads meanwhile. Over the embedded store on disk only; a server's store or memory: all in one.",
        ),
    ] = None,
    forms: Annotated[
        str,
        typer.Option(
            "--data-forms",
            metavar="FORMS",
            help="The data files written beside each page and linked from it, separated by commas: ttl, "
            "jsonld, nt, nq, rdf; all or none. Fewer: a smaller site, sooner (at 100,000 people, none "
            "writes a third of the files).",
        ),
    ] = "all",
    quiet: QuietOption = False,
    store: StoreOption = None,
    endpoint: EndpointOption = None,
    server_kind: ServerKindOption = None,
) -> None:
    """Write every page (people, organisations, topics, works, sources), a search that runs in
    the browser and the downloads as files, with the same HTML as `kgprofiles serve` and
    relative links. The same graph gives the same bytes, whatever --jobs; a previous site in the
    --output directory is replaced whole, and only once the new one is complete."""
    from kgprofiles.progress import report_progress
    from kgprofiles.static_site import build_site, data_forms, default_jobs

    chosen = data_forms(forms)  # (an unknown form is refused before the store is opened)
    settings = store_settings(ctx, store, endpoint, server_kind)
    target = open_reader(settings)
    try:
        with report_progress("site", quiet) as progress:
            report = build_site(
                settings,
                target,
                output,
                force=force,
                progress=progress,
                jobs=jobs or default_jobs(),
                data_forms=chosen,
                on_wait=lambda message: typer.echo(message, err=True),
            )
    finally:
        target.close()
    typer.echo(f"site: {report.summary()}")
    for iri in report.missing[:20]:
        typer.echo(f"site: warning: a page links to {iri}, which has nothing to show", err=True)
