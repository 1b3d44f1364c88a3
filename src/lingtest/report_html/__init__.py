"""``lingtest report``: one self-contained HTML file (no server, no notebook, no network) of the working
tree's pipeline results or of folders written by ``lingtest run``.

:mod:`~lingtest.report_html.gather` collects, for every technique with outputs in the working tree, its
tables (``metrics/<technique>/<corpus>/*.md``), plots (``*.png``, embedded as data URIs), the per-system
metrics, the counts of the per-case results and the cases (result records joined with the suite);
:mod:`~lingtest.report_html.runs` does the same for run folders and compares two runs of one suite;
:mod:`~lingtest.report_html.cases` is one case as the page shows it; :mod:`~lingtest.report_html.views`
renders a case per task (entities, clusters, labels, candidates); :mod:`~lingtest.report_html.diff` marks
what a follow-up changed; :mod:`~lingtest.report_html.render` writes the page (inline CSS and a few lines
of inline JavaScript for the filters).
"""
