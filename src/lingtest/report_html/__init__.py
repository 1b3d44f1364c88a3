"""``lingtest report``: one self-contained HTML file (no server, no notebook, no network) per run or
comparison (issue 14).

:mod:`~lingtest.report_html.gather` collects, for every technique with outputs in the working tree,
its tables (``metrics/<technique>/<corpus>/*.md``), plots (``*.png``, embedded as data URIs), the
per-system metrics and the failing test cases (result records joined with the suite);
:mod:`~lingtest.report_html.diff` marks what a follow-up changed; :mod:`~lingtest.report_html.render`
writes the page (inline CSS and a few lines of inline JavaScript for the filters).
"""
