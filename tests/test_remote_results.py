"""What the store reads from a server is given one meaning (no server needed): the lenient but
correct SPARQL JSON results reader, booleans in canonical form, the paging of a capped SELECT,
the server kinds' endpoints, and credentials that never show."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import click
import pyoxigraph as ox
import pytest
import typer.main

from kgprofiles.config import load_settings
from kgprofiles.errors import InputError
from kgprofiles.store.base import SelectResult
from kgprofiles.store.credentials import Credentials, credentials_from
from kgprofiles.store.paging import PagingError, count_query, is_distinct, paged_query
from kgprofiles.store.remote import RemoteStore
from kgprofiles.store.results import boolean_variables, normalise_booleans, read_json_results
from kgprofiles.store.server_kinds import server_kind

XSD = "http://www.w3.org/2001/XMLSchema#"
TRUE = ox.Literal("true", datatype=ox.NamedNode(XSD + "boolean"))


def test_a_key_after_bindings_is_read() -> None:
    """Comunica sends keys pyoxigraph's parser refuses: one after ``bindings``, and ``link``."""
    body = json.dumps(
        {
            "head": {"vars": ["s", "n"], "link": []},
            "results": {
                "bindings": [
                    {
                        "s": {"type": "uri", "value": "http://example.org/a"},
                        "n": {"type": "literal", "value": "1", "datatype": XSD + "integer"},
                    }
                ],
                "distinct": False,
            },
            "metadata": {"count": 1},
        }
    ).encode()
    with pytest.raises(SyntaxError):
        list(ox.parse_query_results(body, format=ox.QueryResultsFormat.JSON))  # why the reader exists
    result = read_json_results(body)
    assert isinstance(result, SelectResult)
    assert result.variables == ("s", "n")
    assert result.rows == (
        {"s": ox.NamedNode("http://example.org/a"), "n": ox.Literal("1", datatype=ox.NamedNode(XSD + "integer"))},
    )


def test_virtuoso_terms_are_read_and_booleans_are_canonical() -> None:
    body = (
        b'{ "head": { "link": [], "vars": ["t", "l", "b"] }, "results": { "distinct": false, "bindings": [ '
        b'{ "t": { "type": "typed-literal", "datatype": "http://www.w3.org/2001/XMLSchema#boolean", "value": "1" },'
        b'"l": { "type": "literal", "xml:lang": "en", "value": "Ada" },'
        b'"b": { "type": "bnode", "value": "b1" } } ] } }'
    )
    result = read_json_results(body)
    assert isinstance(result, SelectResult)
    assert result.rows[0] == {"t": TRUE, "l": ox.Literal("Ada", language="en"), "b": ox.BlankNode("b1")}


@pytest.mark.parametrize(
    ("body", "problem"),
    [
        (b"[]", "not a JSON object"),
        (b'{"head": {"vars": ["x"]}, "results": {"bindings": {}}}', "not a list"),
        (
            b'{"head": {"vars": ["x"]}, "results": {"bindings": [{"x": {"type": "uri", "value": "not an iri"}}]}}',
            "not valid RDF",
        ),
        (b'{"head": {}, "boolean": "yes"}', "not true or false"),
        (
            b'{"head": {"vars": ["x"]}, "results": {"bindings": [{"x": {"type": "mystery", "value": "x"}}]}}',
            "unknown term type",
        ),
    ],
)
def test_what_is_not_sparql_json_is_refused(body: bytes, problem: str) -> None:
    with pytest.raises(ValueError, match=problem):
        read_json_results(body)


def test_ask_is_read() -> None:
    assert read_json_results(b'{ "head": { "link": [] }, "boolean": true}') is True


def test_boolean_variables_of_the_related_query() -> None:
    text = (Path(__file__).resolve().parents[1] / "queries" / "related-orgs.rq").read_text()
    assert boolean_variables(text) == frozenset({"bothCurrent"})
    query = "SELECT (?a + 1 AS ?sum) (BOUND(?b) AS ?has) (true AS ?t) (IF(?c, 1, 0) AS ?n) (?x IN (1, 2) AS ?in) {}"
    assert boolean_variables(query) == frozenset({"has", "t", "in"})


