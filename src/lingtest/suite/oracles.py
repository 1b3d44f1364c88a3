"""Oracles: decide whether two predictions of related inputs are consistent (a registry).

An oracle has ``check(source_prediction, followup_prediction, alignment) -> OracleResult``; CREST's
BLANC oracle (:class:`lingtest.crest.oracle.BlancOracle`) is the first. Thresholds are run options
(``crest.oracle``), not part of a test case, so changing them never regenerates a suite.
"""

from __future__ import annotations

from lingtest.registry import Registry

ORACLES: Registry = Registry("oracle")
ORACLES.register_lazy("blanc", "lingtest.crest.oracle:BlancOracle")
