"""Where review judgements live and how they are read, checked and recorded.

**Where.** ``reviews/<suite name>@<version or sha16>/labels.jsonl`` under the project root
(:func:`lingtest.paths.project_root`): beside the suite, never inside a release folder (releases are
immutable). A suite file without a version is keyed by the first 16 hex digits of its sha256, so an
edited suite file gets a folder of its own. A review of other units than the suite's cases
(:mod:`lingtest.review.units`) lives in ``reviews/<suite name><the unit's suffix>@<version or sha16>/``
(S2LCT's expanded sentences: ``reviews/<suite name>-expansion-sentences@<version or sha16>/``).

**The file.** lingtest JSONL: a header ``{"__schema__": 1, "kind": "review-labels", "suite", "version",
"sha256", "technique", "task", "capabilities", "sample", "samples"}`` (and ``"unit"`` for a
review of other units than cases, such as ``"expansion"``; ``sample``: the seed, size and
stratification of the last sample judged, ``samples``: every one judged so far), then one row per
judgement: ``{"id", "group", "well_formed", "label_correct", "relevance", "note", "reviewer", "time"}``
(``time``: UTC, ISO 8601). Rows are only appended: judging a case again appends a newer row, and the
latest row per case and reviewer (the last in the file) is the one that counts (:func:`latest`).

**A labels file to record** (``lingtest review SUITE --labels FILE``: judgements made elsewhere, or the
file the HTML page downloads) holds rows ``{"id", "well_formed", "label_correct", "relevance", "note"}``
and optionally ``reviewer`` and ``time``, after an optional header of kind ``review-judgements`` (or
``review-labels``) whose ``sha256``, when given, must be the suite's (and whose ``unit``, when given, the
review's). ``well_formed`` and
``label_correct`` are ``true``, ``false`` or ``null`` (not judged); ``relevance`` an integer 1-5 or
``null``, and only for a suite with capabilities; a row must judge something. The whole file is checked
before anything is recorded; an error names the file, the line and the field.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from lingtest.data.io import atomic_open
from lingtest.data.model import SCHEMA_VERSION
from lingtest.errors import InputError
from lingtest.review.units import CASE, folder_suffix

#: the header kind of a stored labels file, and of the file the HTML page downloads
KIND = "review-labels"
INPUT_KIND = "review-judgements"
#: the judgement fields of a row
JUDGED = ("well_formed", "label_correct", "relevance")
#: the fields a row of a labels file to record may have
INPUT_FIELDS = frozenset({"id", *JUDGED, "note", "reviewer", "time", "group"})
LABELS_FILE = "labels.jsonl"


@dataclass(frozen=True)
class Judgement:
    """One reviewer's judgement of one case (``None``: not judged)."""

    id: str
    well_formed: bool | None
    label_correct: bool | None
    relevance: int | None
    note: str
    reviewer: str
    time: str
    group: str = ""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class SuiteKey:
    """What identifies the reviewed suite: its name, version (``None`` for a suite file), sha256, whether it
    has capabilities (the relevance question) and the unit judged (``case``: its test cases; another: a unit
    a technique registers, :mod:`lingtest.review.units`, such as S2LCT's ``expansion``)."""

    name: str
    version: str | None
    sha256: str
    technique: str = ""
    task: str = ""
    capabilities: bool = False
    unit: str = CASE

    @property
    def folder_name(self) -> str:
        return review_name(self.name, self.version, self.sha256, self.unit)

    @classmethod
    def from_info(cls, info: Any, unit: str = CASE) -> SuiteKey:
        """The key of a :class:`~lingtest.harness.info.SuiteInfo` reviewed by ``unit``."""
        return cls(name=str(info.name), version=info.version, sha256=str(info.sha256), technique=str(info.technique),
                   task=str(info.task), capabilities="meta.capability" in str(info.group_rule), unit=unit)

    def header(self) -> dict[str, Any]:
        out = {"__schema__": SCHEMA_VERSION, "kind": KIND, "suite": self.name, "version": self.version,
               "sha256": self.sha256, "technique": self.technique, "task": self.task,
               "capabilities": self.capabilities}
        if self.unit != CASE:
            out["unit"] = self.unit
        return out


def review_name(suite: str, version: str | None, sha256: str, unit: str = CASE) -> str:
    """The name of a review: ``<suite>@<version or sha16>``, the suite's name followed by the unit's folder
    suffix for a review of other units than cases (:func:`lingtest.review.units.folder_suffix`:
    ``-expansion-sentences`` for S2LCT's expanded sentences)."""
    return f"{suite}{folder_suffix(unit)}@{version or sha256[:16]}"


