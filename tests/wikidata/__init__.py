"""Test support for the Wikidata commands: the Wikidata-shaped fixture (built from real
``wbgetentities`` JSON plus a few clearly synthetic items), a local Oxigraph server loaded with it,
and a fault server on loopback. Nothing here ever talks to the public Wikidata endpoint."""
