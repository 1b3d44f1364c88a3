"""Freeze a generated suite into ``<release.dir>/<suite>/<version>/``.

Layout (every file listed in ``checksums.sha256``)::

    README.md                       dataset card: Hugging Face YAML header, columns, licence, citation, provenance
    data/test-<sha16>.parquet       the cases as flat typed columns (the file `datasets` loads)
    data/test-<sha16>.jsonl.gz      the suite file itself, gzip-compressed (only where the licence allows)
    provenance.json                 commit, composed config and hash, seed, DVC stage and upstream checksums
    checksums.sha256                `sha256sum -c` format

``<sha16>`` is the start of the suite's sha256, so two releases never share a data file name
(``datasets`` caches local folders by name). Three kinds: a release of **cases** (a suite of test cases,
the same for every system), a release of **sources** (a technique that generates its cases from each
system's own predictions, TIN: the source sentences with their gold entities and the generation config;
``lingtest run`` generates for the user's system through the registered generator), and a **recipe**
(a folder of files too large for git, such as the full ContraPro attack sets: the path, sha256 and size
of every file, the DVC stage and the configuration that make them; ``lingtest release materialize
--regenerate`` makes them and checks every file).

**Text and licences.** Where the source corpus's licence (``release.licenses.<corpus>.redistribute``)
does not allow redistribution, the text columns of the Parquet file are null and there is no suite file:
each row keeps the sha256 of its suite line (``line_sha256``), and ``lingtest release materialize``
rebuilds the suite byte for byte from the user's own copy (:mod:`lingtest.release.materialize`).

The release is built in a temporary folder and renamed into place, and recorded in the release index
(:mod:`lingtest.release.index`). Releasing a version that exists is a no-op when the suite is the same
and an error otherwise, also where the folder is absent but the index or a git tag knows the version.
"""

from __future__ import annotations

import gzip
import io
import json
import os
import re
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lingtest.config import Composed
from lingtest.errors import InputError
from lingtest.release.provenance import sha256_file
from lingtest.release.suites import SuiteRef

VERSION_RE = re.compile(r"^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)$")
CHECKSUMS = "checksums.sha256"
PROVENANCE = "provenance.json"
CARD = "README.md"
FORMAT = 2


@dataclass(frozen=True)
class Release:
    name: str
    version: str
    path: Path
    records: int
    data_file: str       # relative to path
    suite_sha256: str
    created: bool        # False: this version existed with the same suite (nothing written)
    text: str = "included"   # "included" or "withheld"

    @property
    def tag(self) -> str:
        return f"{self.name}@v{self.version}"


@dataclass(frozen=True)
class Content:
    """What a release is made of: the suite's header, its lines and the Parquet rows."""

    kind: str                      # "cases" or "sources"
    header: dict[str, Any]
    lines: list[str]               # the suite's record lines (canonical for sources), without newlines
    rows: list[dict[str, Any]]
    columns: dict[str, str]

    def suite_bytes(self) -> bytes:
        head = json.dumps(self.header, ensure_ascii=False, sort_keys=True)
        return ("\n".join([head, *self.lines]) + "\n").encode("utf-8")


def check_version(version: str) -> str:
    v = version[1:] if version.startswith("v") else version
    if not VERSION_RE.match(v):
        raise InputError(f"version {version!r} is not X.Y.Z (semantic versioning)", field="version")
    return v


def write_checksums(directory: Path) -> None:
    """``checksums.sha256`` over every other file of ``directory`` (sorted, POSIX paths)."""
    lines = []
    for p in sorted(directory.rglob("*")):
        if p.is_file() and p.name != CHECKSUMS:
            lines.append(f"{sha256_file(p)}  {p.relative_to(directory).as_posix()}\n")
    (directory / CHECKSUMS).write_text("".join(lines), encoding="utf-8")


def read_provenance(directory: Path) -> dict[str, Any]:
    path = directory / PROVENANCE
    if not path.is_file():
        raise InputError("not a lingtest release (no provenance.json)", path=directory)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise InputError(f"invalid JSON ({exc.msg})", path=path, line=exc.lineno) from None
    if not isinstance(data, dict) or "suite" not in data:
        raise InputError("missing field", path=path, field="suite")
    return data


def gzip_bytes(data: bytes) -> bytes:
    """``data`` gzip-compressed with no name and no time stamp (the same data give the same bytes)."""
    buf = io.BytesIO()
    with gzip.GzipFile(filename="", mode="wb", fileobj=buf, mtime=0, compresslevel=9) as fh:
        fh.write(data)
    return buf.getvalue()


