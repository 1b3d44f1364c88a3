"""Load a suite (a suite file or a release folder) and run any system on it.

>>> import pathlib, tempfile
>>> import lingtest
>>> from lingtest.data.io import write_jsonl
>>> from lingtest.data.model import Provenance, TestCase
>>> cases = [TestCase("demo", "mft", {"text": text}, None, {"name": "label", "label": label},
...                   Provenance(text, "negation" if "not" in text else "plain"))
...          for text, label in [("good", "positive"), ("not good", "negative"), ("bad", "negative")]]
>>> path = pathlib.Path(tempfile.mkdtemp()) / "demo.jsonl"
>>> write_jsonl(path, cases, kind="testcase", meta={"technique": "demo"})
3
>>> suite = lingtest.load_suite(path)
>>> suite.info.task, suite.info.labels, suite.info.groups
('classification', ('negative', 'positive'), {'plain': 2, 'negation': 1})
>>> def naive(texts):  # a model: JSON form in (texts), JSON form out ({label: probability})
...     return [{"negative": 0.9, "positive": 0.1} if "bad" in t else {"negative": 0.1, "positive": 0.9}
...             for t in texts]
>>> results = suite.run(naive, config=["systems.cache=false"], progress=False)
>>> print(results.summary().round(2).to_string(index=False))
   group  cases  failed  failure_rate
   plain      2       0          0.00
negation      1       1          1.00
 overall      3       1          0.33
>>> results.failures()[["id", "group", "prediction"]].to_dict("records")  # doctest: +ELLIPSIS
[{'id': '...', 'group': 'negation', 'prediction': {'source': {'label': 'positive', 'probs': {...}}}}]

**Sources.** A suite file is lingtest's JSONL of :class:`~lingtest.data.model.TestCase` records
(header ``kind: testcase``); a release folder (``releases/<suite>/<version>/``, see
:mod:`lingtest.release.freeze`) is read from its JSONL copy of the suite (checked against the sha256
its ``provenance.json`` records), or from its Parquet file when the JSONL is gone; a folder holding
release versions asks for one. ``<suite>@<version>`` names a release of the project
(``crest-ontogum@1.1.0``). A release that withholds its text (its corpus's licence) loads from the
copy ``lingtest release materialize`` made, else without payloads (``info`` works, ``run`` asks to
materialise). A release of sources (``info.kind == "sources"``, TIN) holds source sentences and gold;
``run`` generates its cases for the system. A Parquet file of released rows loads too, and a name that
is no path is looked up among the configured suites (``adversarial-ontogum``, ``s2lct-sst``; see
:mod:`lingtest.release.suites`).

How a suite's task, its cases' groups and its labels are derived is said in :mod:`lingtest.harness.derive`
(in short: the task from the expectations, else the technique, else the payload's shape; the group from
``meta.capability`` for S2LCT and CheckList, ``meta.template`` for ContraCAT, else
``provenance.transformation``).
"""

from __future__ import annotations

import json
import os
import re
from collections import Counter
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lingtest.data.model import Provenance, TestCase
from lingtest.errors import InputError
from lingtest.harness.derive import expectation_name, group_of, group_rule, suite_labels, suite_task
from lingtest.harness.info import FORMS, SuiteInfo

if TYPE_CHECKING:
    from lingtest.harness.results import Results

