"""Predictions files of a fixed suite: the inputs to fill in, and the check of a filled file.

A suite is *fixed* when the inputs a system is asked are the suite's own (every technique's frozen
suite); a suite whose cases are generated per system (from the system's own answers, marked
``system_dependent``) is not, and a predictions file, which answers fixed inputs only, cannot test a
system on it: :func:`check_predictions_cover` refuses one and says what to give instead.

:func:`export_inputs` writes exactly the inputs a fixed suite's cases need (every side each case's
expectation predicts, each distinct input once) as a predictions file whose outputs are ``null``; a
user fills in the outputs of their model (in the task's JSON form, ``SuiteInfo.output_form``) and runs
``lingtest run SUITE --system FILE``.

:func:`check_predictions_cover` checks a predictions file against the inputs a run needs before any
prediction is used. One :class:`UncoveredInputs` error names the first cases and counts of the inputs
the file does not answer: inputs without an entry, entries whose recorded input is not the suite's input
of their key (an input edited after export), and entries whose output is not filled in. Entries that
answer no input of the suite are ignored with a :class:`PredictionsWarning`, not refused: a file of a
whole suite also answers a sample of it, and extra answers change no verdict; when none of the file's
entries answers a needed input the error says so (a file of another suite or version).
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from lingtest.data.model import TestCase
from lingtest.errors import InputError
from lingtest.harness.info import SuiteInfo
from lingtest.systems.tasks import Task, get_task

__all__ = ["Cover", "Needed", "PredictionsWarning", "UncoveredInputs", "check_predictions_cover", "export_inputs",
           "is_fixed", "needed_inputs"]

#: how many cases an error or warning names
SHOWN = 5
#: what to use instead of a predictions file on a suite generated per system
INSTEAD = ("give the system itself: a Python function (a function object or 'package.module:function'), an "
           "HTTP endpoint ('http(s)://...') or a configured system name")


class SuiteLike(Protocol):
    """What the functions here read of a :class:`~lingtest.harness.loading.Suite`."""

    info: SuiteInfo
    cases: list[TestCase]

    def sample(self, limit: int | None = None, seed: int = 0) -> list[TestCase]: ...


class PredictionsWarning(UserWarning):
    """A predictions file holds entries that answer no input of the suite (ignored)."""


class UncoveredInputs(InputError):
    """A predictions file does not answer every input a run needs. ``problems``: what is wrong
    (``missing``, ``mismatched``, ``unfilled``) -> the (case id, side) of each such input's first case,
    in case order."""

    def __init__(self, message: str, *, path: str | Path, problems: dict[str, list[tuple[str, str]]]) -> None:
        super().__init__(message, path=path)
        self.problems = problems


@dataclass
class Needed:
    """A distinct input some cases need, and those cases' (case id, side) pairs in case order."""

    input: Any
    owners: list[tuple[str, str]] = field(default_factory=list)


@dataclass(frozen=True)
class Cover:
    """A predictions file that answers every input a run needs: ``needed`` distinct inputs, ``entries``
    records in the file, ``foreign`` of them answering no input of the suite (ignored)."""

    path: Path
    needed: int
    entries: int
    foreign: int


def is_fixed(info: SuiteInfo) -> bool:
    """Whether a suite's inputs are its own (not generated per system): ``info.system_dependent`` is not
    true (a suite without that field is fixed)."""
    return not bool(getattr(info, "system_dependent", False))


def needed_inputs(cases: Sequence[TestCase], task: Task, *, strict: bool = True) -> dict[str, Needed]:
    """Input key -> the input and the cases that need it, in case order: every side each case's
    expectation predicts. A case whose expectation or payload cannot give its inputs is an
    :class:`InputError` naming it (skipped when not ``strict``)."""
    from lingtest.suite.expectations import parse_expectation

    out: dict[str, Needed] = {}
    for case in cases:
        try:
            exp = parse_expectation(case.expected, where=f"{case.id}.expected")
            inputs = exp.inputs(case, task)
        except (InputError, KeyError, TypeError, ValueError) as exc:
            if not strict:
                continue
            reason = exc.reason if isinstance(exc, InputError) else f"not a {task.name} input ({exc!r})"
            raise InputError(f"test case {case.id}: {reason}", field=getattr(exc, "field", None)) from None
        for side, item in zip(exp.needs, inputs, strict=True):
            out.setdefault(task.key(item), Needed(item)).owners.append((case.id, side))
    return out


def _dependent(info: SuiteInfo, system_dependent: bool | None) -> bool:
    return system_dependent if system_dependent is not None else not is_fixed(info)


def _refuse(info: SuiteInfo, what: str, path: Path | None = None) -> InputError:
    return InputError(f"suite {info.name!r} generates its cases per system (from the system's own answers), so "
                      f"{what}: {INSTEAD}", path=path, field="system")


