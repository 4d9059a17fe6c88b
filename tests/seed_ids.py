"""The seed project's IRIs: this repository's kgprofiles.toml keeps kgprofiles' default base IRI."""

from kgprofiles.vocab import DEFAULT_BASE_IRI, IdSpace

SEED = IdSpace(DEFAULT_BASE_IRI)
PERSON, ORGANIZATION, TOPIC, WORK = SEED.person, SEED.organization, SEED.topic, SEED.work
SOURCE, CLAIM, PROFILE = SEED.source, SEED.claim, SEED.profile
