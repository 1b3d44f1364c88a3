"""What the report shows, read from the working tree: per technique and corpus, the tables, plots,
per-system metrics and failing cases. Locations come from ``cfg.paths.<technique>`` (``metrics``,
``results``, and the cases of ``suite``, ``cases`` or the ``*.jsonl`` of ``suites``), so every
technique that follows the shape appears without code here."""

from __future__ import annotations

import base64
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lingtest.config import Composed
from lingtest.errors import InputError


@dataclass
class FailingCase:
    id: str
    system: str
    transformation: str
    capability: str
    expectation: str
    source_text: str
    followup_text: str
    predictions: dict[str, Any]
    details: dict[str, Any]


@dataclass
class Section:
    technique: str
    corpus: str
    tables: dict[str, str] = field(default_factory=dict)        # file name -> markdown
    plots: dict[str, str] = field(default_factory=dict)         # file name -> data URI
    systems: dict[str, dict[str, Any]] = field(default_factory=dict)  # system -> metrics JSON
    cases: dict[str, int] = field(default_factory=dict)         # system -> cases run
    failures: list[FailingCase] = field(default_factory=list)
    shown_cut: dict[str, int] = field(default_factory=dict)     # system -> failures not shown (max_cases)


def _data_uri(path: Path) -> str:
    return "data:image/png;base64," + base64.b64encode(path.read_bytes()).decode("ascii")


def _read_records(path: Path) -> list[dict[str, Any]]:
    from lingtest.data.io import read_jsonl

    return list(read_jsonl(path, lambda d: d))


def _text(payload: Any, limit: int) -> str:
    from lingtest.release.records import payload_text

    text = payload_text(payload) if isinstance(payload, dict) else ("" if payload is None else str(payload))
    text = text or ""
    return text if len(text) <= limit else text[:limit] + " …"


def gather_section(technique: str, paths: Any, root: Path, *, max_cases: int, max_chars: int) -> Section | None:
    """One technique's section (None when it has no outputs in the working tree)."""
    metrics_dir = root / str(paths.get("metrics", "")) if paths.get("metrics") else None
    results_dir = root / str(paths.get("results", "")) if paths.get("results") else None
    suite_files = [root / str(paths.get(k)) for k in ("suite", "cases") if str(paths.get(k) or "").endswith(".jsonl")]
    if paths.get("suites") and (root / str(paths.get("suites"))).is_dir():
        suite_files += sorted((root / str(paths.get("suites"))).glob("*.jsonl"))
    corpus = metrics_dir.name if metrics_dir else (suite_files[0].stem if suite_files else "-")
    sec = Section(technique, corpus)
    if metrics_dir and metrics_dir.is_dir():
        for p in sorted(metrics_dir.glob("*.md")):
            sec.tables[p.name] = p.read_text(encoding="utf-8")
        for p in sorted(metrics_dir.glob("*.png")):
            sec.plots[p.name] = _data_uri(p)
        for p in sorted((metrics_dir / "systems").glob("*.json")):
            try:
                sec.systems[p.stem] = json.loads(p.read_text(encoding="utf-8"))
            except json.JSONDecodeError as exc:
                raise InputError(f"invalid JSON ({exc.msg})", path=p, line=exc.lineno) from None
    cases: dict[str, dict[str, Any]] = {}
    for suite_path in suite_files:
        if suite_path.is_file():
            cases.update({c["id"]: c for c in _read_records(suite_path)})
    if results_dir and results_dir.is_dir():
        for p in sorted(results_dir.glob("*.jsonl")):
            results = _read_records(p)
            sec.cases[p.stem] = len(results)
            failing = [r for r in results if not r.get("passed", True)]
            for r in failing[:max_cases]:
                case = cases.get(str(r.get("case_id")), {})
                prov = case.get("provenance", {})
                meta = case.get("meta", {}) if isinstance(case.get("meta"), dict) else {}
                sec.failures.append(FailingCase(
                    id=str(r.get("case_id")), system=str(r.get("system", p.stem)),
                    transformation=str(prov.get("transformation", "")),
                    capability=str(meta.get("capability") or meta.get("attack") or case.get("relation") or ""),
                    expectation=str(r.get("expectation", "")),
                    source_text=_text(case.get("source"), max_chars),
                    followup_text=_text(case.get("followup"), max_chars),
                    predictions=dict(r.get("predictions") or {}), details=dict(r.get("details") or {})))
            if len(failing) > max_cases:
                sec.shown_cut[p.stem] = len(failing) - max_cases
    if not (sec.tables or sec.plots or sec.systems or sec.cases):
        return None
    return sec


def gather(cfg: Composed, root: Path) -> list[Section]:
    """Every technique in ``cfg.paths`` with outputs, in config order."""
    out = []
    for technique, paths in cfg.paths.items():
        if not hasattr(paths, "get") or not (paths.get("metrics") or paths.get("results")):
            continue
        sec = gather_section(str(technique), paths, root, max_cases=int(cfg.report.max_cases),
                             max_chars=int(cfg.report.max_chars))
        if sec is not None:
            out.append(sec)
    return out
