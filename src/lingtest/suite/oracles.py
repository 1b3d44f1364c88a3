"""Oracles: decide whether two predictions of related inputs are consistent (a registry).

An oracle has ``check(source_prediction, followup_prediction, alignment) -> OracleResult``. A technique
registers its own (CREST's BLANC oracle, :class:`lingtest.crest.oracle.BlancOracle`, registers when
``lingtest.crest`` is imported); outside a technique's process, the ``lingtest.oracles`` entry points
(``pyproject.toml``) find it without this module naming the technique. Thresholds are run options
(``crest.oracle``), not part of a test case, so changing them never regenerates a suite.
"""

from __future__ import annotations

from lingtest.registry import Registry

ORACLES: Registry = Registry("oracle", entry_points="lingtest.oracles")
