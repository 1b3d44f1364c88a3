"""Mutants of reader inputs and what reading them may give, for ``test_mutants.py`` and
``bench/bench_readers.py``.

A :class:`Case` is a valid input of one reader format, built from the small fixtures of
``tests/fixtures`` (:func:`fixture_case`) or from files of the data mirror (:func:`mirror_cases`).
Each file of a case has a *role* (its layout: ``conll2003``, ``conllu``, ``csv_hatecheck``,
``zip``...), which says where its labels are, where a valid file of that layout may end and which
of its values are free text. A mutant changes one file of a case by one mutation of a class:

* ``truncate``: the file cut at a byte offset;
* ``nul``: a NUL byte inserted, or 16 bytes zeroed;
* ``flip``: one byte replaced by another;
* ``bad_utf8``: an invalid UTF-8 sequence inserted;
* ``encoding``: the file re-encoded as UTF-16 or as Latin-1 (with one non-ASCII letter);
* ``columns``: a field of one line dropped, added or emptied (column layouts);
* ``label``: a label, tag, index or typed JSON value replaced by one the format does not allow;
* ``brackets``: a bracket of a tree added or removed;
* ``oversize``: a line longer than ``max_line_bytes``, or a file larger than ``max_file_bytes``.

Reading a mutant (:func:`run_mutant`, with the configured options) has one :data:`OUTCOMES`:

* ``error``: an :class:`InputError` naming the file, the line (text input) and the field (a
  ``label`` or ``columns`` mutant of a layout whose fields have names): clean;
* ``same``: the records of the valid input: clean (a changed timestamp in a zip header, a
  dropped trailing newline, an extra column a reader ignores...);
* ``undetectable``: other records, but the mutant is itself a valid file, which no reader can
  tell from the real one: a flipped byte inside free text (a word, a lemma, a POS tag of an open
  tag set) or one that turned a valid label into another valid label (SST ``1`` -> ``3``), a
  line end flipped in a one-record-per-line format (two sentences become one), a file cut where
  a valid file may end (between records, or inside the free text of the last line of a format
  without a record terminator: the mirror's ``stsa.fine.test`` has no final newline);
* ``unlocated``: an :class:`InputError` that does not name what it should;
* ``silent``: other records without an error, and the mutant is not a valid file: the failure;
* ``crash``: any other exception.
"""

from __future__ import annotations

import csv
import io
import json
import pickle
import random
import re
import shutil
import sys
import tarfile
import types
import warnings
import zipfile
from collections import defaultdict
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lingtest.errors import InputError
from lingtest.readers import read

FX = Path(__file__).resolve().parents[1] / "fixtures"
CLASSES = ("truncate", "nul", "flip", "bad_utf8", "encoding", "columns", "label", "brackets", "oversize")
OUTCOMES = ("error", "same", "undetectable", "unlocated", "silent", "crash")
#: ``max_line_bytes`` the ``oversize`` mutants are read with (longer than every fixture line)
LINE_CAP = 4096

BINARY_ROLES = ("zip", "targz", "arrow")
MEMBER_ROLES = ("ptb_member",)


# --------------------------------------------------------------------------------------------
# cases
# --------------------------------------------------------------------------------------------
@dataclass
class Case:
    """A valid input of reader ``fmt``: what it is called with, its options, and its files with
    their roles (a ``zip`` target's members have ``member_role``)."""

    fmt: str
    path: Path
    targets: list[tuple[Path, str]]
    options: dict[str, Any] = field(default_factory=dict)
    member_role: str = "ptb_member"
    valid: list[Any] | None = None  # the records of the valid input, normalised

    def read(self, **extra: Any) -> list[Any]:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return normalise(read(self.fmt, self.path, **{**self.options, **extra}))


def normalise(records: Iterator[Any]) -> list[Any]:
    """Records as plain JSON values; a tree's bracketed string as its list of tokens."""
    out = json.loads(json.dumps([r.to_dict() for r in records], sort_keys=True, default=str))
    return [_trees_as_tokens(r) for r in out]


def _trees_as_tokens(x: Any) -> Any:
    if isinstance(x, dict):
        if set(x) == {"ptb"} and isinstance(x["ptb"], str):
            return re.findall(r"\(|\)|[^()\s]+", x["ptb"])
        return {k: _trees_as_tokens(v) for k, v in x.items()}
    if isinstance(x, list):
        return [_trees_as_tokens(v) for v in x]
    return x


def _copy(src: Path, dst: Path) -> Path:
    if src.is_dir():
        shutil.copytree(src, dst)
    else:
        dst.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(src, dst)
    return dst


def checklist_pickle(labels: Any = (2, 0), test_type: str = "MFT", data: Any = ("good", "bad")) -> bytes:
    """A small CheckList suite with the released structure (``checklist.*`` classes by reference)."""
    mods = {n: types.ModuleType(n) for n in ("checklist", "checklist.test_suite", "checklist.test_types")}
    saved = {n: sys.modules.get(n) for n in mods}
    sys.modules.update(mods)
    try:
        def cls(module: str, name: str) -> type:
            c = type(name, (), {})
            c.__module__, c.__qualname__ = module, name
            setattr(mods[module], name, c)
            return c

        suite_cls, mft, inv = (cls("checklist.test_suite", "TestSuite"), cls("checklist.test_types", "MFT"),
                               cls("checklist.test_types", "INV"))
        t1, t2 = mft(), inv()
        t1.__dict__.update(data=list(data), labels=list(labels), capability="Vocabulary", description="")
        t2.__dict__.update(data=[["I like it.", "I lkie it."]], labels=None, capability="Robustness")
        suite = suite_cls()
        suite.__dict__.update(tests={"words": t1, "typos": t2},
                              info={"words": {"type": test_type}, "typos": {"type": "INV"}})
        return pickle.dumps(suite, protocol=3)
    finally:
        for n, m in saved.items():
            if m is None:
                sys.modules.pop(n, None)
            else:
                sys.modules[n] = m


def write_checklist(path: Path, blob: bytes) -> Path:
    with tarfile.open(path, "w:gz") as tar:
        info = tarfile.TarInfo("sentiment_suite.pkl")
        info.size = len(blob)
        tar.addfile(info, io.BytesIO(blob))
    return path