# ---- the suite ------------------------------------------------------------------------------------------
@dataclass
class Suite:
    """Test cases with their :class:`SuiteInfo`; :meth:`run` runs a system on them."""

    cases: list[TestCase]
    info: SuiteInfo
    #: a release of sources: the source records (``{"id", "tokens", "gold"}``) and the recorded
    #: configuration their cases are generated with
    sources: list[dict[str, Any]] | None = None
    config: dict[str, Any] | None = None

    def __len__(self) -> int:
        return len(self.cases)

    def __iter__(self) -> Iterator[TestCase]:
        return iter(self.cases)

    def __repr__(self) -> str:
        version = f" v{self.info.version}" if self.info.version else ""
        return f"<Suite {self.info.name}{version}: {self.info.cases} {self.info.task} cases>"

    def group(self, case: TestCase) -> str:
        return group_of(case)

    def export_inputs(self, path: str | os.PathLike[str], *, limit: int | None = None, seed: int = 0) -> int:
        """Write the inputs this suite's cases need (every side each expectation predicts, once each) as
        a predictions file to fill in: a model's outputs written into it make it a system
        (``suite.run(path)``). Refused for a suite whose cases are generated per system. Returns the
        number of inputs (:func:`lingtest.harness.export.export_inputs`)."""
        from lingtest.harness.export import export_inputs

        return export_inputs(self, Path(path), limit=limit, seed=seed)

    def sample(self, limit: int | None = None, seed: int = 0) -> list[TestCase]:
        """``limit`` cases drawn at random with ``seed`` (the same seed gives the same cases), in suite
        order; every case when ``limit`` is ``None`` or not below the suite's size."""
        import random

        if limit is None:
            return list(self.cases)
        if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
            raise InputError(f"limit must be a positive integer, got {limit!r}", field="limit")
        if limit >= len(self.cases):
            return list(self.cases)
        picked = sorted(random.Random(seed).sample(range(len(self.cases)), limit))
        return [self.cases[i] for i in picked]

    def run(self, system: Any, *, limit: int | None = None, seed: int = 0,
            options: Mapping[str, Any] | None = None, batch_size: int | None = None, config: Any = None,
            progress: bool | None = None, labels: Any = None) -> Results:
        """Run ``system`` on the suite (or on a seeded sample of ``limit`` cases).

        ``system``: a function (a batch of inputs in the task's JSON form in, one output each out; see
        ``info.input_form``/``info.output_form``), a :class:`~lingtest.systems.base.System`, or a SPEC
        string (``package.module:function``, ``http(s)://...``, a predictions file, a configured system
        name; :mod:`lingtest.systems.spec`). It is batched and cached (an interrupted run resumes from
        the cache). ``options``: run options by key (``{"oracle": {...}}``, ``{"s2lct": {...}}``); those
        the expectations need and ``options`` lacks come from the configuration (``crest.oracle``,
        ``s2lct.evaluate``). ``batch_size``: instead of the configured one. ``config``: the composed
        configuration, or Hydra overrides for :func:`lingtest.config.compose` (default: none).
        ``progress``: a progress bar (default: when stderr is a terminal).

        A release of sources (``info.kind == "sources"``, TIN) generates its cases from ``system``'s own
        predictions with the recorded configuration first, then runs them; ``labels`` maps an NER system's
        labels onto the gold scheme (a scheme name such as ``"conll"``, a mapping, or a YAML/JSON file) so
        that the run is graded against gold (``Results.gold``). ``limit`` then samples sources. A fixed
        suite of such a technique (a TIN suite file) is graded against its gold the same way.

        A bad output (malformed, NaN, a label outside ``info.labels``, probabilities not summing to 1,
        the wrong number of outputs, spans or scores) is a
        :class:`~lingtest.harness.outputs.OutputError` naming the case and the field; nothing of the
        batch it came in is cached."""
        from lingtest.harness.running import run_cases, run_sources

        if self.info.kind == "sources":
            return run_sources(self, system, limit=limit, seed=seed, options=options, batch_size=batch_size,
                               config=config, progress=progress, labels=labels)
        if not self.info.materialized:
            raise InputError(f"the release withholds its text (the licence of its corpus): `lingtest release "
                             f"materialize {Path(self.info.path).parent.parent}` fills it in from your copy",
                             path=self.info.path)
        return run_cases(self.info, self.sample(limit, seed), system, limit=limit, seed=seed, options=options,
                         batch_size=batch_size, config=config, progress=progress, suite=self, labels=labels)


# ---- reading --------------------------------------------------------------------------------------------
def case_from_row(row: Mapping[str, Any]) -> TestCase:
    """A released Parquet row (:func:`lingtest.release.records.case_row`) as a test case."""
    def load(key: str, default: Any = None) -> Any:
        v = row.get(key)
        return json.loads(v) if isinstance(v, str) else default

    return TestCase(technique=row["technique"], relation=row["relation"], source=load("source"),
                    followup=load("followup"), expected=load("expected"),
                    provenance=Provenance(seed_id=row["seed_id"], transformation=row["transformation"],
                                          params=load("provenance", {}) or {}),
                    meta=load("meta", {}) or {}, id=row["id"])


