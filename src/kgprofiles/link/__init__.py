"""Wikidata: check links, suggest links, compare claims, import a person.

``client`` speaks to a Wikidata SPARQL endpoint (politely, one request at a time, with retries and
an on-disk cache); ``local`` reads our own data files into a store; ``remote`` runs the
``queries/wikidata-*.rq`` files against Wikidata and reads their answers into plain records. The
commands are ``check``, ``suggest``, ``diff`` and ``importer``; ``command`` wires them to the CLI.
Nothing in build or serve imports this package: they never depend on Wikidata.
"""
