"""The query editor at GET /sparql (text/html): YASGUI from the npm package ``@triply/yasgui``,
served by this app from ``node_modules`` (no CDN), with the project's prefixes and every named
query of ``queries/`` as a ready-to-run example (its parameters bound to sample values)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pyoxigraph as ox
from starlette.requests import Request
from starlette.responses import HTMLResponse

from kgprofiles.queries import NamedQuery, load_queries
from kgprofiles.render.html import page as render_page
from kgprofiles.sparql_lexer import scan
from kgprofiles.store.base import Term
from kgprofiles.store.binding import bind_values, declared_prefixes
from kgprofiles.vocab import PREFIXES, XSD_NS, ids
from kgprofiles.web.site import Site, site_of

#: Where ``npm ci`` puts YASGUI's ready-built files, relative to the project root.
YASGUI_BUILD = Path("node_modules/@triply/yasgui/build")
#: The example the editor opens with.
FIRST_EXAMPLE = "people"
#: The only inline styles the editor makes: YASR's table column resizer (@triply/yasgui 4.2.28,
#: ``createStyle`` in yasgui.min.js) adds these two ``<style>`` elements, the first when it draws
#: a results table, the second while a column is dragged. The page's Content-Security-Policy
#: allows exactly these texts by their hashes (``kgprofiles.web.headers``).
INLINE_STYLES = (
    " .grip-resizable{table-layout:fixed;} .grip-resizable > tbody > tr > td, .grip-resizable > tbody > tr > th"
    "{overflow:hidden} .grip-padding > tbody > tr > td, .grip-padding > tbody > tr > th{padding-left:0!important;"
    " padding-right:0!important;} .grip-container{ height:0px; position:relative;} .grip-handle{margin-left:-5px;"
    " position:absolute; z-index:5; } .grip-handle .grip-resizable{position:absolute;background-color:red;"
    "filter:alpha(opacity=1);opacity:0;width:10px;height:100%;cursor: col-resize;top:0px} .grip-lastgrip"
    "{position:absolute; width:1px; } .grip-drag{ border-left:1px dotted black;\t} .grip-flex{width:auto!important;}"
    " .grip-handle.grip-disabledgrip .grip-resizable{cursor:default; display:none;}",
    "*{cursor:col-resize!important}",
)
#: The only inline ``style`` attribute it writes: YASQE underlines each expected token in the
#: tooltip of a line with a syntax error (``<strong style='text-decoration:underline'>``).
INLINE_STYLE_ATTRIBUTES = ("text-decoration:underline",)
_DECIMAL = ox.NamedNode(XSD_NS + "decimal")


def usable_editor(build: Path) -> Path | None:
    """``build`` if it holds YASGUI's files, else None."""
    return build if (build / "yasgui.min.js").is_file() and (build / "yasgui.min.css").is_file() else None


def find_editor(root: Path) -> Path | None:
    """YASGUI's files: under the project ``root`` if ``npm ci`` installed them there, else the copy
    an installed wheel carries (``kgprofiles/resources/yasgui``), else this checkout's."""
    package = Path(__file__).resolve().parents[1]
    for candidate in (root / YASGUI_BUILD, package / "resources" / "yasgui", package.parents[1] / YASGUI_BUILD):
        found = usable_editor(candidate)
        if found is not None:
            return found
    return None


@dataclass(frozen=True)
class Example:
    name: str
    summary: str
    query: str


def used_prefixes(text: str) -> list[str]:
    """The project prefixes a query uses without declaring them, in the project's order."""
    used = {t.text.split(":", 1)[0] for t in scan(text) if t.kind == "name"}
    declared = declared_prefixes(text)
    return [name for name in PREFIXES if name in used and name not in declared]


def with_prologue(text: str) -> str:
    """The query with PREFIX lines for the project prefixes it uses, after its comment header, so
    that the editor's syntax check knows them (the endpoint predeclares them anyway)."""
    lines = text.splitlines(keepends=True)
    header = 0
    while header < len(lines) and lines[header].startswith("#"):
        header += 1
    prologue = "".join(f"PREFIX {name}: <{PREFIXES[name]}>\n" for name in used_prefixes(text))
    return "".join(lines[:header]) + prologue + "".join(lines[header:])


def sample_values(site: Site) -> dict[str, Term]:
    """A sample value for each kind of parameter (queries/sample-terms.rq)."""
    found: dict[str, Term] = {}
    rows = site.select("sample-terms").rows
    row = rows[0] if rows else {}
    for kind in ("person", "organization", "topic"):
        if kind in row:
            found[kind] = row[kind]
    if "personName" in row:
        found["string"] = ox.Literal(row["personName"].value.split()[-1])
    return found


def example(query: NamedQuery, samples: dict[str, Term]) -> Example:
    """A named query with its required parameters bound to samples by a VALUES block (left unbound
    when some required parameter has no sample: the header still says what it is)."""
    required = [p for p in query.params if not p.optional]
    bound = {p.name: samples.get(p.name) or samples.get(p.type) for p in required}
    text = query.text
    if required and all(bound.values()):
        text = bind_values(text, bound)  # type: ignore[arg-type]
    return Example(query.name, query.summary, with_prologue(text))


def examples(site: Site) -> tuple[Example, ...]:
    def make() -> tuple[Example, ...]:
        samples = sample_values(site)
        queries = sorted(
            load_queries(site.settings.queries_dir).values(), key=lambda q: (q.name != FIRST_EXAMPLE, q.name)
        )
        return tuple(example(q, samples) for q in queries)

    return site.cached("examples", make)


def page(request: Request) -> HTMLResponse:
    site = site_of(request)
    endpoint = str(request.url.replace(query="", fragment="")).rstrip("/")
    found = examples(site)
    config = {
        "endpoint": endpoint,
        "prefixes": PREFIXES,
        "prefixesUrl": str(request.base_url) + "api/prefixes",
        # IRIs of the graph (<base IRI>person/…) link to their pages here (<site>/id/person/…).
        "localIris": {"prefix": ids().base, "base": str(request.base_url).rstrip("/") + "/id/"},
        "examples": [{"name": e.name, "summary": e.summary, "query": e.query} for e in found],
    }
    html = render_page(
        "sparql.html",
        endpoint=endpoint,
        editor=site.editor_dir is not None,
        config=config,
        examples=found,
        limits=site.limits,
        writable=site.write_token is not None,
        allow_fetch=site.allow_fetch,
    )
    return HTMLResponse(html, headers={"Vary": "Accept"})