# ---- content --------------------------------------------------------------------------------------------
def case_content(path: Path, *, withheld: bool) -> Content:
    """The suite file's header, lines and rows (one per test case)."""
    from lingtest.data.io import read_header
    from lingtest.harness.derive import group_of
    from lingtest.release.records import COLUMNS, case_from_line, case_row, line_sha256

    header = read_header(path)
    if header.get("kind") != "testcase":
        raise InputError(f"expected a suite of test cases, found records of kind {header.get('kind')!r}",
                         path=path, line=1, field="kind")
    lines, rows = [], []
    with open(path, encoding="utf-8") as fh:
        fh.readline()
        for lineno, line in enumerate(fh, start=2):
            text = line.rstrip("\r\n")
            if not text.strip():
                continue
            case = case_from_line(text, path=path, line=lineno)
            lines.append(text)
            rows.append(case_row(case, group=group_of(case), line_hash=line_sha256(text), withheld=withheld))
    return Content("cases", header, lines, rows, dict(COLUMNS))


def source_content(path: Path, *, withheld: bool) -> Content:
    """The sources file as canonical NER source records (id, tokens, gold) and their rows."""
    from lingtest.data.io import read_header, read_jsonl
    from lingtest.data.model import Document
    from lingtest.release.records import SOURCE_COLUMNS, dumps, ner_sentence_records, source_row

    head = read_header(path)
    records = [r for doc in read_jsonl(path, Document.from_dict) for r in ner_sentence_records(doc)]
    header: dict[str, Any] = {"__schema__": head["__schema__"], "kind": "ner-source"}
    header.update({k: head[k] for k in ("corpus", "split", "seed") if k in head})
    return Content("sources", header, [dumps(r) for r in records],
                   [source_row(r, withheld=withheld) for r in records], dict(SOURCE_COLUMNS))


def recipe_content(folder: Path) -> Content:
    """A folder's files (path, sha256, bytes), sorted: a recipe release lists them, the suite sha256 is
    that of the listing."""
    from lingtest.release.records import RECIPE_COLUMNS, dumps

    if not folder.is_dir():
        raise InputError("a recipe release is made of a folder of files", path=folder)
    rows = [{"path": p.relative_to(folder).as_posix(), "sha256": sha256_file(p), "bytes": p.stat().st_size}
            for p in sorted(folder.rglob("*")) if p.is_file()]
    return Content("recipe", {"__schema__": 1, "kind": "file-listing"}, [dumps(r) for r in rows], rows,
                   dict(RECIPE_COLUMNS))


def reviewed(root: Path, sha256: str) -> dict[str, Any] | None:
    """The review rates (:func:`lingtest.review.review_rates`) of the cases of the suite with ``sha256``,
    judged under any name or version in ``<root>/reviews/`` (a review of its S2LCT expanded sentences, unit
    ``expansion``, is not one of its cases); ``None`` when nobody reviewed them."""
    from lingtest.review.rates import folder_rates, reviewed_folders

    for folder in reviewed_folders(root):
        rates = folder_rates(folder, root)
        if rates.get("sha256") == sha256 and rates.get("unit", "case") == "case" and \
                (rates.get("overall") or {}).get("judgements"):
            return rates
    return None


# ---- building -------------------------------------------------------------------------------------------
def corpus_of(suite: SuiteRef, cfg: Composed) -> str:
    """The source corpus of ``suite``: ``release.corpora``, else its technique's ``corpus`` or
    ``dataset``, else the configured ``dataset``."""
    corpora = cfg.release.corpora
    if suite.name in corpora:
        return str(corpora[suite.name])
    tech = cfg.get(suite.technique) if hasattr(cfg, "get") else None
    for key in ("corpus", "dataset"):
        if tech is not None and hasattr(tech, "get") and tech.get(key):
            return str(tech.get(key))
    return str(cfg.get("dataset") or "")


