"""Shared fixtures of the S2LCT tests. Each helper keeps its fixtures in its own module, registered
here: generation (specs, search pools) in ``generation_fixtures.py``; the classifiers' fixtures live in
``classifier_fixtures.py`` (imported by their tests)."""

from tests.s2lct.generation_fixtures import hs_pool, knowledge, s2lct_conf, specs, sst_pool  # noqa: F401
