"""Compare two runs of a suite case by case, and metrics across git revisions, DVC experiments and
systems under test.

:mod:`~lingtest.compare.paired` reads two run folders of ``lingtest run`` and compares them case by case
(flips, exact McNemar tests with Holm's correction across groups, paired bootstrap intervals; pure but
for reading the folders). :mod:`~lingtest.compare.collect` reads the DVC metrics files of each revision
through DVC's ``Repo.metrics.show`` (one repository open for every revision, experiment names resolve
like revisions); :mod:`~lingtest.compare.table` is pure: rows keyed by technique, corpus, system and
metric, columns by revision (and system), what a screen shows (headline metrics, no timing), whether
systems set side by side were evaluated on the same thing, deltas, output formats and the regression
gate; :mod:`~lingtest.compare.plots` draws one figure per technique with one panel per metric family.
"""