def test_integers_in_boolean_variables_become_booleans_and_nothing_else_does() -> None:
    one = ox.Literal("1", datatype=ox.NamedNode(XSD + "integer"))
    result = normalise_booleans(SelectResult(("b", "n"), ({"b": one, "n": one},)), frozenset({"b"}))
    assert result.rows == ({"b": TRUE, "n": one},)


def test_a_select_is_paged_in_a_stable_order() -> None:
    sent = "PREFIX x: <http://e/>\nSELECT ?a ?b WHERE { ?a x:p ?b } ORDER BY DESC(?b)"
    assert paged_query(sent, ("a", "b"), 500, 1000) == (
        "PREFIX x: <http://e/>\nSELECT ?a ?b WHERE { ?a x:p ?b } ORDER BY DESC(?b) ?a\nLIMIT 500 OFFSET 1000\n"
    )
    plain = "SELECT ?g WHERE { GRAPH ?g { ?s ?p ?o } } VALUES ?g { <http://e/g> }"
    assert paged_query(plain, ("g",), 10, 0) == (
        "SELECT ?g WHERE { GRAPH ?g { ?s ?p ?o } }\nORDER BY ?g\nLIMIT 10 OFFSET 0\nVALUES ?g { <http://e/g> }"
    )
    assert paged_query(plain, ("g",), 10, 20, ordered=False) == (
        "SELECT ?g WHERE { GRAPH ?g { ?s ?p ?o } }\nLIMIT 10 OFFSET 20\nVALUES ?g { <http://e/g> }"
    )
    assert count_query("PREFIX x: <http://e/>\nSELECT ?a WHERE { ?a x:p ?b }") == (
        "PREFIX x: <http://e/>\nSELECT (COUNT(*) AS ?kgprofilesRows) WHERE {\nSELECT ?a WHERE { ?a x:p ?b }\n}"
    )
    assert count_query("SELECT REDUCED ?a WHERE { ?a ?p ?b }", distinct=True) == (
        "SELECT (COUNT(*) AS ?kgprofilesRows) WHERE {\nSELECT DISTINCT ?a WHERE { ?a ?p ?b }\n}"
    )
    assert count_query("SELECT ?a { { SELECT DISTINCT ?a { ?a ?p ?b } } }", distinct=True) == (
        "SELECT (COUNT(*) AS ?kgprofilesRows) WHERE {\nSELECT DISTINCT ?a { { SELECT DISTINCT ?a { ?a ?p ?b } } }\n}"
    )
    assert is_distinct("# SELECT ?x\nSELECT  DISTINCT ?a { ?a ?p ?b }")
    assert not is_distinct("SELECT ?a { { SELECT DISTINCT ?a { ?a ?p ?b } } }")
    with pytest.raises(PagingError, match="its own ORDER BY"):
        paged_query(sent, ("a", "b"), 500, 20000, ordered=False)
    with pytest.raises(PagingError, match="its own LIMIT"):
        paged_query("SELECT ?s WHERE { ?s ?p ?o } LIMIT 20000", ("s",), 500, 0)


def test_each_kind_knows_its_endpoints() -> None:
    assert server_kind("virtuoso").endpoints("http://h:8890/sparql") == (
        "http://h:8890/sparql",
        "http://h:8890/sparql-graph-crud",
    )
    assert server_kind("virtuoso").endpoints("http://h:8890/sparql", authenticated=True) == (
        "http://h:8890/sparql-auth",
        "http://h:8890/sparql-graph-crud-auth",
    )
    assert server_kind("oxigraph").endpoints("http://h:7878/query") == ("http://h:7878/update", "http://h:7878/store")
    assert server_kind("fuseki").endpoints("http://h:3030/ds/sparql") == (
        "http://h:3030/ds/update",
        "http://h:3030/ds/data",
    )
    assert server_kind("graphdb").endpoints("http://h:7200/repositories/kg") == (
        "http://h:7200/repositories/kg/statements",
        "http://h:7200/repositories/kg/rdf-graphs/service",
    )
    with pytest.raises(InputError, match="oxigraph, virtuoso, fuseki, graphdb, generic"):
        server_kind("neptune-ish")


def _commands(group: click.Group, path: tuple[str, ...] = ()) -> Iterator[tuple[str, click.Command]]:
    for name, command in sorted(group.commands.items()):
        if isinstance(command, click.Group):
            yield from _commands(command, (*path, name))
        else:
            yield " ".join((*path, name)), command


