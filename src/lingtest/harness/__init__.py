"""Test your own model on any generated or frozen suite (the user-facing API and ``lingtest run``).

``lingtest.load_suite(source)`` reads a suite file or a release folder into a
:class:`~lingtest.harness.loading.Suite` (its cases and a typed :class:`~lingtest.harness.info.SuiteInfo`:
task, groups, labels, the JSON forms a system reads and writes); ``suite.run(system)`` runs any system on
it through the one runner (:func:`lingtest.suite.run.run_suite`) and returns
:class:`~lingtest.harness.results.Results`. Modules: :mod:`.info` (the suite record), :mod:`.loading`
(suite files, release folders, how task, group and labels are derived), :mod:`.outputs` (what a suite
accepts of a system's outputs: checked before anything is cached), :mod:`.running` (sampling, the system,
the run options), :mod:`.results` (summaries, tables, ``results.jsonl`` and ``summary.json``). Systems
are resolved by :mod:`lingtest.systems.spec`.

(Not under :mod:`lingtest.suite`: the technique stages depend on that folder as a whole, and code no
stage runs does not belong in their dependencies.)
"""