def _hf_saved(root: Path, kind: str) -> Path:
    import datasets
    from datasets import ClassLabel, Dataset, Features, List, Value

    datasets.disable_progress_bars()
    if kind == "hf_conll2003":
        features = Features({"id": Value("string"), "tokens": List(Value("string")),
                             "ner_tags": List(ClassLabel(names=["O", "B-PER", "I-PER"]))})
        rows = [{"id": "0", "tokens": ["John", "runs"], "ner_tags": [1, 0]},
                {"id": "1", "tokens": ["Mary"], "ner_tags": [1]}]
    else:
        sent = {"part_id": Value("int32"), "words": List(Value("string")),
                "pos_tags": List(ClassLabel(names=["NN", "VB", "NNP"])), "parse_tree": Value("string"),
                "speaker": Value("string"),
                "named_entities": List(ClassLabel(names=["O", "B-PERSON", "I-PERSON"])),
                "coref_spans": List(List(Value("int32")))}
        features = Features({"document_id": Value("string"), "sentences": List(sent)})
        rows = [{"document_id": "d", "sentences": [
            {"part_id": 0, "words": ["John", "runs"], "pos_tags": [2, 1],
             "parse_tree": "(TOP (S (NNP John) (VB runs)))",
             "speaker": "A", "named_entities": [1, 0], "coref_spans": [[1, 0, 0]]},
            {"part_id": 0, "words": ["He", "runs"], "pos_tags": [0, 1], "parse_tree": "(TOP (S (NN He) (VB runs)))",
             "speaker": "A", "named_entities": [0, 0], "coref_spans": [[1, 0, 0]]}]}]
    out = root / kind
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        Dataset.from_list(rows, features=features).save_to_disk(str(out))
    return out


def fixture_case(fmt: str, root: Path) -> Case:
    """A valid input of reader ``fmt`` built from the fixtures in a fresh folder ``root``."""
    root.mkdir(parents=True, exist_ok=True)
    c, r, t = FX / "coref", FX / "readers", FX / "parsing"
    single = {
        "conll2012": (c / "sample.v4_gold_conll", "sample.v4_gold_conll", "conll12", {}),
        "conll_coref": (c / "generic.conll", "generic.conll", "coref_generic", {}),
        "jsonlines": (c / "sample.jsonlines", "sample.jsonlines", "jsonlines", {}),
        "conll2003": (r / "conll2003_iob1.txt", "train.txt", "conll2003", {}),
        "sst_ptb": (r / "sst_trees.txt", "train.txt", "sst_ptb", {}),
        "sst_lines": (r / "stsa.fine.sample", "stsa.fine.sample", "sst_lines", {}),
        "hatecheck": (r / "hatecheck_cases.csv", "cases.csv", "csv_hatecheck", {"tokenizer": "whitespace"}),
        "ptb": (t / "two_trees.ptb", "two_trees.ptb", "ptb", {}),
        "conllu": (t / "sample.conllu", "sample.conllu", "conllu", {}),
    }.get(fmt)
    if single is not None:
        src, name, role, options = single
        p = _copy(src, root / name)
        return Case(fmt, p, [(p, role)], dict(options))
    if fmt == "ontogum":
        p = _copy(c / "GUM_test_tiny.conll", root / "GUM_test_tiny.conll")
        dep = _copy(c / "dep", root / "dep")
        return Case(fmt, p, [(p, "ontogum"), (dep / "GUM_test_tiny.conllu", "conllu_aligned")],
                    {"conllu_dir": dep})
    if fmt == "hatexplain_json":
        d = _copy(r / "hatexplain", root / "hatexplain")
        return Case(fmt, d / "dataset.json", [(d / "dataset.json", "json_hatexplain"),
                                               (d / "post_id_divisions.json", "json_divisions")])
    if fmt == "hatexplain_csv":
        d = _copy(r / "hatexplain", root / "hatexplain")
        return Case(fmt, d / "sample.csv", [(d / "sample.csv", "csv_hatexplain"),
                                             (d / "post_id_divisions.json", "json_divisions")],
                    {"divisions": d / "post_id_divisions.json"})
    if fmt == "contrapro_json":
        d = _copy(r / "contrapro", root / "contrapro")
        return Case(fmt, d / "contrapro.json", [(d / "contrapro.json", "json_contrapro"),
                                                 (d / "ctx" / "contrapro.context.en", "aligned_text"),
                                                 (d / "ctx" / "contrapro.context.de", "aligned_text")],
                    {"context_dir": d / "ctx"})
    if fmt == "contrapro_grouped":
        d = _copy(r / "contrapro" / "grouped", root / "grouped")
        return Case(fmt, d, [(p, "aligned_text") for p in sorted(d.iterdir())])
    if fmt == "contracat":
        d = _copy(r / "contracat" / "templates", root / "templates")
        files = sorted(p for p in d.rglob("*.txt"))
        return Case(fmt, d, [(p, "genders" if p.name == "genders.txt" else "aligned_text") for p in files],
                    {"include_priors": True})
    if fmt == "checklist":
        p = write_checklist(root / "sentiment_suite.tar.gz", checklist_pickle())
        return Case(fmt, p, [(p, "targz")])
    if fmt == "ptb_sample":
        p = root / "treebank.zip"
        with zipfile.ZipFile(p, "w", zipfile.ZIP_DEFLATED) as zf:
            zf.write(t / "traces.mrg", "treebank/combined/wsj_0001.mrg")
            zf.write(t / "two_trees.ptb", "treebank/combined/wsj_0002.mrg")
        return Case(fmt, p, [(p, "zip")])
    if fmt in ("hf_conll2003", "hf_conll2012"):
        d = _hf_saved(root, fmt)
        return Case(fmt, d, [(p, "arrow") for p in sorted(d.glob("*.arrow"))])
    raise AssertionError(f"no mutant case for reader {fmt!r}: add one to fixture_case")


def _head(src: Path, dst: Path, role: str, head_bytes: int | None) -> Path:
    """``src`` copied to ``dst``, cut at the last place a valid file of its layout may end before
    ``head_bytes`` (whole when ``None``)."""
    data = src.read_bytes()
    if head_bytes is not None and len(data) > head_bytes:
        ends = [k for k in ENDS[role](data[: head_bytes + 1]) if 0 < k <= head_bytes and data[k - 1:k] == b"\n"]
        data = data[: max(ends)] if ends else data  # one record longer than that: whole
    dst.parent.mkdir(parents=True, exist_ok=True)
    dst.write_bytes(data)
    return dst


