"""``kgprofiles init`` (start a project) and ``kgprofiles new …`` (a person, organisation, topic or
source file from a template)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from kgprofiles.cli.options import project_settings

new_app = typer.Typer(
    name="new",
    help="Write a new data file from a template: a person, organisation, topic or source.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


def init(
    directory: Annotated[Path, typer.Argument(help="Where to start the project (default: here).")] = Path(),
    name: Annotated[
        str | None, typer.Option("--name", help="The project's title (default: the directory's name).")
    ] = None,
    base_iri: Annotated[
        str | None,
        typer.Option(
            "--base-iri",
            help="Where your IRIs live: <base>person/<slug>, ... (default: https://example.org/<directory>/, "
            "a placeholder to replace before you publish).",
        ),
    ] = None,
    yes: Annotated[bool, typer.Option("--yes", "-y", help="Ask nothing; take the defaults.")] = False,
) -> None:
    """Start a project: kgprofiles.toml (title, base IRI, store), data/people|organizations|topics|
    sources/, a .gitignore for the store, and one clearly marked example person that validates. On a
    terminal it asks for the title and the base IRI; on a pipe (or with --yes) it asks nothing."""
    from kgprofiles.drafts import init_project, placeholder_base_iri

    target = (Path.cwd() / directory).resolve()
    asking = sys.stdin.isatty() and not yes
    title = name
    if title is None:
        default = target.name or "kgprofiles"
        title = typer.prompt("Title of the project", default=default) if asking else default
    base = base_iri
    if base is None:
        default_base = placeholder_base_iri(target)
        question = "Base IRI of your people, works and sources"
        base = typer.prompt(question, default=default_base) if asking else default_base
        if base == default_base:
            typer.echo(f"base IRI: {base} (a placeholder: set base_iri in kgprofiles.toml before you publish)")
    for path in init_project(target, title=title, base_iri=base):
        typer.echo(f"wrote {path}")
    typer.echo(f"next: cd {target} && kgprofiles validate && kgprofiles build && kgprofiles serve")


SlugOption = Annotated[str | None, typer.Option("--slug", help="The IRI's last part (default: from the name).")]
SourceOption = Annotated[str | None, typer.Option("--source", help="The address of the page the facts come from.")]
SourceTitleOption = Annotated[str | None, typer.Option("--source-title", help="That page's title.")]


def _write(ctx: typer.Context, kind: str, name: str, slug: str | None, source: str | None, title: str | None) -> None:
    from kgprofiles.drafts import new_entity

    draft = new_entity(project_settings(ctx), kind, name, slug=slug, source_url=source, source_title=title)
    draft.write()
    typer.echo(f"wrote {draft.path} ({draft.iri})")


@new_app.command("person")
def person(
    ctx: typer.Context,
    name: Annotated[str, typer.Argument(help='The person\'s name, e.g. "Ada Lovelace".')],
    source: SourceOption = None,
    source_title: SourceTitleOption = None,
    slug: SlugOption = None,
) -> None:
    """A person: their name and the source their facts come from (required: every fact is sourced)."""
    _write(ctx, "person", name, slug, source, source_title)


@new_app.command("organization")
def organization(
    ctx: typer.Context,
    name: Annotated[str, typer.Argument(help="The organisation's name.")],
    source: SourceOption = None,
    source_title: SourceTitleOption = None,
    slug: SlugOption = None,
) -> None:
    """An organisation (people's roles point at it)."""
    _write(ctx, "organization", name, slug, source, source_title)


@new_app.command("topic")
def topic(
    ctx: typer.Context,
    name: Annotated[str, typer.Argument(help="The topic's name.")],
    slug: SlugOption = None,
) -> None:
    """A topic people work on."""
    _write(ctx, "topic", name, slug, None, None)


@new_app.command("source")
def source(
    ctx: typer.Context,
    url: Annotated[str, typer.Argument(help="The page's http(s) address.")],
    title: Annotated[str | None, typer.Option("--title", help="The page's title (default: its address).")] = None,
    slug: Annotated[
        str | None, typer.Option("--slug", help="The IRI's last part (default: from the title, else the address).")
    ] = None,
) -> None:
    """A source: a page that claims cite with kgp:source."""
    from kgprofiles.drafts import new_source

    draft = new_source(project_settings(ctx), url, title=title, slug=slug)
    draft.write()
    typer.echo(f"wrote {draft.path} ({draft.iri})")
