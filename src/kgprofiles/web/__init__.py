"""The web: the SPARQL 1.1 endpoint, pages for people and everything they link to, content
negotiation on every /id/ IRI, a JSON API and the query editor. ``create_app`` builds the ASGI app;
``kgprofiles serve`` runs it with uvicorn."""

from kgprofiles.web.app import create_app

__all__ = ["create_app"]
