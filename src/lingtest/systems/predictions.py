"""Saved predictions as a system under test: re-score outputs without running the model.

A predictions file is JSONL with the lingtest header (``kind: predictions``, ``task``, ``system``) and
one record per input: ``{"input": ..., "output": ...}`` in the task's JSON form
(:class:`~lingtest.systems.tasks.Task`), optionally with ``"key"`` (the task's content hash of the
input, computed when absent). :func:`write_predictions` writes one from any system's run, so a model
run elsewhere (another machine, another toolkit) can be scored by every stage that takes a system.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any, ClassVar

from lingtest.data.io import write_jsonl
from lingtest.errors import InputError, MissingResourceError
from lingtest.systems.base import System
from lingtest.systems.tasks import Task, get_task

KIND = "predictions"


def write_predictions(path: str | Path, task: str, inputs: Sequence[Any], outputs: Sequence[Any],
                      system: str = "") -> int:
    t = get_task(task)
    records = [{"key": t.key(x), "input": t.encode_input(x), "output": t.encode_output(y)}
               for x, y in zip(inputs, outputs, strict=True)]
    return write_jsonl(path, records, kind=KIND, meta={"task": task, "system": system})


def read_predictions(path: str | Path, task: Task) -> dict[str, Any]:
    """Input key -> decoded output; every malformed line is an :class:`InputError` naming it."""
    path = Path(path)
    if not path.is_file():
        raise MissingResourceError(f"predictions file {path} not found")
    out: dict[str, Any] = {}
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
                if "key" in rec:
                    key = rec["key"]
                    if not isinstance(key, str):
                        raise InputError("expected a string", field="key")
                elif "input" in rec:
                    key = task.key(task.decode_input(rec["input"]))
                else:
                    raise InputError("a record needs 'input' or 'key'", field="input")
                if "output" not in rec:
                    raise InputError("missing", field="output")
                if key in out:
                    raise InputError("a second prediction for the same input", field="input")
                out[key] = task.decode_output(rec["output"])
            except InputError as exc:
                raise InputError(exc.reason, path=path, line=n, field=exc.field) from None
    return out


class PredictionsFile(System[Any, Any]):
    """Answers from a predictions file; an input the file does not hold is an error naming it."""

    version: ClassVar[str] = "1"

    def __init__(self, task: str, path: str | Path, name: str | None = None) -> None:
        self.task = task  # type: ignore[misc]
        self.path = Path(path)
        self.name = name or self.path.stem
        self._task = get_task(task)
        self._outputs: dict[str, Any] | None = None

    def config(self) -> dict[str, Any]:
        # the file's content, not its name, decides the output
        import hashlib

        return {"sha256": hashlib.sha256(self.path.read_bytes()).hexdigest()} if self.path.is_file() else {}

    def predict(self, inputs: list[Any]) -> list[Any]:
        if self._outputs is None:
            self._outputs = read_predictions(self.path, self._task)
        out = []
        for x in inputs:
            k = self._task.key(x)
            if k not in self._outputs:
                shown = json.dumps(self._task.encode_input(x), ensure_ascii=False)[:200]
                raise InputError(f"no prediction for input {shown}", path=self.path, field="input")
            out.append(self._outputs[k])
        return out