def mirror_cases(mirror: Path, root: Path, head_bytes: int | None = None, slow: bool = True) -> list[Case]:
    """Cases from files of the data mirror, copied into ``root``: one or two per format, single
    text files cut to about ``head_bytes`` (whole when ``None``); ``slow=False`` leaves out the
    CheckList suite (86,420 cases: seconds per read)."""
    m = mirror
    out: list[Case] = []

    def one(fmt: str, src: Path, role: str, **options: Any) -> None:
        p = _head(src, root / fmt / src.name, role, head_bytes)
        out.append(Case(fmt, p, [(p, role)], options))

    one("conll2003", m / "conll2003" / "valid.txt", "conll2003")
    one("sst_ptb", m / "sst" / "trees" / "dev.txt", "sst_ptb")
    one("sst_lines", m / "sst" / "stsa" / "stsa.fine.dev", "sst_lines")
    one("sst_lines", m / "sst" / "stsa" / "stsa.binary.dev", "sst_lines")
    one("hatecheck", m / "hatecheck" / "test_suite_cases.csv", "csv_hatecheck", tokenizer="whitespace")
    one("conllu", m / "gum" / "dep" / "GUM_bio_byron.conllu", "conllu")
    one("ptb", m / "gum" / "const" / "GUM_bio_byron.ptb", "ptb")
    one("conll2012", m / "conll2012-sample" / "wsj_0020.conll", "conll12")
    one("conll_coref", m / "ontogum" / "coref" / "ontogum" / "conll" / "GUM_bio_byron.conll", "coref_generic")
    one("jsonlines", m / "conll2012-sample" / "dev.english.jsonlines", "jsonlines")
    d = root / "hatexplain"
    csv_p = _head(m / "hatexplain" / "df_val_with_rationales.csv", d / "df_val_with_rationales.csv",
                  "csv_hatexplain", head_bytes)
    div = _copy(m / "hatexplain" / "post_id_divisions.json", d / "post_id_divisions.json")
    out.append(Case("hatexplain_csv", csv_p, [(csv_p, "csv_hatexplain"), (div, "json_divisions")],
                    {"divisions": div}))
    cp = _copy(m / "contrapro" / "contrapro_synonym_subset.json", root / "contrapro" / "subset.json")
    out.append(Case("contrapro_json", cp, [(cp, "json_contrapro")]))
    g = root / "grouped"
    names = ("contrapro.text.en", "contrapro.text.de", "contrapro.context.en", "contrapro.context.de")
    texts = {n: (m / "contrapro" / n).read_bytes().splitlines(keepends=True) for n in names}
    keep = len(texts["contrapro.text.en"])
    if head_bytes is not None:  # cut before a line with another source: examples never span two sources
        en = texts["contrapro.text.en"]
        keep = max(i for i in range(1, min(len(en), head_bytes // 40)) if en[i] != en[i - 1])
    for n in names:
        (g / n).parent.mkdir(parents=True, exist_ok=True)
        (g / n).write_bytes(b"".join(texts[n][:keep]))
    out.append(Case("contrapro_grouped", g, [(g / n, "aligned_text") for n in names]))
    templates = sorted(p.parent for p in (m / "contracat" / "templates").rglob("en.txt"))
    tpl = next(p for p in templates if "0_priors" not in p.parts)
    t = _copy(tpl, root / "contracat" / tpl.name)
    out.append(Case("contracat", t, [(t / n, "genders" if n == "genders.txt" else "aligned_text")
                                     for n in ("en.txt", "de.txt", "genders.txt")], {"include_priors": True}))
    gum = root / "ontogum"
    conll = _copy(m / "ontogum" / "coref" / "ontogum" / "conll" / "GUM_bio_byron.conll", gum / "GUM_bio_byron.conll")
    dep = _copy(m / "gum" / "dep" / "GUM_bio_byron.conllu", gum / "dep" / "GUM_bio_byron.conllu")
    out.append(Case("ontogum", conll, [(conll, "ontogum"), (dep, "conllu_aligned")],
                    {"conllu_dir": dep.parent, "duplicates": "drop", "malformed": "warn"}))
    zp = root / "ptb_sample" / "treebank.zip"
    zp.parent.mkdir(parents=True, exist_ok=True)
    members = _zip_members(m / "ptb-sample" / "treebank.zip")
    if head_bytes is not None:  # the first few files only
        members = [x for x in members if not x[0].filename.endswith(".mrg")] + \
                  [x for x in members if x[0].filename.endswith(".mrg")][:4]
    zp.write_bytes(_write_zip(members))
    out.append(Case("ptb_sample", zp, [(zp, "zip")]))
    if slow:
        one("checklist", m / "checklist" / "sentiment_suite.tar.gz", "targz")
    return out


# --------------------------------------------------------------------------------------------
# the layouts: where labels are, where a valid file may end, what is free text
# --------------------------------------------------------------------------------------------
def _line_spans(data: bytes) -> list[tuple[int, int]]:
    """(start, end) of every line, its line end excluded."""
    spans, pos = [], 0
    for m in re.finditer(rb"\r\n|\n|\r", data):
        spans.append((pos, m.start()))
        pos = m.end()
    if pos < len(data):
        spans.append((pos, len(data)))
    return spans


def _line_of(data: bytes, offset: int) -> int:
    return data.count(b"\n", 0, offset) + 1


def _boundaries(data: bytes) -> set[int]:
    """Line ends, before and after the newline."""
    return {x for m in re.finditer(rb"\r?\n", data) for x in (m.start(), m.end())}


def _tail(data: bytes) -> set[int]:
    """Offsets after which only whitespace follows."""
    end = len(data.rstrip())
    return set(range(end, len(data) + 1))


def _bracket_ends(data: bytes) -> set[int]:
    out, depth = set(), 0
    for i, b in enumerate(data):
        if b == 0x28:
            depth += 1
        elif b == 0x29:
            depth -= 1
        if depth == 0:
            out.add(i + 1)
    return out


_MARKER = re.compile(rb"#[ \t]*(?:begin|end)[ \t]+document\b")


def _block_ends(data: bytes) -> set[int]:
    """Line boundaries outside ``#begin document`` ... ``#end document``, and cuts of a
    ``#begin document`` line that leave a comment (no marker yet)."""
    out: set[int] = set()
    inside = False
    for s, e in _line_spans(data):
        line = data[s:e].strip()
        if re.match(rb"#\s*begin\s+document", line):
            out.update(k for k in range(s + 1, e) if not _MARKER.match(data[s:k]))
            inside = True
        elif re.match(rb"#\s*end\s+document", line):
            inside = False
        if not inside:
            out.add(e + 1)
    return out


def _conllu_ends(data: bytes) -> set[int]:
    """Where no sentence is open: after a blank line, and in or after comment lines after one."""
    out, open_ = {0}, False
    for s, e in _line_spans(data):
        line = data[s:e]
        if not line.strip():
            open_ = False
        elif not line.startswith(b"#"):
            open_ = True
        elif not open_:
            out.update(range(s + 1, e + 1))
        if not open_:
            out.add(e + 1)
    return out


def _csv_cuts(data: bytes, first_free: int, header: bool) -> set[int]:
    """Row ends, and offsets inside a row at field ``first_free`` or later outside quotes: free or
    ignored fields, which a valid row may hold shorter or not at all."""
    out: set[int] = set()
    for s, e in _csv_rows(data)[1 if header else 0:]:
        out.update((e, len(data[:e].rstrip(b"\r\n"))))
        in_quote, field = False, 0
        for i in range(s, e):
            b = data[i]
            if not in_quote and (field >= first_free or field == first_free - 1 and b == 0x2C):
                out.add(i)
            if b == 0x22:
                in_quote = not in_quote
            elif b == 0x2C and not in_quote:
                field += 1
    return out


def _csv_rows(data: bytes) -> list[tuple[int, int]]:
    """(start, end) byte span of every CSV row (rows may span lines)."""
    text = data.decode("utf-8")
    offsets = [0]
    for line in io.StringIO(text, newline=""):
        offsets.append(offsets[-1] + len(line.encode("utf-8")))
    reader = csv.reader(io.StringIO(text, newline=""))
    spans, prev = [], 0
    for _ in reader:
        end = offsets[min(reader.line_num, len(offsets) - 1)]
        spans.append((prev, end))
        prev = end
    return spans


def _last_line_inside(data: bytes) -> set[int]:
    """Offsets inside the last line (a cut there keeps the number of lines)."""
    spans = _line_spans(data)
    if not spans:
        return set()
    s, e = spans[-1]
    return set(range(s + 1, len(data) + 1))


def _sst_lines_ends(data: bytes) -> set[int]:
    out = _boundaries(data)
    for s, e in _line_spans(data):
        out.update(range(s + 3, e + 1))  # a label, a space, then at least one character of text
    return out


def _conll2003_ends(data: bytes) -> set[int]:
    """Line ends, and cuts of a ``-DOCSTART-`` line after its first field."""
    out = _boundaries(data)
    for s, e in _line_spans(data):
        if data[s:e].startswith(b"-DOCSTART-"):
            out.update(range(s + len(b"-DOCSTART-"), e + 1))
    return out


ENDS: dict[str, Callable[[bytes], set[int]]] = {
    "conll2003": _conll2003_ends,
    "sst_lines": _sst_lines_ends,
    "sst_ptb": _bracket_ends,
    "ptb": _bracket_ends,
    "ptb_member": _bracket_ends,
    "conllu": _conllu_ends,
    "conllu_aligned": _tail,
    "conll12": _block_ends,
    "coref_generic": _block_ends,
    "ontogum": _tail,
    "jsonlines": _boundaries,
    "csv_hatecheck": lambda d: _csv_cuts(d, 12, header=True),  # case_templ: free text, last
    "csv_hatexplain": lambda d: _csv_cuts(d, 4, header=False),  # columns after post_tokens: ignored
    "json_hatexplain": _tail,
    "json_divisions": _tail,
    "json_contrapro": _tail,
    "aligned_text": _last_line_inside,
    "genders": _last_line_inside,
    "zip": _tail,
    "targz": lambda d: set(),
    "arrow": lambda d: set(),
}


def _fields(line: bytes, sep: bytes | None) -> list[tuple[int, int]]:
    """(start, end) of every field of a line: split at ``sep`` (empty fields kept), or at runs of
    spaces and tabs."""
    if sep is None:
        return [(m.start(), m.end()) for m in re.finditer(rb"[^ \t]+", line)]
    out, pos = [], 0
    for part in line.split(sep):
        out.append((pos, pos + len(part)))
        pos += len(part) + len(sep)
    return out


def _column_sites(data: bytes, sep: bytes | None, columns: dict[int, list[str]],
                  skip: Callable[[bytes], bool]) -> list[tuple[int, int, list[str]]]:
    """(start, end, bogus values) of the given columns of every record line."""
    out = []
    for s, e in _line_spans(data):
        line = data[s:e]
        if not line.strip() or skip(line):
            continue
        fields = _fields(line, sep)
        for col, bogus in columns.items():
            k = col if col >= 0 else len(fields) + col
            if 0 <= k < len(fields):
                a, b = fields[k]
                out.append((s + a, s + b, bogus))
    return out


def _is_block_marker(line: bytes) -> bool:
    return line.lstrip().startswith(b"#")


def _label_sites(role: str, data: bytes) -> list[tuple[int, int, list[str]]]:
    """(start, end, bogus values) of the closed-vocabulary fields of a text file."""
    if role == "conll2003":
        return _column_sites(data, None, {-1: ["B-BOGUS", "I-", "B-O", "X-PER", "BOGUS"]},
                             lambda ln: ln.startswith(b"-DOCSTART-"))
    if role == "sst_lines":
        return _column_sites(data, None, {0: ["5", "9", "x", "-1", "01"]}, lambda ln: False)
    if role == "sst_ptb":
        return [(m.start(1), m.end(1), ["5", "X", "-1"]) for m in re.finditer(rb"\((\S+)", data)]
    if role in ("conllu", "conllu_aligned"):
        sites = _column_sites(data, b"\t", {0: ["x", "0"], 1: [""], 3: ["BOGUS", "noun"],
                                           5: ["Case", "=x", "case=Nom"], 6: ["x", "999", "-2"],
                                           7: ["notadeprel", "nsubj:Pass", ""]},
                              lambda ln: ln.startswith(b"#"))
        return [s for s in sites if not (s[2] == ["x", "999", "-2"] and data[s[0]:s[1]] == b"_")]
    if role == "conll12":
        sites = _column_sites(data, None, {2: ["99", "x"], 10: ["(BOGUS)", "(PERSON", "*)"], -1: ["(x", "7)", "((1)"],
                                           5: ["*((", "**", "(*", "*)("]}, _is_block_marker)
        return [s for s in sites if not (s[2][0] in ("(BOGUS)", "*)") and data[s[0]:s[1]] in (b"*", b"-"))]
    if role == "coref_generic":
        return _column_sites(data, None, {-1: ["(x", "7)", "((1)"]}, _is_block_marker)
    if role == "ontogum":
        return _column_sites(data, b"\t", {0: ["x", "99"], -1: ["(x", "7)", "((1)"]}, _is_block_marker)
    if role == "csv_hatecheck":
        out = []
        for s, e in _csv_rows(data)[1:]:
            row = data[s:e]
            for m in re.finditer(rb",(hateful|non-hateful),", row):
                out.append((s + m.start(1), s + m.end(1), ["BOGUS", "hate", ""]))
        return out
    if role == "csv_hatexplain":
        return [(m.start(1), m.end(1), ["3", "-1", "'x'", "1.5"])
                for m in re.finditer(rb"'label': \[(\d)", data)]
    if role == "genders":
        return [(s, e, ["x", "q", "mfn"]) for s, e in _line_spans(data) if e > s]
    return []


#: JSON values replaced by values the format does not allow: (path pattern, bogus values); ``*``
#: is any key or index
JSON_SITES: dict[str, list[tuple[tuple[str, ...], list[Any]]]] = {
    "json_hatexplain": [(("*", "annotators", "*", "label"), ["BOGUS", 5, None]),
                        (("*", "rationales", "*"), [[2, 0, 0, 0], "x", [0]]),
                        (("*", "post_tokens"), [[], 5, [1]]),
                        (("*", "annotators"), [[], "x"]),
                        (("*", "post_id"), [5, ""]),
                        (("*", "annotators", "*", "target"), [5, [1]])],
    "json_divisions": [(("*", "*"), [5, None, ["x"]])],
    "json_contrapro": [(("*", "src segment"), ["", 5, None]), (("*", "ref segment"), ["", 5]),
                       (("*", "errors"), [[], "x"]), (("*", "errors", "*", "contrastive"), ["", 5])],
    "jsonlines": [(("doc_key",), ["", 5]), (("sentences",), [[[]], "x", [["a", 5]]]),
                  (("clusters", "*", "*"), [[5, 2], [0], [0, 10**6], ["a", 0], [0.5, 1]]),
                  (("ner", "*"), [[0, 0, "BOGUS"], [3, 1, "PERSON"]]), (("speakers",), [[["a"]]])],
}


def _json_locations(obj: Any, pattern: tuple[str, ...], prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    if not pattern:
        return [prefix]
    head, rest = pattern[0], pattern[1:]
    keys: list[Any]
    if isinstance(obj, dict):
        keys = list(obj) if head == "*" else [head] if head in obj else []
    elif isinstance(obj, list):
        keys = list(range(len(obj))) if head == "*" else []
    else:
        keys = []
    return [loc for k in keys for loc in _json_locations(obj[k], rest, (*prefix, k))]


def _json_set(obj: Any, loc: tuple[Any, ...], value: Any) -> None:
    for k in loc[:-1]:
        obj = obj[k]
    obj[loc[-1]] = value


#: output paths (``.`` between keys, ``[]`` for list items) whose values are free text or an
#: open tag set, per format: a flip there gives another valid file
OPEN: dict[str, tuple[str, ...]] = {
    "_document": ("id", "sentences[].id", "sentences[].tokens[].text", "sentences[].tokens[].ws",
                  "sentences[].tokens[].lemma", "sentences[].tokens[].tag", "sentences[].tokens[].morph",
                  "sentences[].meta", "meta.source", "meta.text"),
    "conll2003": ("sentences[].meta.chunk",),
    "sst_lines": ("sentences[].tokens",),
    "hatecheck": ("sentences[].tokens", "meta", "id"),
    "hatexplain_json": ("meta.annotators[].annotator_id", "meta.targets", "meta.targets_all",
                        "meta.annotators[].target"),
    "hatexplain_csv": ("meta.annotators[].annotator_id", "meta.targets", "meta.targets_all",
                       "meta.annotators[].target"),
    "ptb": ("sentences[].tree[]",),
    "ptb_sample": ("sentences[].tree[]",),
    "conll2012": ("sentences[].tree[]", "clusters[].id"),
    "conll_coref": ("clusters[].id",),
    "ontogum": ("clusters[].id",),
    "jsonlines": ("clusters[].id",),
    "conllu": ("sentences[].tokens[].dep",),
    "contrapro_json": ("src", "ref", "contrastive[]", "src_context", "ref_context", "meta"),
    "contrapro_grouped": ("src", "ref", "contrastive[]", "src_context", "ref_context", "meta"),
    "contracat": ("src", "ref", "contrastive[]", "src_context", "ref_context", "meta.candidates"),
    "checklist": ("source", "followup", "meta.description", "meta.capability"),
    "hf_conll2003": (),
    "hf_conll2012": ("sentences[].tree[]",),
}
#: formats with one record per line and no column structure: a flipped line end merges or splits
#: records into other valid records
LINE_RECORDS = ("sst_lines", "contrapro_grouped", "contracat", "contrapro_json", "conll_coref")


#: output paths derived from other values of the same record (entity spans from IOB tags, the
#: majority label from the annotators' labels...): a change there follows a change elsewhere
DERIVED: dict[str, tuple[str, ...]] = {
    "conll2003": ("entities",),
    "conll2012": ("sentences[].tokens[].ent",),
    "sst_lines": ("meta.binary", "meta.fine_name", "sentences[].label"),
    "sst_ptb": ("meta.binary", "meta.fine_name", "sentences[].label", "label"),
    "hatexplain_json": ("label", "sentences[].label", "meta.undecided", "meta.rationale", "meta.targets",
                        "meta.targets_all"),
    "hatexplain_csv": ("label", "sentences[].label", "meta.undecided", "meta.rationale", "meta.targets",
                       "meta.targets_all"),
    "contracat": ("ref", "contrastive[]", "ref_context", "meta.gold"),
    "checklist": ("expected",),
}


def _vocab() -> dict[str, dict[str, set[Any]]]:
    from lingtest.readers.conllu import UPOS_TAGS
    from lingtest.readers.hatexplain import LABELS as HATEXPLAIN_LABELS

    ner = {"O"} | {f"{p}-{t}" for p in "BI" for t in ("PER", "LOC", "ORG", "MISC")}
    fine = {str(i) for i in range(5)}
    return {
        "conll2003": {"sentences[].tokens[].ent": ner},
        "sst_lines": {"label": fine | {"negative", "positive"}},
        "conllu": {"sentences[].tokens[].pos": set(UPOS_TAGS)},
        "hatexplain_json": {"meta.annotators[].label": set(HATEXPLAIN_LABELS)},
        "hatexplain_csv": {"meta.annotators[].label": set(HATEXPLAIN_LABELS)},
        "contracat": {"meta.gender": {"m", "f", "n", "", "mf", "fm", "mn", "nm", "fn", "nf"}},
    }


def _leaves(x: Any, path: str = "") -> Iterator[tuple[str, Any]]:
    if isinstance(x, dict):
        for k in sorted(x):
            yield from _leaves(x[k], f"{path}.{k}" if path else k)
    elif isinstance(x, list):
        for v in x:
            yield from _leaves(v, f"{path}[]")
    else:
        yield path, x


def _mask(x: Any, hidden: tuple[str, ...], path: str = "") -> Any:
    """``x`` without the values at ``hidden`` paths (a hidden list item becomes a placeholder)."""
    if isinstance(x, dict):
        return {k: _mask(v, hidden, p) for k, v in x.items() if (p := f"{path}.{k}" if path else k) not in hidden}
    if isinstance(x, list):
        p = f"{path}[]"
        return ["<open>" if p in hidden else _mask(v, hidden, p) for v in x]
    return x


def flip_is_undetectable(fmt: str, valid: list[Any], got: list[Any]) -> bool:
    """Whether records ``got`` differ from ``valid`` only in free text or open tag sets (and what
    is derived from them), or by a value of a closed set turned into another value of that set
    (a label the valid records use at the same place, or one of :func:`_vocab`)."""
    hidden = OPEN.get(fmt, ()) + DERIVED.get(fmt, ()) + (
        OPEN["_document"] if not fmt.startswith(("contra", "checklist")) else ())
    mv, mg = [_mask(r, hidden) for r in valid], [_mask(r, hidden) for r in got]
    if mv == mg:
        return True
    lv = [leaf for r in mv for leaf in _leaves(r)]
    lg = [leaf for r in mg for leaf in _leaves(r)]
    if [p for p, _ in lv] != [p for p, _ in lg]:
        return False
    allowed: dict[str, set[str]] = defaultdict(set)
    for p, v in lv:
        allowed[p].add(json.dumps(v))
    for p, values in _vocab().get(fmt, {}).items():
        allowed[p].update(json.dumps(v) for v in values)
    return all(json.dumps(g) in allowed[p] for (p, v), (_, g) in zip(lv, lg, strict=True) if v != g)


# --------------------------------------------------------------------------------------------
# mutations: (class, file bytes, rng) -> (mutated bytes, what, extra read options, info)
# --------------------------------------------------------------------------------------------
@dataclass
class Mutant:
    cls: str
    target: Path
    role: str
    what: str
    data: bytes
    options: dict[str, Any] = field(default_factory=dict)
    legit_end: bool = False  # a truncation where a valid file may end
    line_end_flip: bool = False  # a flip that made or removed a line end
    digit_flip: bool = False  # a flip of a digit into another digit
    comment_flip: bool = False  # a flip inside a CoNLL-U comment (free text, but for # newdoc and # sent_id)
    word_flip: bool = False  # a Penn tree's label or word turned into another (open tag set, free text)
    line: int | None = None  # the line an oversize mutant made too long


def _random_line(rng: random.Random, data: bytes) -> tuple[int, int] | None:
    spans = [s for s in _line_spans(data) if data[s[0]:s[1]].strip()]
    return rng.choice(spans) if spans else None


def _columns(rng: random.Random, role: str, data: bytes) -> tuple[bytes, str] | None:
    if role in ("csv_hatecheck", "csv_hatexplain"):
        rows = _csv_rows(data)[1 if role == "csv_hatecheck" else 0:]
        s, e = rng.choice(rows)
        raw = data[s:e]
        ending = raw[len(raw.rstrip(b"\r\n")):]
        row = next(csv.reader(io.StringIO(raw.decode("utf-8"), newline="")))
        kind = rng.choice(["drop", "add", "dup"])
        k = rng.randrange(len(row))
        if kind == "drop":
            del row[k]
        elif kind == "add":
            row.insert(k, "x")
        else:
            row.insert(k, row[k])
        buf = io.StringIO()
        csv.writer(buf, lineterminator="").writerow(row)
        return data[:s] + buf.getvalue().encode("utf-8") + ending + data[e:], f"{kind} field {k} of a row"
    sep = {"conllu": b"\t", "conllu_aligned": b"\t", "ontogum": b"\t"}.get(role)
    skip = {"conllu": lambda ln: ln.startswith(b"#"), "conllu_aligned": lambda ln: ln.startswith(b"#"),
            "conll2003": lambda ln: ln.startswith(b"-DOCSTART-")}.get(role, _is_block_marker)
    lines = [sp for sp in _line_spans(data) if data[sp[0]:sp[1]].strip() and not skip(data[sp[0]:sp[1]])]
    if not lines:
        return None
    s, e = rng.choice(lines)
    line = data[s:e]
    fields = line.split(sep) if sep is not None else line.split()
    joiner = sep if sep is not None else (b"\t" if b"\t" in line else b" ")
    kinds = ["drop", "add", "dup"] + (["empty"] if sep is not None else [])
    kind = rng.choice(kinds)
    k = rng.randrange(len(fields))
    if kind == "drop":
        del fields[k]
    elif kind == "add":
        fields.insert(k, b"x")
    elif kind == "dup":
        fields.insert(k, fields[k])
    else:
        fields[k] = b""
    return data[:s] + joiner.join(fields) + data[e:], f"{kind} field {k} of line {_line_of(data, s)}"


def _label(rng: random.Random, role: str, data: bytes) -> tuple[bytes, str] | None:
    if role in JSON_SITES:
        if role == "jsonlines":
            spans = [sp for sp in _line_spans(data) if data[sp[0]:sp[1]].strip()]
            s, e = rng.choice(spans)
            obj = json.loads(data[s:e])
            options = [(pat, loc) for pat, _ in JSON_SITES[role] for loc in _json_locations(obj, pat)]
            pat, loc = rng.choice(options)
            bogus = rng.choice(dict(JSON_SITES[role])[pat])
            _json_set(obj, loc, bogus)
            return data[:s] + json.dumps(obj).encode() + data[e:], f"{'/'.join(map(str, loc))} = {bogus!r}"
        obj = json.loads(data)
        options = [(pat, loc) for pat, _ in JSON_SITES[role] for loc in _json_locations(obj, pat)]
        pat, loc = rng.choice(options)
        bogus = rng.choice(dict(JSON_SITES[role])[pat])
        _json_set(obj, loc, bogus)
        return json.dumps(obj, indent=2, ensure_ascii=False).encode(), f"{'/'.join(map(str, loc))} = {bogus!r}"
    sites = _label_sites(role, data)
    if not sites:
        return None
    s, e, bogus = rng.choice(sites)
    value = rng.choice(bogus).encode()
    return data[:s] + value + data[e:], f"{data[s:e]!r} -> {value!r} at line {_line_of(data, s)}"


def _brackets(rng: random.Random, data: bytes) -> tuple[bytes, str] | None:
    positions = [i for i, b in enumerate(data) if b in (0x28, 0x29)]
    if not positions:
        return None
    if rng.random() < 0.5:
        i = rng.choice(positions)
        return data[:i] + data[i + 1:], f"bracket at byte {i} removed"
    i = rng.choice(positions)
    b = rng.choice([b"(", b")"])
    return data[:i] + b + data[i:], f"{b.decode()} inserted at byte {i}"


_TREE_SYNTAX = frozenset(b"() \t\r\n")


def mutate(rng: random.Random, cls: str, target: Path, role: str, data: bytes) -> Mutant | None:
    """One mutant of class ``cls`` of the file ``target`` (``data``), or ``None`` when the class
    does not apply to its layout."""
    text = role not in BINARY_ROLES
    n = len(data)
    if cls == "truncate":
        k = rng.randrange(1, n)
        ends = ENDS[role](data)
        return Mutant(cls, target, role, f"cut at byte {k} of {n}", data[:k], legit_end=k in ends)
    if cls == "nul":
        k = rng.randrange(n + 1)
        if rng.random() < 0.5:
            return Mutant(cls, target, role, f"NUL inserted at byte {k}", data[:k] + b"\x00" + data[k:])
        k = min(k, max(n - 16, 0))
        return Mutant(cls, target, role, f"16 bytes zeroed at byte {k}", data[:k] + bytes(16) + data[k + 16:])
    if cls == "flip":
        k = rng.randrange(n)
        new = rng.choice([b for b in range(256) if b != data[k]])
        crlf = (0x0A, 0x0D)
        return Mutant(cls, target, role, f"byte {k} {data[k]:#04x} -> {new:#04x}",
                      data[:k] + bytes([new]) + data[k + 1:], line_end_flip=data[k] in crlf or new in crlf,
                      digit_flip=chr(data[k]).isdigit() and chr(new).isdigit(),
                      comment_flip=role.startswith("conllu") and data[data.rfind(b"\n", 0, k) + 1:][:1] == b"#",
                      word_flip=role in ("ptb", "ptb_member") and _TREE_SYNTAX.isdisjoint((data[k], new)))
    if not text:
        return None
    if cls == "bad_utf8":
        k = rng.randrange(n + 1)
        seq = rng.choice([b"\xff", b"\x80", b"\xc3(", b"\xe2\x28\xa1", b"\xed\xa0\x80", b"\xf8\x88\x80\x80\x80"])
        return Mutant(cls, target, role, f"{seq!r} inserted at byte {k}", data[:k] + seq + data[k:])
    if cls == "encoding":
        textual = data.decode("utf-8")
        if rng.random() < 0.5:
            return Mutant(cls, target, role, "UTF-16", textual.encode("utf-16"))
        letters = [m.start() for m in re.finditer(r"[A-Za-z]", textual)]
        if letters:
            i = rng.choice(letters)
            textual = textual[:i] + "\u00e9" + textual[i + 1:]
        return Mutant(cls, target, role, "Latin-1 with an e-acute", textual.encode("latin-1", errors="replace"))
    if cls == "columns":
        if role not in ("conll2003", "conllu", "conllu_aligned", "conll12", "coref_generic", "ontogum",
                        "csv_hatecheck", "csv_hatexplain"):
            return None
        got = _columns(rng, role, data)
        return None if got is None else Mutant(cls, target, role, got[1], got[0])
    if cls == "label":
        got = _label(rng, role, data)
        return None if got is None else Mutant(cls, target, role, got[1], got[0])
    if cls == "brackets":
        if role not in ("ptb", "sst_ptb", "ptb_member"):
            return None
        got = _brackets(rng, data)
        return None if got is None else Mutant(cls, target, role, got[1], got[0])
    if cls == "oversize":
        if rng.random() < 0.25 and role not in ("zip", *MEMBER_ROLES):
            return Mutant(cls, target, role, f"file over max_file_bytes ({n - 1})", data, {"max_file_bytes": n - 1})
        span = _random_line(rng, data)
        if span is None:
            return None
        s, e = span
        k = rng.randrange(s, e + 1)
        line = _line_of(data, s)
        return Mutant(cls, target, role, f"{LINE_CAP + 1} bytes inserted in line {line}",
                      data[:k] + b"x" * (LINE_CAP + 1) + data[k:], {"max_line_bytes": LINE_CAP}, line=line)
    raise ValueError(f"unknown mutation class {cls!r}")


def _zip_members(path: Path) -> list[tuple[zipfile.ZipInfo, bytes]]:
    with zipfile.ZipFile(path) as zf:
        return [(i, zf.read(i)) for i in zf.infolist()]


def _write_zip(members: list[tuple[zipfile.ZipInfo, bytes]]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for info, data in members:
            zf.writestr(info, data)
    return buf.getvalue()


def mutate_case(rng: random.Random, case: Case, cls: str) -> Mutant | None:
    """A mutant of class ``cls`` of one file of ``case`` (a zip's members count as text files)."""
    target, role = rng.choice(case.targets)
    data = target.read_bytes()
    if role == "zip" and cls not in ("truncate", "nul", "flip") or role == "zip" and rng.random() < 0.5:
        members = _zip_members(target)
        idx = [i for i, (info, _) in enumerate(members) if info.filename.endswith(".mrg")]
        i = rng.choice(idx)
        info, text = members[i]
        m = mutate(rng, cls, target, case.member_role, text)
        if m is None:
            return None
        members[i] = (info, m.data)
        m.data, m.role, m.what = _write_zip(members), "zip", f"{m.what} in member {info.filename}"
        return m
    if role == "targz" and cls == "label":
        blob = rng.choice([checklist_pickle(labels=(2, 7)), checklist_pickle(test_type="BOGUS"),
                           checklist_pickle(labels=(2.5, 0)), checklist_pickle(data=("good", 5)),
                           checklist_pickle(labels=(True, 0))])
        buf = io.BytesIO()
        with tarfile.open(fileobj=buf, mode="w:gz") as tar:
            entry = tarfile.TarInfo("sentiment_suite.pkl")
            entry.size = len(blob)
            tar.addfile(entry, io.BytesIO(blob))
        return Mutant(cls, target, role, "a suite with a bad label, type or case", buf.getvalue())
    return mutate(rng, cls, target, role, data)


# --------------------------------------------------------------------------------------------
# reading a mutant
# --------------------------------------------------------------------------------------------
_NO_LINE = re.compile(r"max_file_bytes|the (?:input|file) is empty|holds no|no '#begin document'|is not a multiple")
FIELD_ROLES = ("conll2003", "sst_lines", "sst_ptb", "conllu", "conllu_aligned", "conll12", "csv_hatecheck",
               "csv_hatexplain", "json_hatexplain", "json_contrapro", "jsonlines", "genders", "targz")


def where_missing(exc: InputError, m: Mutant) -> str | None:
    """What a clean error about mutant ``m`` should name and ``exc`` does not, or ``None``."""
    if not exc.path:
        return "no file"
    text = m.role not in ("targz", "arrow") and not (m.role == "zip" and " in member " not in m.what)
    if text and exc.line is None and not _NO_LINE.search(exc.reason):
        return "no line"
    if m.cls == "oversize" and m.line is not None and exc.line != m.line and "max_line_bytes" in exc.reason:
        return f"line {exc.line} instead of {m.line}"
    if m.cls == "label" and m.role in FIELD_ROLES and exc.field is None:
        return "no field"
    return None


@dataclass
class Result:
    fmt: str
    cls: str
    what: str
    outcome: str
    detail: str = ""


def run_mutant(case: Case, m: Mutant) -> Result:
    """Read ``case`` with ``m`` written in place of its file (restored afterwards)."""
    assert case.valid is not None
    original = m.target.read_bytes()
    m.target.write_bytes(m.data)
    where = f"{m.target.name}: {m.what}"
    try:
        try:
            got = case.read(**m.options)
        except InputError as exc:
            missing = where_missing(exc, m)
            if missing is None:
                return Result(case.fmt, m.cls, where, "error", str(exc)[:200])
            return Result(case.fmt, m.cls, where, "unlocated", f"{missing}: {str(exc)[:200]}")
        except Exception as exc:  # noqa: BLE001 - the outcome under test
            return Result(case.fmt, m.cls, where, "crash", f"{type(exc).__name__}: {str(exc)[:200]}")
    finally:
        m.target.write_bytes(original)
    if got == case.valid:
        return Result(case.fmt, m.cls, where, "same")
    if m.cls == "truncate" and m.legit_end:
        return Result(case.fmt, m.cls, where, "undetectable", "cut where a valid file may end")
    flip = m.cls == "flip" or m.cls == "nul" and m.role in ("arrow", "targz") or (
        m.cls == "nul" and m.role == "zip" and " in member " not in m.what)
    if flip and m.word_flip:
        return Result(case.fmt, m.cls, where, "undetectable", "a label or word of a Penn tree changed")
    if flip and m.comment_flip:
        return Result(case.fmt, m.cls, where, "undetectable", "a comment changed")
    if m.cls == "flip" and m.digit_flip:
        return Result(case.fmt, m.cls, where, "undetectable", "a number turned into another number")
    if m.cls == "flip" and m.line_end_flip and case.fmt in LINE_RECORDS:
        return Result(case.fmt, m.cls, where, "undetectable", "records of a line format merged or split")
    if flip and m.role == "arrow":
        return Result(case.fmt, m.cls, where, "undetectable", "Arrow files have no checksum: another valid table")
    if flip and flip_is_undetectable(case.fmt, case.valid, got):
        return Result(case.fmt, m.cls, where, "undetectable", "another valid file")
    return Result(case.fmt, m.cls, where, "silent", json.dumps(got)[:300])


def run_case(case: Case, per_class: int, seed: str) -> list[Result]:
    """``per_class`` mutants of every applicable class of ``case``, each read once."""
    if case.valid is None:
        case.valid = case.read()
    results = []
    for cls in CLASSES:
        for i in range(per_class):
            rng = random.Random(f"{seed}/{case.fmt}/{case.path.name}/{cls}/{i}")
            m = None
            for _ in range(4):  # a target whose layout the class does not apply to: try another
                m = mutate_case(rng, case, cls)
                if m is not None:
                    break
            if m is None:
                break
            results.append(run_mutant(case, m))
    return results


def summary(results: list[Result]) -> dict[str, Any]:
    """Counts per outcome, the share of clean outcomes (over all mutants, and over the mutants a
    reader can detect: all but the undetectable ones), per class and per format."""
    def counts(rs: list[Result]) -> dict[str, Any]:
        c = {o: sum(r.outcome == o for r in rs) for o in OUTCOMES}
        clean = c["error"] + c["same"]
        detectable = len(rs) - c["undetectable"]
        return {"mutants": len(rs), **c, "clean": clean,
                "share_clean": round(clean / len(rs), 4) if rs else None,
                "share_clean_detectable": round(clean / detectable, 4) if detectable else None}

    by: dict[str, dict[str, list[Result]]] = {"class": defaultdict(list), "format": defaultdict(list)}
    for r in results:
        by["class"][r.cls].append(r)
        by["format"][r.fmt].append(r)
    return {**counts(results), "by_class": {k: counts(v) for k, v in sorted(by["class"].items())},
            "by_format": {k: counts(v) for k, v in sorted(by["format"].items())}}