def reviews_root(root: Path | None = None) -> Path:
    """The folder of every suite's reviews: ``reviews/`` under ``root`` (default: the project root)."""
    from lingtest.paths import project_root

    return (root or project_root()) / "reviews"


def labels_path(key: SuiteKey, root: Path | None = None) -> Path:
    """``reviews/<suite>@<version or sha16>/labels.jsonl``."""
    return reviews_root(root) / key.folder_name / LABELS_FILE


def now_utc() -> str:
    """The time now, UTC, ISO 8601 to the second (``2025-01-31T12:00:00Z``)."""
    return datetime.now(UTC).replace(microsecond=0).isoformat().replace("+00:00", "Z")


def default_reviewer(root: Path | None = None) -> str:
    """The reviewer's name when none is given: git's ``user.name``, else ``$USER``, else ``anonymous``."""
    import subprocess

    try:
        name = subprocess.run(["git", "config", "user.name"], cwd=root, capture_output=True, text=True,
                              timeout=10, check=False).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        name = ""
    return name or os.environ.get("USER") or os.environ.get("USERNAME") or "anonymous"


# ---- checking rows -------------------------------------------------------------------------------------
def _flag(row: Mapping[str, Any], name: str, err: Any) -> bool | None:
    value = row.get(name)
    if value is None or isinstance(value, bool):
        return value
    raise err(f"must be true, false or null, got {json.dumps(value)}", name)


def _time(value: Any, err: Any) -> str:
    if not isinstance(value, str):
        raise err(f"must be an ISO 8601 time string, got {json.dumps(value)}", "time")
    try:
        datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        raise err(f"not an ISO 8601 time: {value!r}", "time") from None
    return value


def check_row(row: Any, *, path: str | Path, line: int, groups: Mapping[str, str] | None, capabilities: bool,
              reviewer: str, time: str) -> Judgement:
    """One row of a labels file as a :class:`Judgement` (see the module doc for what a row may hold).
    ``groups``: the suite's case ids with their groups (``None``: ids are not checked, the row's own
    ``group`` is kept); ``reviewer``/``time``: for a row that names none."""
    def err(message: str, field: str | None = None) -> InputError:
        return InputError(message, path=path, line=line, field=field)

    if not isinstance(row, Mapping):
        raise err(f"a row must be a JSON object, got {type(row).__name__}")
    unknown = sorted(set(row) - INPUT_FIELDS)
    if unknown:
        raise err(f"unknown field (a row holds {', '.join(sorted(INPUT_FIELDS - {'group'}))})", unknown[0])
    case_id = row.get("id")
    if not isinstance(case_id, str) or not case_id:
        raise err("every row names the case it judges: a non-empty string", "id")
    if groups is not None and case_id not in groups:
        raise err(f"unknown case id {case_id!r}: not a case of this suite", "id")
    well_formed = _flag(row, "well_formed", err)
    label_correct = _flag(row, "label_correct", err)
    relevance = row.get("relevance")
    if relevance is not None:
        if isinstance(relevance, bool) or not isinstance(relevance, int) or not 1 <= relevance <= 5:
            raise err(f"must be an integer from 1 to 5 or null, got {json.dumps(relevance)}", "relevance")
        if not capabilities:
            raise err("this suite has no capabilities: leave relevance out (or null)", "relevance")
    if well_formed is None and label_correct is None and relevance is None:
        raise err("the row judges nothing: give well_formed, label_correct" +
                  (" or relevance" if capabilities else ""), "well_formed")
    note = row.get("note")
    if note is not None and not isinstance(note, str):
        raise err(f"must be a string, got {json.dumps(note)}", "note")
    who = row.get("reviewer", reviewer)
    if not isinstance(who, str) or not who.strip():
        raise err("must be a non-empty string", "reviewer")
    when = _time(row["time"], err) if row.get("time") is not None else time
    group = groups[case_id] if groups is not None else str(row.get("group") or "")
    return Judgement(case_id, well_formed, label_correct, relevance, (note or "").strip(), who.strip(), when, group)


def _lines(path: Path) -> list[tuple[int, Any]]:
    """(line number, decoded JSON) of every non-blank line."""
    out = []
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise InputError("no such labels file", path=path) from None
    except UnicodeDecodeError as exc:
        raise InputError(f"not UTF-8 text ({exc.reason})", path=path) from None
    for n, raw in enumerate(text.splitlines(), start=1):
        if not raw.strip():
            continue
        try:
            out.append((n, json.loads(raw)))
        except json.JSONDecodeError as exc:
            raise InputError(f"invalid JSON ({exc.msg})", path=path, line=n) from None
    return out