def read_parquet_cases(path: Path) -> list[TestCase]:
    import pyarrow.parquet as pq

    try:
        rows = pq.read_table(path).to_pylist()
    except Exception as exc:  # noqa: BLE001  (pyarrow raises several kinds on a file that is not Parquet)
        raise InputError(f"not a Parquet file of released cases: {exc}", path=path) from None
    out = []
    for i, row in enumerate(rows):
        try:
            out.append(case_from_row(row))
        except (KeyError, TypeError, ValueError) as exc:
            raise InputError(f"row {i}: not a released test case ({exc})", path=path) from None
    return out


def _release_versions(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if (p / "provenance.json").is_file())


def _lines_to_cases(lines: list[str], where: str) -> list[TestCase]:
    from lingtest.release.records import case_from_line

    return [case_from_line(line, path=where, line=n) for n, line in enumerate(lines, start=2) if line.strip()]


def _suite_text(folder: Path, prov: Mapping[str, Any]) -> tuple[bytes, str] | None:
    """The suite's bytes and where they came from: the release's gzip file, else the materialised copy
    of a release that withholds its text, else ``None``; checked against the recorded sha256."""
    import gzip
    import hashlib

    from lingtest.release.materialize import materialized_path

    rel = prov.get("release") or {}
    expected = str((prov.get("suite") or {}).get("sha256"))
    if rel.get("suite_file"):
        path = folder / str(rel["suite_file"])
        if not path.is_file():
            raise InputError("the release's suite file is missing: `lingtest release verify`", path=path)
        data = gzip.decompress(path.read_bytes())
    elif rel.get("text") == "withheld":
        path = materialized_path(dict(prov))
        if not path.is_file():
            return None
        data = path.read_bytes()
    else:
        return None
    got = hashlib.sha256(data).hexdigest()
    if got != expected:
        raise InputError(f"the suite does not match the release (sha256 {got[:16]}..., the release records "
                         f"{expected[:16]}...): `lingtest release verify {folder}`", path=path)
    return data, str(path)


def _from_release(folder: Path) -> tuple[list[TestCase], dict[str, Any], dict[str, Any]]:
    """(cases, header, identity) of a release folder; the identity also says the release's ``kind``,
    ``text``, whether it is ``materialized``, and for a release of sources its ``sources``, ``generator``
    and recorded ``config``."""
    from lingtest.data.io import read_header, read_jsonl
    from lingtest.release.freeze import read_provenance
    from lingtest.release.provenance import sha256_file

    prov = read_provenance(folder)
    rel = prov.get("release") or {}
    suite = prov.get("suite") or {}
    ident: dict[str, Any] = {"name": rel.get("name") or suite.get("name") or folder.parent.name,
                             "version": rel.get("version") or folder.name, "technique": suite.get("technique"),
                             "sha256": suite.get("sha256"), "kind": rel.get("kind", "cases"),
                             "text": rel.get("text", "included"), "materialized": True}
    if rel.get("kind") == "recipe":
        raise InputError(f"a recipe release: {suite.get('records')} files of {suite.get('technique')} listed with "
                         f"their sha256, not test cases; `lingtest release materialize {folder} --regenerate` makes "
                         "them", path=folder)
    if int(rel.get("format", 1)) >= 2:
        got = _suite_text(folder, prov)
        parquet = folder / str(rel.get("data_file", ""))
        if got is None:  # text withheld and not materialised yet: what the rows say, without payloads
            ident["materialized"], ident["path"] = False, str(parquet)
            if ident["kind"] == "sources":
                import pyarrow.parquet as pq

                rows = pq.read_table(parquet).to_pylist()
                ident["sources"] = [{"id": r["id"], "tokens": None, "gold": json.loads(r["gold"] or "null")}
                                    for r in rows]
                ident["generator"], ident["config"] = (rel.get("generator") or {}).get("name"), prov.get("config")
                return [], dict(rel.get("header") or {}), ident
            import pyarrow.parquet as pq

            ident["groups"] = {r["id"]: r["group"] for r in pq.read_table(parquet, columns=["id", "group"]).to_pylist()}
            return read_parquet_cases(parquet), dict(rel.get("header") or {}), ident
        data, where = got
        lines = data.decode("utf-8").splitlines()
        ident["path"] = where
        header = json.loads(lines[0]) if lines else {}
        if ident["kind"] == "sources":
            ident["sources"] = [json.loads(line) for line in lines[1:] if line.strip()]
            ident["generator"], ident["config"] = (rel.get("generator") or {}).get("name"), prov.get("config")
            return [], header, ident
        return _lines_to_cases(lines[1:], where), header, ident
    jsonl = folder / str(rel.get("jsonl_file", ""))
    if rel.get("jsonl_file") and jsonl.is_file():
        sha = sha256_file(jsonl)
        if ident["sha256"] and sha != ident["sha256"]:
            raise InputError(f"the suite file does not match the release (sha256 {sha[:16]}..., the release "
                             f"records {str(ident['sha256'])[:16]}...): `lingtest release verify {folder}`",
                             path=jsonl)
        ident["sha256"], ident["path"] = sha, str(jsonl)
        return list(read_jsonl(jsonl, TestCase.from_dict, kind="testcase")), read_header(jsonl), ident
    parquet = folder / str(rel.get("data_file", ""))
    if rel.get("data_file") and parquet.is_file():
        ident["path"] = str(parquet)
        if not ident["sha256"]:
            ident["sha256"] = sha256_file(parquet)
        return read_parquet_cases(parquet), {}, ident
    raise InputError("the release has neither its JSONL nor its Parquet data file (run `dvc pull`?)", path=folder)


