"""Saved predictions as a system under test: re-score outputs without running the model.

A predictions file is JSONL with the lingtest header (``kind: predictions``, ``task``, ``system``) and
one record per input: ``{"input": ..., "output": ...}`` in the task's JSON form
(:class:`~lingtest.systems.tasks.Task`), optionally with ``"key"`` (the task's content hash of the
input, computed when absent). An input is looked up by its key: a record with both ``key`` and ``input``
whose input does not hash to that key (an input edited after the key was written) answers nothing and is
an error; an ``output`` of ``null`` is an input not filled in yet (what
:func:`lingtest.harness.export.export_inputs` writes for the user to fill). :func:`write_predictions`
writes a file from any system's run, so a model run elsewhere (another machine, another toolkit) can be
scored by every stage that takes a system.

:func:`read_entries` reads every record as it is (for a check of a whole file against the inputs a
suite needs: :func:`lingtest.harness.export.check_predictions_cover`); :func:`read_predictions` accepts
only a file whose every record is usable, :class:`PredictionsFile` only the records it is asked for.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from lingtest.data.io import write_jsonl
from lingtest.errors import InputError, MissingResourceError
from lingtest.systems.base import System
from lingtest.systems.tasks import Task, get_task

KIND = "predictions"
#: how many missing inputs an error shows
SHOWN = 5


def write_predictions(path: str | Path, task: str, inputs: Sequence[Any], outputs: Sequence[Any],
                      system: str = "", meta: dict[str, Any] | None = None) -> int:
    """A predictions file of ``inputs`` and their ``outputs`` (an output ``None``: not filled in);
    ``meta``: more header fields. Returns the number of records."""
    t = get_task(task)
    records = [{"key": t.key(x), "input": t.encode_input(x), "output": None if y is None else t.encode_output(y)}
               for x, y in zip(inputs, outputs, strict=True)]
    return write_jsonl(path, records, kind=KIND, meta={**(meta or {}), "task": task, "system": system})


@dataclass(frozen=True, slots=True)
class Entry:
    """One record of a predictions file: the key it answers, the key of the input it records (``None``
    when it records none), its decoded output (``None``: not filled in) and its 1-based line."""

    key: str
    input_key: str | None
    output: Any
    line: int

    @property
    def consistent(self) -> bool:
        """The recorded input, if any, is the input of the key."""
        return self.input_key is None or self.input_key == self.key


def _entry(rec: dict[str, Any], task: Task) -> tuple[str, str | None, Any]:
    input_key = task.key(task.decode_input(rec["input"])) if "input" in rec else None
    if "key" in rec:
        key = rec["key"]
        if not isinstance(key, str) or not key:
            raise InputError("expected a non-empty string", field="key")
    elif input_key is not None:
        key = input_key
    else:
        raise InputError("a record needs 'input' or 'key'", field="input")
    if "output" not in rec:
        raise InputError("missing", field="output")
    output = None if rec["output"] is None else task.decode_output(rec["output"])
    return key, input_key, output


def read_entries(path: str | Path, task: Task) -> dict[str, Entry]:
    """Input key -> the file's record for it, in file order. A line that is not JSON, not an object, a
    record without ``input`` or ``key``, a malformed input or output, two records of one key or a header
    of another task is an :class:`InputError` naming the line; an input that does not hash to its
    record's key and an output of ``null`` are kept (see :class:`Entry`) for the caller to judge."""
    path = Path(path)
    if not path.is_file():
        raise MissingResourceError(f"predictions file {path} not found")
    out: dict[str, Entry] = {}
    with open(path, encoding="utf-8") as fh:
        for n, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                rec = json.loads(line)
            except json.JSONDecodeError as exc:
                raise InputError(f"not JSON: {exc.msg}", path=path, line=n) from None
            if not isinstance(rec, dict):
                raise InputError("expected a JSON object", path=path, line=n)
            if "__schema__" in rec:
                if rec.get("kind") != KIND or rec.get("task", task.name) != task.name:
                    raise InputError(f"a {rec.get('task')!r} {rec.get('kind')!r} file, expected {task.name!r} "
                                     "predictions", path=path, line=n, field="kind")
                continue
            try:
                key, input_key, output = _entry(rec, task)
            except InputError as exc:
                raise InputError(exc.reason, path=path, line=n, field=exc.field) from None
            if key in out:
                raise InputError(f"a second prediction for the same input (the first is on line {out[key].line})",
                                 path=path, line=n, field="input")
            out[key] = Entry(key, input_key, output, n)
    return out


def usable(entry: Entry, path: str | Path) -> Any:
    """The output of ``entry``; an :class:`InputError` naming its line when its input is not its key's
    or its output is not filled in."""
    if not entry.consistent:
        raise InputError("the recorded input is not the input of the record's 'key' (edited after the key was "
                         "written?): fix the input or drop the key", path=path, line=entry.line, field="input")
    if entry.output is None:
        raise InputError("no output filled in (null)", path=path, line=entry.line, field="output")
    return entry.output


def read_predictions(path: str | Path, task: Task) -> dict[str, Any]:
    """Input key -> decoded output; every malformed line, an input that is not its key's and an output
    not filled in is an :class:`InputError` naming it."""
    return {k: usable(e, path) for k, e in read_entries(path, task).items()}


class PredictionsFile(System[Any, Any]):
    """Answers from a predictions file; inputs the file does not hold are one error naming the first few
    and their count, and an entry asked for whose input is not its key's or whose output is not filled in
    is an error naming its line (entries never asked for are not judged)."""

    version: ClassVar[str] = "1"

    def __init__(self, task: str, path: str | Path, name: str | None = None) -> None:
        self.task = task  # type: ignore[misc]
        self.path = Path(path)
        self.name = name or self.path.stem
        self._task = get_task(task)
        self._entries: dict[str, Entry] | None = None

    def config(self) -> dict[str, Any]:
        # the file's content, not its name, decides the output
        import hashlib

        return {"sha256": hashlib.sha256(self.path.read_bytes()).hexdigest()} if self.path.is_file() else {}

    def predict(self, inputs: list[Any]) -> list[Any]:
        if self._entries is None:
            self._entries = read_entries(self.path, self._task)
        entries = self._entries
        keys = [self._task.key(x) for x in inputs]
        missing = list(dict.fromkeys(k for k in keys if k not in entries))
        if missing:
            shown_keys = set(missing[:SHOWN])
            first = {k: x for k, x in zip(keys, inputs, strict=True) if k in shown_keys}
            shown = "; ".join(json.dumps(self._task.encode_input(first[k]), ensure_ascii=False)[:200]
                              for k in missing[:SHOWN])
            more = f"; and {len(missing) - SHOWN} more" if len(missing) > SHOWN else ""
            raise InputError(f"no prediction for input{'s' if len(missing) > 1 else ''} {shown}{more} "
                             f"({len(missing)} of {len(set(keys))} missing)", path=self.path, field="input")
        return [usable(entries[k], self.path) for k in keys]