def read_judgements(path: Path, *, key: SuiteKey, groups: Mapping[str, str], reviewer: str,
                    time: str | None = None) -> tuple[dict[str, Any] | None, list[Judgement]]:
    """(its header or ``None``, its judgements) of a labels file to record for the suite ``key`` whose
    cases are ``groups`` (id -> group), every row checked; ``reviewer``/``time`` (default: now) for
    rows that name none."""
    rows = _lines(path)
    header = None
    if rows and isinstance(rows[0][1], Mapping) and "__schema__" in rows[0][1]:
        n, header = rows.pop(0)
        if header.get("kind") not in (INPUT_KIND, KIND):
            raise InputError(f"a header of kind {header.get('kind')!r}; a labels file is of kind {INPUT_KIND!r}",
                             path=path, line=n, field="kind")
        if header.get("sha256") and header["sha256"] != key.sha256:
            raise InputError(f"the judgements are of another suite (sha256 {str(header['sha256'])[:16]}..., "
                             f"this suite's is {key.sha256[:16]}...)", path=path, line=n, field="sha256")
        if header.get("unit", key.unit) != key.unit:
            raise InputError(f"the judgements are of the suite's {header['unit']} units, not of its {key.unit} "
                             f"units (--unit {header['unit']})", path=path, line=n, field="unit")
    if not rows:
        raise InputError("the labels file holds no judgements", path=path)
    when = time or now_utc()
    return header, [check_row(row, path=path, line=n, groups=groups, capabilities=key.capabilities,
                              reviewer=reviewer, time=when) for n, row in rows]


def read_labels(path: Path) -> tuple[dict[str, Any], list[Judgement]]:
    """(header, judgements in file order) of a stored labels file."""
    rows = _lines(path)
    if not rows or not isinstance(rows[0][1], Mapping) or rows[0][1].get("kind") != KIND:
        raise InputError(f"not a review labels file (its first line is no header of kind {KIND!r})", path=path,
                         line=1, field="kind")
    header = dict(rows[0][1])
    capabilities = bool(header.get("capabilities"))
    out = [check_row(row, path=path, line=n, groups=None, capabilities=capabilities, reviewer="?", time="?")
           for n, row in rows[1:]]
    return header, out


def _sample_list(header: Mapping[str, Any]) -> list[dict[str, Any]]:
    value = header.get("samples")
    return [dict(s) for s in value if isinstance(s, Mapping)] if isinstance(value, list) else []


def record(path: Path, key: SuiteKey, judgements: Sequence[Judgement], sample: Mapping[str, Any] | None = None) -> int:
    """Append ``judgements`` to the labels file ``path`` of the suite ``key`` (made with its header when
    absent; refused when it belongs to another suite). ``sample``: the sample they were judged on
    (``seed``, ``size``, ``by_group``), recorded in the header. Returns the number appended."""
    if path.exists():
        header, _ = read_labels(path)
        if header.get("sha256") != key.sha256:
            raise InputError(f"these labels are of another suite (sha256 {str(header.get('sha256'))[:16]}..., "
                             f"this suite's is {key.sha256[:16]}...)", path=path, line=1, field="sha256")
        if header.get("unit", CASE) != key.unit:
            raise InputError(f"these labels judge the suite's {header.get('unit', 'case')} units, not its "
                             f"{key.unit} units", path=path, line=1, field="unit")
        samples = _sample_list(header)
        if sample is not None and dict(sample) not in samples:
            header["sample"], header["samples"] = dict(sample), [*samples, dict(sample)]
            body = path.read_text(encoding="utf-8").splitlines(keepends=True)[1:]
            with atomic_open(path) as fh:
                fh.write(json.dumps(header, ensure_ascii=False, sort_keys=True) + "\n")
                fh.writelines(body)
    else:
        header = {**key.header(), "sample": dict(sample) if sample else None,
                  "samples": [dict(sample)] if sample else []}
        with atomic_open(path) as fh:
            fh.write(json.dumps(header, ensure_ascii=False, sort_keys=True) + "\n")
    with open(path, "a", encoding="utf-8", newline="\n") as fh:
        for j in judgements:
            fh.write(json.dumps(j.to_dict(), ensure_ascii=False, sort_keys=True, separators=(",", ":")) + "\n")
        fh.flush()
        os.fsync(fh.fileno())
    return len(judgements)


def latest(judgements: Iterable[Judgement]) -> list[Judgement]:
    """The last judgement of each case by each reviewer (in file order: a later row replaces an earlier
    one of the same case and reviewer)."""
    last: dict[tuple[str, str], Judgement] = {}
    for j in judgements:
        last.pop((j.id, j.reviewer), None)
        last[(j.id, j.reviewer)] = j
    return list(last.values())