RELEASE_REF = re.compile(r"^(?P<name>[a-z0-9][a-z0-9_.-]*)@v?(?P<version>\d+\.\d+\.\d+)$")


def release_folder(source: str) -> Path | None:
    """The folder of ``<suite>@<version>`` (``crest-ontogum@1.1.0`` or ``crest-ontogum@v1.1.0``) among
    the project's releases (``release.dir`` of ``params.yaml``, else ``releases/``), or ``None`` when
    ``source`` is not of that form."""
    m = RELEASE_REF.match(source)
    if m is None:
        return None
    from lingtest.paths import project_root

    root = project_root()
    folder = "releases"
    params = root / "params.yaml"
    if params.is_file():
        import yaml

        folder = str(((yaml.safe_load(params.read_text(encoding="utf-8")) or {}).get("release") or {}).get("dir")
                     or folder)
    path = root / folder / m["name"] / m["version"]
    if not path.is_dir():
        from lingtest.release.index import read_index

        known = [f"{n}@{v}" for n, vs in read_index(root / folder).items() for v, e in vs.items()
                 if "withdrawn" not in e]
        raise InputError(f"no release {m['name']} {m['version']} (releases: {', '.join(sorted(known)) or 'none'})",
                         path=path)
    return path


def _named(source: str) -> Path | None:
    """The folder of ``<suite>@<version>`` or the file of a configured suite name, or ``None`` when
    ``source`` cannot be either."""
    from lingtest.release.suites import NAME_RE, resolve_suite

    folder = release_folder(source)
    if folder is not None:
        return folder
    if not NAME_RE.match(source):
        return None
    from lingtest.config import compose
    from lingtest.paths import project_root

    root = project_root()
    if not (root / "conf").is_dir():
        return None
    return resolve_suite(source, compose(), root).path


