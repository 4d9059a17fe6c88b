"""kgprofiles: a sourced knowledge graph of people."""

__version__ = "0.1.0"
