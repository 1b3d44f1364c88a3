"""Compare metrics across git revisions, DVC experiments and systems under test (issue 14).

:mod:`~lingtest.compare.collect` reads the DVC metrics files of each revision through DVC's
``Repo.metrics.show`` (one repository open for every revision, experiment names resolve like
revisions); :mod:`~lingtest.compare.table` is pure: rows keyed by technique, corpus, system and
metric, columns by revision (and system), deltas, output formats and the regression gate;
:mod:`~lingtest.compare.plots` draws one figure per technique.
"""
