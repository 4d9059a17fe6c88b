"""Wikidata: check links, suggest links, compare claims, import a person.

``transport`` sends one HTTP request under a deadline (no redirect to another host, capped size);
``client`` speaks to a Wikidata SPARQL endpoint (politely, one request at a time, with retries and
an on-disk cache); ``answers`` reads its JSON results; ``wikidata`` runs the
``queries/wikidata-*.rq`` files against it and reads their answers into plain records;
``wikidata_settings``, ``wikidata_errors`` and ``wikidata_dates`` are its settings, errors and
dates. ``local`` reads our own data. The commands are ``check``, ``suggest``, ``diff`` and
``importer``; ``kgprofiles.cli.link`` wires them to the command line. Nothing in build or serve
imports this package: they never depend on Wikidata.
"""
