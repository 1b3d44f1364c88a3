"""A :class:`~lingtest.harness.loading.Suite` from test cases held in memory (made by a generator API such
as :func:`lingtest.s2lct.api.suite`) rather than read from a file.

:func:`suite_from_cases` derives the suite's task, groups and labels exactly as
:func:`~lingtest.harness.loading.load_suite` does for a file (:mod:`lingtest.harness.derive`), with
``header`` in the role of the file's header line; its ``sha256`` is that of the JSONL file
``write_jsonl(path, cases, kind="testcase", meta=header)`` would write, so that writing the suite and
loading it back gives the same identity. ``info.path`` is empty (no file)."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from typing import Any

from lingtest.data.model import SCHEMA_VERSION, TestCase
from lingtest.errors import InputError
from lingtest.harness.loading import Suite

__all__ = ["jsonl_sha256", "suite_from_cases"]

#: the record kind of a suite file (its header's ``kind``)
KIND = "testcase"


def jsonl_sha256(cases: Sequence[TestCase], header: Mapping[str, Any]) -> str:
    """The sha256 of the suite file :func:`lingtest.data.io.write_jsonl` writes for ``cases`` with ``header``
    (``kind: testcase``): the same header line and record lines, byte for byte."""
    digest = hashlib.sha256()
    head = {"__schema__": SCHEMA_VERSION, "kind": KIND, **header}
    digest.update((json.dumps(head, ensure_ascii=False, sort_keys=True) + "\n").encode("utf-8"))
    for c in cases:
        line = json.dumps(c.to_dict(), ensure_ascii=False, sort_keys=True, separators=(",", ":"))
        digest.update((line + "\n").encode("utf-8"))
    return digest.hexdigest()


def _checked(cases: Sequence[TestCase], name: str, header: Mapping[str, Any] | None) -> dict[str, Any]:
    """``header`` as a plain dict, after checking the name, the cases and the header's keys."""
    if not isinstance(name, str) or not name.strip():
        raise InputError(f"a suite needs a name, got {name!r}", field="name")
    if not cases:
        raise InputError("the suite has no test cases", field="cases")
    for i, c in enumerate(cases):
        if not isinstance(c, TestCase):
            raise InputError(f"expected a TestCase, got {type(c).__name__}", field=f"cases[{i}]")
    head = dict(header or {})
    if "__schema__" in head:
        raise InputError("the schema version is not the caller's to set", field="header.__schema__")
    if head.get("kind", KIND) != KIND:
        raise InputError(f"a suite's records are of kind {KIND!r}, got {head['kind']!r}", field="header.kind")
    head.pop("kind", None)
    return head


def suite_from_cases(cases: Sequence[TestCase], *, name: str, header: Mapping[str, Any] | None = None) -> Suite:
    """``cases`` as a :class:`~lingtest.harness.loading.Suite` named ``name``; ``header``: what a suite file's
    header line would hold besides its schema and kind (``technique``, ``task``, ``labels``, ...; see
    :mod:`lingtest.harness.derive` for what each changes). The cases are taken in order, not copied."""
    cases = list(cases)
    head = _checked(cases, name, header)
    from lingtest.harness.loading import suite_of_cases

    return suite_of_cases(cases, head, {"name": name, "sha256": jsonl_sha256(cases, head), "path": ""}, "")
