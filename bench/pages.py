"""The person page with its summary box, drawn timeline and network picture, on a store that
`kgprofiles build` made, in process: the view (stable views, related index warm, as `serve` runs
it), the box's facts, the HTML with both pictures, each picture alone, and the whole as the page
handler (`web.pages.resource_page`) does it; and a Why? page (`web.pages.why`) for the last related
person each profile shows. Medians and p95 of one run.

Not over HTTP: the synthetic people have example.org IRIs (bench/generate.py), which the site's
/id/ routes do not serve.

    .venv/bin/python bench/pages.py --store /tmp/s10k [--people 200]
"""

from __future__ import annotations

import argparse
import random
import time
from pathlib import Path

import pyoxigraph as ox

from kgprofiles.evidence import why
from kgprofiles.infobox import person_facts
from kgprofiles.profiles import Views
from kgprofiles.render.html import local_link, page, person_jsonld, person_network
from kgprofiles.render.timeline_svg import timeline_svg
from kgprofiles.store.oxigraph import OxigraphStore
from views import summary as views_summary  # bench/views.py: the same timing and summary line
from views import timed

QUERIES = Path(__file__).resolve().parents[1] / "queries"


def summary(name: str, ms: list[float]) -> str:
    return views_summary(name, ms, width=40)


def in_process(store: OxigraphStore, sample: list[ox.NamedNode]) -> None:
    views = Views(store, QUERIES, stable=True)
    started = time.perf_counter()
    views.related_index()
    print(f"related index: read in {time.perf_counter() - started:.1f} s")
    link = local_link("")
    parts: dict[str, list[float]] = {k: [] for k in ("profile", "box facts", "timeline SVG", "network SVG", "HTML")}
    whole: list[float] = []
    for p in sample[:20]:  # warm up
        profile = views.profile(p)
        page("profile.html", p=profile, jsonld=person_jsonld(profile), facts=person_facts(views, profile))
    for p in sample:
        t0 = time.perf_counter()
        profile = views.profile(p)
        t1 = time.perf_counter()
        facts = person_facts(views, profile)
        t2 = time.perf_counter()
        page("profile.html", p=profile, jsonld=person_jsonld(profile), facts=facts)
        t3 = time.perf_counter()
        parts["profile"].append((t1 - t0) * 1000)
        parts["box facts"].append((t2 - t1) * 1000)
        parts["HTML"].append((t3 - t2) * 1000)
        whole.append((t3 - t0) * 1000)
        parts["timeline SVG"].append(timed(lambda p=profile: timeline_svg(p, link)))
        parts["network SVG"].append(timed(lambda p=profile, f=facts: person_network(p, link, f)))
    for name, ms in parts.items():
        print(summary(name, ms))
    print(summary("person page, whole (profile+box+HTML)", whole))
    why_ms = []
    for p in sample:
        shown = views.related(p, 10)
        if shown:
            other = ox.NamedNode(shown[-1].iri)  # the tenth (or last) a profile shows
            why_ms.append(timed(lambda p=p, o=other: page("why.html", w=why(views, p, o))))
    print(summary("Why? page (evidence + HTML)", why_ms))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--store", required=True)
    parser.add_argument("--people", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    store = OxigraphStore(args.store, read_only=True)
    people = [r["person"] for r in store.query("SELECT ?person WHERE { ?person a kgp:Person }").rows]
    rng = random.Random(args.seed)
    sample = rng.sample(people, min(args.people, len(people)))
    print(f"{len(people)} people")
    in_process(store, sample)  # type: ignore[arg-type]
    store.close()


if __name__ == "__main__":
    main()