def load_suite(source: str | os.PathLike[str]) -> Suite:
    """A suite file, a release folder, a released Parquet file or a configured suite name as a
    :class:`Suite` (see the module doc for how its task, groups and labels are derived)."""
    from lingtest.data.io import read_header, read_jsonl
    from lingtest.release.provenance import sha256_file

    path = Path(source).expanduser()
    if not path.exists():
        found = _named(str(source))
        if found is None:
            raise InputError("no such suite file or release folder", path=path)
        path = found
    ident: dict[str, Any] = {}
    header: dict[str, Any] = {}
    if path.is_dir():
        if not (path / "provenance.json").is_file():
            versions = _release_versions(path)
            if versions:
                raise InputError(f"a folder of releases: name a version ({', '.join(versions)})", path=path)
            tracked = sorted(p.name for p in path.glob("*.dvc"))
            if tracked:
                raise InputError(f"the releases here are tracked by DVC ({', '.join(tracked)}) and not checked "
                                 f"out: `dvc pull {path / tracked[0]}`", path=path)
            raise InputError("not a release folder (no provenance.json) nor a folder of releases", path=path)
        cases, header, ident = _from_release(path)
    elif path.suffix == ".parquet":
        cases = read_parquet_cases(path)
        ident = {"sha256": sha256_file(path), "path": str(path)}
    else:
        header = read_header(path)
        cases = list(read_jsonl(path, TestCase.from_dict, kind="testcase"))
        ident = {"sha256": sha256_file(path), "path": str(path)}
    if ident.get("kind") == "sources":
        return _sources_suite(ident, header, path)
    if not cases:
        raise InputError("the suite has no test cases", path=path)
    return suite_of_cases(cases, header, ident, str(ident.get("path", path)))


def suite_of_cases(cases: list[TestCase], header: Mapping[str, Any], ident: Mapping[str, Any], where: str) -> Suite:
    """``cases`` as a :class:`Suite`: task, groups and labels from the cases and ``header``; name,
    version, sha256, text, materialisation and groups by case id from ``ident``; ``info.path`` is
    ``where``."""
    technique = str(ident.get("technique") or header.get("technique") or "")
    if not technique:
        names = sorted({c.technique for c in cases})
        technique = names[0] if len(names) == 1 else "+".join(names)
    task = suite_task(cases, header, where)
    named = ident.get("groups") or {}

    def group(c: TestCase) -> str:
        return str(named.get(c.id) or group_of(c))

    groups: Counter[str] = Counter()
    for c in cases:
        groups[group(c)] += 1
    order = list(dict.fromkeys(group(c) for c in cases))
    rules = sorted({group_rule(c.technique) for c in cases})
    first = cases[0]
    example: Any = None
    try:  # every expectation predicts the source first (a release that withholds its text has none)
        from lingtest.systems.tasks import get_task

        t = get_task(task)
        example = t.encode_input(t.from_payload(first.source)) if first.source is not None else None
    except (InputError, KeyError, TypeError, ValueError):
        example = None  # run() names the problem with the case
    from lingtest.release.suites import suite_name

    name = str(ident.get("name") or suite_name(technique, Path(where)))
    info = SuiteInfo(name=name, version=ident.get("version"), sha256=str(ident["sha256"]), path=where,
                     technique=technique, task=task, cases=len(cases), groups={g: groups[g] for g in order},
                     group_rule=" / ".join(rules), labels=suite_labels(cases, task, header),
                     expectations=dict(Counter(expectation_name(c.expected) for c in cases).most_common()),
                     input_form=FORMS[task][0], output_form=FORMS[task][1], example_input=example,
                     text=str(ident.get("text", "included")), materialized=bool(ident.get("materialized", True)))
    return Suite(cases, info)


def _sources_suite(ident: dict[str, Any], header: Mapping[str, Any], path: Path) -> Suite:
    """A release of sources (its cases are generated per system when it runs)."""
    sources = list(ident.get("sources") or [])
    if not sources:
        raise InputError("the release has no sources", path=path)
    labels = sorted({str(g[2]) for s in sources for g in (s.get("gold") or []) if isinstance(g, list) and len(g) == 3})
    example = sources[0].get("tokens")
    task = "ner"
    info = SuiteInfo(name=str(ident["name"]), version=ident.get("version"), sha256=str(ident["sha256"]),
                     path=str(ident.get("path", path)), technique=str(ident.get("technique")), task=task,
                     cases=len(sources), groups={}, group_rule="provenance.transformation",
                     labels=tuple(labels) or None,
                     expectations={}, input_form=FORMS[task][0], output_form=FORMS[task][1], example_input=example,
                     kind="sources", system_dependent=True, generator=ident.get("generator"),
                     text=str(ident.get("text", "included")), materialized=bool(ident.get("materialized", True)))
    return Suite([], info, sources=sources, config=ident.get("config"))