def test_every_command_that_takes_an_endpoint_takes_its_kind() -> None:
    """The README: `--server-kind` goes with every command that takes `--endpoint` (a kind is
    how a server's answers are read: a Virtuoso's capped CONSTRUCT, its booleans)."""
    from kgprofiles.cli import app

    options = {name: {o for p in c.params for o in p.opts} for name, c in _commands(typer.main.get_command(app))}
    with_endpoint = sorted(name for name, opts in options.items() if "--endpoint" in opts)
    assert len(with_endpoint) >= 14 and "site build" in with_endpoint
    assert [name for name in with_endpoint if "--server-kind" not in options[name]] == []


def test_credentials_never_show(tmp_path: Path) -> None:
    secret = "s3cret-Pa55"
    credentials = credentials_from(environ={"KGPROFILES_SERVER_USER": "kg", "KGPROFILES_SERVER_PASSWORD": secret})
    assert credentials == Credentials("kg", secret, "KGPROFILES_SERVER_USER/KGPROFILES_SERVER_PASSWORD")
    assert secret not in repr(credentials) and secret not in repr(
        RemoteStore("http://h/sparql", credentials=credentials)
    )
    broken = tmp_path / "credentials.toml"
    broken.write_text(f'user = "kg"\npassword = {secret}\n')  # not TOML: the message must not quote it
    with pytest.raises(InputError) as caught:
        credentials_from(broken, environ={})
    assert secret not in str(caught.value) and secret not in (caught.value.hint or "")
    broken.write_bytes(f'user = "kg"\npassword = "{secret}\xe9"\n'.encode("latin-1"))  # not UTF-8: nor quoted
    with pytest.raises(InputError, match="is not UTF-8 text") as caught:
        credentials_from(broken, environ={})
    assert secret not in str(caught.value) and "0xe9" not in str(caught.value)
    with pytest.raises(InputError, match="may not hold credentials") as in_url:
        RemoteStore(f"http://kg:{secret}@h/sparql")
    assert secret not in str(in_url.value)
    with pytest.raises(InputError, match="cannot be read") as unreadable:  # (nor quoted)
        RemoteStore(f"http://kg:{secret}@[::1/sparql")
    assert secret not in str(unreadable.value)


@pytest.mark.parametrize(
    "url", ["javascript:alert(1)", "file:///etc/passwd", "ftp://h/sparql", "http:///sparql", "h/sparql"]
)
def test_an_endpoint_that_is_not_an_http_url_is_refused_at_once(url: str) -> None:
    """Said when the store is opened (``serve --endpoint`` would otherwise start and fail on every
    page), not at the first query."""
    with pytest.raises(InputError, match="not an http:// or https:// endpoint URL"):
        RemoteStore(url)
    with pytest.raises(InputError, match="not an http:// or https:// endpoint URL"):
        RemoteStore("http://h/sparql", update_endpoint=url)


def test_kgprofiles_toml_names_the_kind_and_a_credentials_file_never_a_password(tmp_path: Path) -> None:
    (tmp_path / "kgprofiles.toml").write_text(
        '[kgprofiles]\nendpoint = "http://h/sparql"\n[kgprofiles.server]\nkind = "virtuoso"\n'
        'credentials_file = "secret/credentials.toml"\nmax_rows = 10000\ntriples_per_write = 5000\n'
    )
    settings = load_settings(tmp_path)
    assert (
        settings.server_kind,
        settings.credentials_file,
        settings.server_max_rows,
        settings.server_triples_per_write,
    ) == ("virtuoso", tmp_path / "secret" / "credentials.toml", 10000, 5000)
    (tmp_path / "kgprofiles.toml").write_text('[kgprofiles.server]\nkind = "virtuoso"\ntriples_per_write = 0\n')
    with pytest.raises(InputError, match=r"triples_per_write = 0 is not a whole number of at least 1"):
        load_settings(tmp_path)
    (tmp_path / "kgprofiles.toml").write_text('[kgprofiles.server]\nkind = "virtuoso"\npassword = "x"\n')
    with pytest.raises(InputError, match=r"credentials do not go in kgprofiles\.toml"):
        load_settings(tmp_path)
