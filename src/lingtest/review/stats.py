"""The review rates of a suite named as a user names it (a loaded suite, anything
:func:`lingtest.load_suite` takes, a reviews folder or its labels file): :func:`review_rates`. The
arithmetic is :mod:`lingtest.review.rates` (which needs no suite loaded, so that the release tools can
use it without the harness)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from lingtest.errors import InputError
from lingtest.review.labels import KIND, LABELS_FILE, SuiteKey, labels_path, read_labels
from lingtest.review.rates import (  # noqa: F401  (re-exported: the review's public names)
    CONFIDENCE,
    MIN_GROUP,
    mean_interval,
    proportion,
    rates,
    reviewed_folders,
    summarise,
    wilson_interval,
)
from lingtest.review.units import check_unit


def _labels_file(source: Any, root: Path | None, unit: str = "case") -> tuple[Path, SuiteKey | None]:
    """The labels file of ``source`` (a suite, anything :func:`lingtest.load_suite` takes, a reviews
    folder or a labels file; a suite's review by ``unit``) and the suite's key when a suite was given."""
    if hasattr(source, "info"):
        key = SuiteKey.from_info(source.info, unit)
        return labels_path(key, root), key
    path = Path(os.fspath(source)).expanduser()
    if path.is_dir() and not (path / "provenance.json").is_file() and (
            (path / LABELS_FILE).is_file() or path.parent.name == "reviews"):
        return path / LABELS_FILE, None
    if path.is_file() and path.name == LABELS_FILE:
        return path, None
    from lingtest.harness.loading import load_suite

    key = SuiteKey.from_info(load_suite(source).info, unit)
    return labels_path(key, root), key


def review_rates(suite_or_folder: Any, *, root: Path | None = None, min_group: int = MIN_GROUP,
                 unit: str = "case") -> dict[str, Any]:
    """The review rates of a suite (a :class:`~lingtest.harness.loading.Suite`, anything
    :func:`lingtest.load_suite` takes, a ``reviews/<suite>@<version>`` folder or its ``labels.jsonl``):
    ``{"suite", "version", "sha256", "technique", "task", "capabilities", "labels", "sample", "reviewers",
    "overall", "groups"}``; ``overall`` and each group: ``{"cases", "judgements", "well_formed",
    "label_correct", "both", "relevance"}``, a rate as ``{"k", "n", "rate", "low", "high"}`` and relevance as
    ``{"n", "mean", "low", "high"}`` (``None``: nothing judged); ``labels`` is the labels file, relative
    to the project root when under it. A suite nobody reviewed yet has no ``labels`` and zero
    judgements. ``root``: the project root the ``reviews/`` folder is under (default: the project's).
    ``unit``: of a suite, the review of its cases (``case``) or of the units a technique registers
    (:mod:`lingtest.review.units`; S2LCT's expanded sentences: ``expansion``); a folder or labels file is the
    review it holds (``"unit"`` in the result)."""
    check_unit(unit)
    path, key = _labels_file(suite_or_folder, root, unit)
    if not path.is_file():
        if key is None:
            raise InputError("no review labels here", path=path)
        return summarise({**key.header(), "kind": KIND}, [], min_group=min_group)
    header, judgements = read_labels(path)
    if key is not None and header.get("sha256") != key.sha256:
        raise InputError(f"these labels are of another suite (sha256 {str(header.get('sha256'))[:16]}...)",
                         path=path, line=1, field="sha256")
    from lingtest.paths import project_root

    base = (root or project_root()).resolve()
    path = path.resolve()
    return summarise(header, judgements, path=path.relative_to(base) if path.is_relative_to(base) else path,
                     min_group=min_group)


