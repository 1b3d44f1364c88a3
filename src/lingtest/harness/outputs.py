"""What a suite accepts of a system's outputs, checked before anything is cached.

The task's codec (:meth:`~lingtest.systems.tasks.Task.decode_output`) already rejects malformed outputs
(a non-object classification output, a probability outside [0, 1] or NaN, probabilities that do not sum
to 1 within :data:`~lingtest.systems.classification.base.SUM_TOLERANCE`, a span that is not
``[start, end, label]`` with ``0 <= start < end``, a positive or NaN log-probability); a suite adds what
only the inputs and the suite know: a classification output gives probability only to the suite's
labels, an NER entity or a coreference mention lies inside its input, a contrastive output has one score
per candidate, and a batch has one output per input.

:class:`OutputCheck` runs twice: on every batch a system answers, before the
:class:`~lingtest.systems.cache.CachedSystem` stores it (:class:`CheckedRunner` wraps its batch runner:
a bad batch is never cached, the batches before it are), and on every output of the run, cached ones
included (:class:`CheckedSystem`). A bad output is an :class:`OutputError` naming the case (its id, the
side, the start of its input) and the field; a batch with the wrong number of outputs names the first
cases of the batch (``case_id`` is its first case). An input the system could not do (an HTTP error
after every retry, an ``{"error": ...}`` answer) is not a bad output: the run ends with
:class:`~lingtest.systems.base.PartialFailure` naming the cases, and a re-run predicts only those.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

from lingtest.data.model import TestCase
from lingtest.errors import InputError, SystemFailure
from lingtest.systems.base import ItemFailure, PartialFailure, System
from lingtest.systems.classification.base import SUM_TOLERANCE
from lingtest.systems.tasks import Task

__all__ = ["MALFORMED", "SUM_TOLERANCE", "CheckedRunner", "CheckedSystem", "OutputCheck", "OutputError",
           "case_needs", "owners_of"]
#: what :func:`lingtest.systems.generic.callable.decode_json_output` calls an output it cannot read
MALFORMED = "malformed output: "
_FIELD = re.compile(r"field '([^']*)'")
_BATCH_INDEX = re.compile(r"^outputs?\[\d+\]")


class OutputError(SystemFailure):
    """A system's output for a test case is bad; ``case_id``, ``side`` and ``field`` say where. Nothing
    of the batch it came in was cached."""

    def __init__(self, message: str, *, case_id: str | None = None, side: str | None = None,
                 field: str | None = None) -> None:
        super().__init__(message)
        self.case_id = case_id
        self.side = side
        self.field = field


Owners = dict[str, list[tuple[str, str]]]


def case_needs(case: TestCase) -> tuple[str, ...]:
    """The sides (``source``, ``followup``) whose inputs ``case``'s expectation predicts; ``("source",)``
    for an expectation that cannot be read (the runner names that problem with the case)."""
    from lingtest.suite.expectations import parse_expectation

    try:
        return tuple(parse_expectation(case.expected, where=f"{case.id}.expected").needs)
    except InputError:
        return ("source",)


def owners_of(cases: Sequence[TestCase], task: Task, needs: Callable[[TestCase], Sequence[str]]) -> Owners:
    """Input key -> the (case id, side) pairs that need that input, in case order."""
    out: Owners = {}
    for c in cases:
        for side in needs(c):
            payload = getattr(c, side)
            if not isinstance(payload, dict):
                continue
            try:
                key = task.key(task.from_payload(payload))
            except (InputError, KeyError, TypeError, ValueError):
                continue  # the runner names a bad payload
            out.setdefault(key, []).append((c.id, side))
    return out


class OutputCheck:
    """The checks of one suite's outputs (see the module doc); ``labels``: the classification label set
    (``None``: any)."""

    def __init__(self, task: Task, owners: Owners, labels: Sequence[str] | None = None) -> None:
        self.task = task
        self.owners = owners
        self.labels = tuple(labels) if labels else None

    # ---- naming ---------------------------------------------------------------------------------------
    def owner(self, item: Any) -> tuple[str | None, str | None, str]:
        """(case id, side, a readable "case ... (side ...)") of an input."""
        try:
            key = self.task.key(item)
        except Exception:  # noqa: BLE001  (naming must not fail)
            key = ""
        found = self.owners.get(key, [])
        shown = json.dumps(self.task.encode_input(item), ensure_ascii=False)
        shown = shown if len(shown) <= 60 else shown[:57] + "..."
        if not found:
            return None, None, f"input {shown}"
        cid, side = found[0]
        more = f" (and {len(found) - 1} other case(s) with the same input)" if len(found) > 1 else ""
        return cid, side, f"case {cid} ({side} {shown}){more}"

    def error(self, item: Any, field: str | None, reason: str, system: str) -> OutputError:
        cid, side, where = self.owner(item)
        at = f", field {field!r}" if field else ""
        return OutputError(f"{where}: bad {self.task.name} output from system {system!r}{at}: {reason}",
                           case_id=cid, side=side, field=field)

    # ---- checking -------------------------------------------------------------------------------------
    def problem(self, item: Any, output: Any) -> tuple[str | None, str] | None:
        """``(field, reason)`` of a bad output, ``None`` for a good one or a per-item failure."""
        if isinstance(output, ItemFailure):
            if not output.reason.startswith(MALFORMED):
                return None
            m = _FIELD.search(output.reason)
            field = _BATCH_INDEX.sub("output", m.group(1)) if m else "output"
            reason = output.reason[len(MALFORMED):]
            reason = reason.split(": ", 1)[1] if m and ": " in reason else reason
            return field, reason
        try:
            decoded = self.task.decode_output(self.task.encode_output(output), "output")
        except InputError as exc:
            return exc.field or "output", exc.reason
        except (TypeError, ValueError, AttributeError, KeyError) as exc:
            return "output", f"not a {self.task.name} output ({type(exc).__name__}: {exc})"
        return getattr(self, f"_{self.task.name}")(item, decoded)

    def _classification(self, item: Any, probs: Mapping[str, float]) -> tuple[str | None, str] | None:
        if self.labels is not None:
            for label, p in probs.items():
                if label not in self.labels and p > 0.0:  # a label given no probability is not predicted
                    return (f"output.{label}", f"label {label!r} is not one of the suite's labels "
                                               f"({', '.join(self.labels)})")
        return None  # [0, 1] and the sum to 1 are the codec's (decode_output)

    def _ner(self, item: Any, entities: Sequence[Any]) -> tuple[str | None, str] | None:
        n = len(item)
        for i, e in enumerate(entities):
            if e.end > n:
                return f"output[{i}]", f"entity {e.to_list()} ends after the input's {n} tokens"
        return None

    def _coref(self, item: Any, clusters: Sequence[Any]) -> tuple[str | None, str] | None:
        n = len(item.words)
        for i, c in enumerate(clusters):
            for j, m in enumerate(c.mentions):
                if m.end > n:
                    return f"output[{i}][{j}]", f"mention {m.to_list()} ends after the input's {n} tokens"
        return None

    def _contrastive(self, item: Any, scores: Sequence[float]) -> tuple[str | None, str] | None:
        if len(scores) != len(item.candidates):
            return "output", f"{len(scores)} scores for {len(item.candidates)} candidates"
        return None

    def check(self, inputs: Sequence[Any], outputs: Sequence[Any], system: str) -> None:
        """Raise :class:`OutputError` for the first bad output (and for a wrong number of outputs)."""
        if len(outputs) != len(inputs):
            named = [self.owner(x) for x in inputs[:3]]
            cid, side = (named[0][0], named[0][1]) if named else (None, None)
            raise OutputError(f"system {system!r} returned {len(outputs)} outputs for a batch of {len(inputs)} "
                              f"inputs ({'; '.join(n[2] for n in named)}{', ...' if len(inputs) > 3 else ''})",
                              case_id=cid, side=side, field="output")
        for item, out in zip(inputs, outputs, strict=True):
            bad = self.problem(item, out)
            if bad is not None:
                raise self.error(item, bad[0], bad[1], system)


class CheckedRunner:
    """A batch runner (:class:`~lingtest.systems.cache.BatchRunner`) that checks every batch before the
    cache sees it."""

    def __init__(self, inner: Any, check: OutputCheck, system: str) -> None:
        self.inner = inner
        self.check = check
        self.system = system

    def run(self, batches: Sequence[list[Any]]) -> Iterator[tuple[int, list[Any]]]:
        for i, outs in self.inner.run(batches):
            self.check.check(batches[i], outs, self.system)
            yield i, outs


class CheckedSystem(System[Any, Any]):
    """A cached system whose outputs are checked (cached ones too) and whose failures name the cases;
    ``before(n)`` is told how many inputs are about to be predicted (for a progress bar)."""

    def __init__(self, cached: Any, check: OutputCheck, before: Callable[[int], None] | None = None) -> None:
        self.cached = cached
        self.check = check
        self.task = cached.task  # type: ignore[misc]
        self.version = cached.version  # type: ignore[misc]
        self.name = cached.name
        self.before = before

    def config(self) -> dict[str, Any]:
        return dict(self.cached.config())

    def pending(self, inputs: Sequence[Any]) -> int:
        """How many distinct inputs the cache does not hold."""
        keys = {self.cached.key(x) for x in inputs}
        store = getattr(self.cached, "store", None)
        return len(keys - set(store.get_many(keys))) if store is not None else len(keys)

    def predict(self, inputs: list[Any]) -> list[Any]:
        if self.before is not None:
            self.before(self.pending(inputs))
        try:
            outputs = self.cached.predict(inputs)
        except PartialFailure as exc:
            named = []
            for i in sorted(exc.failures)[:5]:
                named.append(f"{self.check.owner(inputs[i])[2]}: {exc.failures[i]}")
            more = f"; and {len(exc.failures) - 5} more" if len(exc.failures) > 5 else ""
            raise PartialFailure(f"system {self.name!r} failed on {len(exc.failures)} input(s); the others are "
                                 f"cached and a re-run predicts only these: {'; '.join(named)}{more}",
                                 outputs=exc.outputs, failures=exc.failures) from None
        self.check.check(inputs, outputs, self.name)
        return list(outputs)
