"""Stores: the contract (base.py), the embedded default (oxigraph.py), a SPARQL 1.1 server (remote.py)."""