def build(suite: SuiteRef, version: str, cfg: Composed, root: Path, target: Path, *, kind: str = "cases",
          generator: dict[str, Any] | None = None) -> tuple[Content, dict[str, Any]]:
    """Write the release files into the empty folder ``target``; returns its content and provenance."""
    import pyarrow.parquet as pq

    from lingtest.config import to_plain
    from lingtest.release import card, provenance
    from lingtest.release.config import ReleaseConfig
    from lingtest.release.records import dumps, rows_sha256, rows_to_table

    rcfg = ReleaseConfig.from_config(cfg)
    corpus = corpus_of(suite, cfg)
    licence = rcfg.licenses.get(corpus)
    if licence is None:
        raise InputError(f"no licence recorded for corpus {corpus!r} of suite {suite.name}: add "
                         f"release.licenses.{corpus} (id, redistribute, note) to conf/release",
                         field="release.licenses")
    withheld = not licence.redistribute or kind == "recipe"
    if kind == "recipe":
        content = recipe_content(suite.path)
    else:
        content = (source_content if kind == "sources" else case_content)(suite.path, withheld=withheld)
    if not content.rows:
        raise InputError("the suite has no records", path=suite.path)
    suite_bytes = content.suite_bytes() if kind in ("sources", "recipe") else suite.path.read_bytes()
    prov = provenance.collect(suite, cfg, root, records=len(content.rows), corpus=corpus)
    import hashlib

    sha = hashlib.sha256(suite_bytes).hexdigest()
    if kind == "sources":
        prov["suite"]["file_sha256"] = prov["suite"]["sha256"]  # the pipeline's sources file (parsed)
    if kind == "recipe":
        prov["suite"]["bytes"] = sum(int(r["bytes"]) for r in content.rows)
    prov["suite"]["sha256"] = sha
    split = rcfg.split
    data_file = f"data/{split}-{sha[:16]}.parquet"
    suite_file = None if withheld else f"data/{split}-{sha[:16]}.jsonl.gz"
    (target / "data").mkdir(parents=True)
    table = rows_to_table(content.rows, content.columns)
    pq.write_table(table, target / data_file, compression="zstd", compression_level=19, use_dictionary=True,
                   write_statistics=True)
    if suite_file is not None:
        (target / suite_file).write_bytes(gzip_bytes(suite_bytes))
    prov["release"] = {
        "name": suite.name, "version": version, "format": FORMAT, "kind": kind, "tag": f"{suite.name}@v{version}",
        "data_file": data_file, "suite_file": suite_file, "text": "withheld" if withheld else "included",
        "header": content.header, "rows_sha256": rows_sha256(content.rows),
        "licence": {"corpus": corpus, **licence.model_dump()}, "generator": generator,
    }
    review = reviewed(root, sha)
    if review is not None:
        prov["review"] = review
    (target / PROVENANCE).write_text(dumps(prov) + "\n", encoding="utf-8")
    paper = rcfg.papers.get(suite.technique)
    text = card.render(name=suite.name, version=version, split=split, data_file=data_file, suite_file=suite_file,
                       records=len(content.rows), num_bytes=int(table.nbytes), columns=content.columns,
                       license=licence.model_dump(), paper=to_plain(paper.model_dump()) if paper else None,
                       provenance=prov)
    (target / CARD).write_text(text, encoding="utf-8")
    write_checksums(target)
    return content, prov


def freeze(suite: SuiteRef, version: str, cfg: Composed, root: Path, out_root: Path | None = None, *,
           kind: str = "cases", generator: dict[str, Any] | None = None) -> Release:
    """Freeze ``suite`` as ``version`` under ``out_root`` (default ``<root>/<release.dir>``) and record it
    in the release index there."""
    from lingtest.release.index import check_new, entry_of, git_tags, read_index, write_index

    version = check_version(version)
    out_root = out_root or root / str(cfg.release.dir)
    final = out_root / suite.name / version
    index = read_index(out_root)
    if final.exists():
        existing = read_provenance(final)
        tmp = Path(tempfile.mkdtemp(prefix=".check.", dir=out_root))
        try:
            content, prov = build(suite, version, cfg, root, tmp / "r", kind=kind, generator=generator)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
        sha = prov["suite"]["sha256"]
        if existing["suite"].get("sha256") != sha:
            raise InputError(f"release {suite.name} {version} exists with a different suite (sha256 "
                             f"{existing['suite'].get('sha256', '?')[:16]}..., now {sha[:16]}...): releases are "
                             "immutable, choose a new version", path=final)
        rel = existing.get("release", {})
        return Release(suite.name, version, final, int(existing["suite"]["records"]), rel.get("data_file", ""), sha,
                       False, rel.get("text", "included"))
    final.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{version}.", suffix=".tmp", dir=final.parent))
    try:
        content, prov = build(suite, version, cfg, root, tmp, kind=kind, generator=generator)
        sha = prov["suite"]["sha256"]
        if not check_new(index, suite.name, version, sha, final):
            raise InputError(f"{suite.name} {version} is in the release index but its folder is missing: restore "
                             f"it from git (`git checkout -- {final}`)", path=final)
        tag = f"{suite.name}@v{version}"
        if tag in git_tags(root):
            raise InputError(f"git tag {tag} exists but the release index does not list it: the version was "
                             "released elsewhere; choose a new version", path=final)
        os.chmod(tmp, 0o755)
        os.rename(tmp, final)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    rel = prov["release"]
    index.setdefault(suite.name, {})[version] = {
        "suite_sha256": sha, "rows_sha256": rel["rows_sha256"], "records": len(content.rows), "kind": kind,
        "text": rel["text"], "tag": rel["tag"]}
    write_index(out_root, index)
    assert entry_of(index, suite.name, version) is not None
    return Release(suite.name, version, final, len(content.rows), rel["data_file"], sha, True, rel["text"])