def export_inputs(suite: SuiteLike, path: str | Path, *, limit: int | None = None, seed: int = 0,
                  system_dependent: bool | None = None) -> int:
    """Write the inputs ``suite``'s cases need (of its seeded sample of ``limit`` cases, the sample
    ``suite.run`` takes with the same ``limit`` and ``seed``) to ``path`` as a predictions file with
    ``null`` outputs, each distinct input once, in case order; returns the number of inputs.
    ``system_dependent``: whether the suite's cases are generated per system (default: from its info);
    such a suite is refused."""
    info = suite.info
    if _dependent(info, system_dependent):
        raise _refuse(info, "there are no fixed inputs to export")
    if not getattr(info, "materialized", True):
        raise InputError("the release withholds its text (the licence of its corpus): `lingtest release "
                         "materialize` fills it in from your copy before its inputs can be exported", path=info.path)
    from lingtest.systems.predictions import write_predictions

    needed = needed_inputs(suite.sample(limit, seed), get_task(info.task))
    meta = {"suite": info.name, "suite_version": info.version, "suite_sha256": info.sha256, "limit": limit,
            "seed": seed, "output_form": info.output_form}
    return write_predictions(path, info.task, [n.input for n in needed.values()], [None] * len(needed), meta=meta)


def _named(owners: list[tuple[str, str]], lines: dict[tuple[str, str], int] | None = None) -> str:
    shown = []
    for cid, side in owners[:SHOWN]:
        line = f", line {lines[(cid, side)]}" if lines and (cid, side) in lines else ""
        shown.append(f"{cid} ({side}{line})")
    more = f", and {len(owners) - SHOWN} more" if len(owners) > SHOWN else ""
    return ", ".join(shown) + more


def check_predictions_cover(suite: SuiteLike, spec: Any, *, cases: Sequence[TestCase] | None = None,
                            system_dependent: bool | None = None, config: Any = None) -> Cover | None:
    """Check, before a run, that the predictions file ``spec`` names answers every input ``cases`` (the
    cases to run; default: all of ``suite``'s) need (see the module doc). ``None`` when ``spec`` is no
    predictions file (:func:`~lingtest.systems.spec.predictions_path`; ``config``: the composed
    configuration, to recognise a configured system of kind ``predictions``). ``system_dependent``:
    whether the suite's cases are generated per system (default: from its info); a predictions file is
    then refused with what to use instead."""
    from lingtest.systems.predictions import read_entries
    from lingtest.systems.spec import predictions_path

    info = suite.info
    path = predictions_path(spec, info.task, config)
    if path is None:
        return None
    if _dependent(info, system_dependent):
        raise _refuse(info, "a predictions file (answers to fixed inputs) cannot answer them", path)
    task = get_task(info.task)
    run_cases = list(cases) if cases is not None else list(suite.cases)
    needed = needed_inputs(run_cases, task)
    entries = read_entries(path, task)
    problems: dict[str, list[tuple[str, str]]] = {"missing": [], "mismatched": [], "unfilled": []}
    lines: dict[tuple[str, str], int] = {}
    for key, need in needed.items():
        entry = entries.get(key)
        kind = ("missing" if entry is None else "mismatched" if not entry.consistent
                else "unfilled" if entry.output is None else None)
        if kind is not None:
            problems[kind].append(need.owners[0])
            if entry is not None:
                lines[need.owners[0]] = entry.line
    foreign = [e for k, e in entries.items() if k not in needed]
    if foreign and cases is not None and len(run_cases) < len(suite.cases):
        known = needed_inputs(suite.cases, task, strict=False)  # a sample's file may answer the whole suite
        foreign = [e for e in foreign if e.key not in known]
    if any(problems.values()):
        answered = sum(k in needed for k in entries)
        raise _uncovered(info, path, len(needed), len(entries), answered, problems, lines)
    if foreign:
        at = ", ".join(str(e.line) for e in foreign[:SHOWN]) + (", ..." if len(foreign) > SHOWN else "")
        warnings.warn(f"{path}: {len(foreign)} of its {len(entries)} entries answer no input of suite {info.name!r} "
                      f"(lines {at}); they are ignored", PredictionsWarning, stacklevel=2)
    return Cover(path, len(needed), len(entries), len(foreign))


def _uncovered(info: SuiteInfo, path: Path, needed: int, entries: int, answered: int,
               problems: dict[str, list[tuple[str, str]]], lines: dict[tuple[str, str], int]) -> UncoveredInputs:
    said = {"missing": "have no entry", "mismatched": "have an entry whose recorded input is not the suite's input "
                                                      "(edited after export?)",
            "unfilled": "have no output filled in (null)"}
    parts = [f"{len(owners)} {said[kind]}: case {_named(owners, lines)}" for kind, owners in problems.items()
             if owners]
    bad = sum(len(owners) for owners in problems.values())
    hint = (f"; none of its {entries} entries answers an input of this suite (a predictions file of another suite "
            f"or version?)" if entries and not answered else "")
    return UncoveredInputs(f"the predictions file does not answer {bad} of the {needed} inputs suite {info.name!r} "
                           f"needs{hint}: {'; '.join(parts)}. Write the inputs to fill in with "
                           f"lingtest.harness.export.export_inputs(suite, path) (the same limit and seed as the run)",
                           path=path, problems=problems)
