"""Frozen releases of generated suites.

``lingtest release SUITE --version X.Y.Z`` freezes a suite into ``releases/<suite>/<version>/``:
Parquet (typed flat columns, nested payloads as JSON columns) and JSONL, a dataset card
``README.md`` with the Hugging Face YAML header and a provenance block, ``provenance.json`` and
``checksums.sha256``. A release is immutable. ``lingtest release verify DIR`` checks it.

Modules: :mod:`~lingtest.release.suites` (which file a suite name means), :mod:`~lingtest.release.records`
(test case -> flat row), :mod:`~lingtest.release.provenance`, :mod:`~lingtest.release.card`,
:mod:`~lingtest.release.freeze`, :mod:`~lingtest.release.verify`, :mod:`~lingtest.release.publish`
(DVC tracking, git tag, Hugging Face Hub).
"""
