"""Fuzzing every reader in ``lingtest.readers.READERS`` (issue 10 §3).

For each reader a valid seed input is built from the fixtures, then seeded mutants of it are
read: truncations, wrong encodings, byte order marks, missing, extra and duplicated columns and
lines, bad brackets and labels, wrong JSON types, deep nesting, empty files, directories where
files are expected, corrupt archives and saved datasets. The property: reading a mutant either
succeeds, with records that serialise to JSON, or raises :class:`~lingtest.errors.InputError`
naming where; any other exception fails the test,
naming the reader, the mutation and the seed to replay it. The scoring fast path
(``read_coref_records``) and the hub record converters are fuzzed too. Deterministic
(``random.Random`` seeded per reader and mutant); about 20 s on one core
(``LINGTEST_FUZZ_MUTANTS=1000`` for a deeper run).
"""

from __future__ import annotations

import atexit
import io
import json
import os
import pickle
import random
import shutil
import subprocess
import sys
import tarfile
import tempfile
import traceback
import types
import warnings
import zipfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from lingtest.errors import InputError
from lingtest.readers import READERS
from lingtest.readers.conll2003 import from_hf_conll2003
from lingtest.readers.conll_coref import read_coref_records
from lingtest.readers.hf import from_hf_conll2012
from lingtest.readers.options import configured

FX = Path(__file__).resolve().parents[1] / "fixtures"
MUTANTS = int(os.environ.get("LINGTEST_FUZZ_MUTANTS", "48"))  # per reader; raise it for a deeper run


# --------------------------------------------------------------------------------------------
# seeds: a valid input per reader, built in a fresh folder
# --------------------------------------------------------------------------------------------
@dataclass
class Seed:
    path: Path  # what the reader is called with
    targets: list[Path]  # files a mutation may change
    options: dict[str, Any] = field(default_factory=dict)
    binary: bool = False


def _copy(src: Path, dst: Path) -> Path:
    if src.is_dir():
        shutil.copytree(src, dst)
    else:
        dst.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(src, dst)
    return dst


def _checklist_pickle() -> bytes:
    """A small suite with the released structure: ``checklist.*`` classes by reference."""
    mods = {n: types.ModuleType(n) for n in ("checklist", "checklist.test_suite", "checklist.test_types")}
    saved = {n: sys.modules.get(n) for n in mods}
    sys.modules.update(mods)
    try:

        def cls(module: str, name: str) -> type:
            c = type(name, (), {})
            c.__module__, c.__qualname__ = module, name
            setattr(mods[module], name, c)
            return c

        suite_cls, mft, inv = (
            cls("checklist.test_suite", "TestSuite"),
            cls("checklist.test_types", "MFT"),
            cls("checklist.test_types", "INV"),
        )
        t1, t2 = mft(), inv()
        t1.__dict__.update(data=["good", "bad"], labels=[2, 0], capability="Vocabulary", description="")
        t2.__dict__.update(data=[["I like it.", "I lkie it."]], labels=None, capability="Robustness")
        suite = suite_cls()
        suite.__dict__.update(
            tests={"words": t1, "typos": t2}, info={"words": {"type": "MFT"}, "typos": {"type": "INV"}}
        )
        return pickle.dumps(suite, protocol=3)
    finally:
        for n, m in saved.items():
            if m is None:
                sys.modules.pop(n, None)
            else:
                sys.modules[n] = m


_HF_CACHE: dict[str, Path] = {}


#: one ``conll2012_ontonotesv5`` sentence record (the saved hub dataset's first, the record fuzz's seed)
HF_SENTENCE = {
    "part_id": 0,
    "words": ["John", "runs"],
    "pos_tags": [2, 1],
    "parse_tree": "(TOP (S (NNP John) (VB runs)))",
    "speaker": "A",
    "named_entities": [1, 0],
    "coref_spans": [[1, 0, 0]],
}


def _hf_saved(root: Path, kind: str) -> Path:
    """A tiny saved hub dataset (built once per process, then copied)."""
    cached = _HF_CACHE.get(kind)
    if cached is not None and cached.is_dir():
        return _copy(cached, root / kind)
    import datasets
    from datasets import ClassLabel, Dataset, Features, List, Value

    datasets.disable_progress_bars()

    if kind == "hf_conll2003":
        features = Features(
            {
                "id": Value("string"),
                "tokens": List(Value("string")),
                "ner_tags": List(ClassLabel(names=["O", "B-PER", "I-PER"])),
            }
        )
        rows = [
            {"id": "0", "tokens": ["John", "runs"], "ner_tags": [1, 0]},
            {"id": "1", "tokens": ["Mary"], "ner_tags": [1]},
        ]
    else:
        features = Features(
            {
                "document_id": Value("string"),
                "sentences": List(
                    {
                        "part_id": Value("int32"),
                        "words": List(Value("string")),
                        "pos_tags": List(ClassLabel(names=["NN", "VB", "NNP"])),
                        "parse_tree": Value("string"),
                        "speaker": Value("string"),
                        "named_entities": List(ClassLabel(names=["O", "B-PERSON", "I-PERSON"])),
                        "coref_spans": List(List(Value("int32"))),
                    }
                ),
            }
        )
        rows = [
            {
                "document_id": "d",
                "sentences": [
                    HF_SENTENCE,
                    {
                        "part_id": 0,
                        "words": ["He", "runs"],
                        "pos_tags": [0, 1],
                        "parse_tree": "(TOP (S (NN He) (VB runs)))",
                        "speaker": "A",
                        "named_entities": [0, 0],
                        "coref_spans": [[1, 0, 0]],
                    },
                ],
            }
        ]
    tmp = tempfile.mkdtemp(prefix="lingtest-fuzz-hf-")
    atexit.register(shutil.rmtree, tmp, True)
    out = Path(tmp) / kind
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        Dataset.from_list(rows, features=features).save_to_disk(str(out))
    _HF_CACHE[kind] = out
    return _copy(out, root / kind)


def _single_file_seeds() -> dict[str, tuple[Path, str, dict[str, Any]]]:
    """Readers seeded with one fixture file: name -> (fixture, name of the copy, options)."""
    c, r, t = FX / "coref", FX / "readers", FX / "parsing"
    conll2012 = (c / "sample.v4_gold_conll", "sample.v4_gold_conll", {})
    return {
        "conll2012": conll2012,
        "coref_records": conll2012,
        "conll_coref": (c / "generic.conll", "generic.conll", {}),
        "jsonlines": (c / "sample.jsonlines", "sample.jsonlines", {}),
        "conll2003": (r / "conll2003_iob1.txt", "train.txt", {}),
        "sst_ptb": (r / "sst_trees.txt", "train.txt", {}),
        "sst_lines": (r / "stsa.fine.sample", "stsa.fine.sample", {}),
        "hatecheck": (r / "hatecheck_cases.csv", "cases.csv", {"tokenizer": "whitespace"}),
        "ptb": (t / "two_trees.ptb", "two_trees.ptb", {}),
        "conllu": (t / "sample.conllu", "sample.conllu", {}),
    }


def make_seed(name: str, root: Path) -> Seed:
    root.mkdir(parents=True, exist_ok=True)
    c, r = FX / "coref", FX / "readers"
    single = _single_file_seeds().get(name)
    if single is not None:
        src, copy_name, options = single
        p = _copy(src, root / copy_name)
        return Seed(p, [p], dict(options))
    if name == "ontogum":
        p = _copy(c / "GUM_test_tiny.conll", root / "GUM_test_tiny.conll")
        dep = _copy(c / "dep", root / "dep")
        return Seed(p, [p, dep / "GUM_test_tiny.conllu"], {"conllu_dir": dep})
    if name == "hatexplain_json":
        d = _copy(r / "hatexplain", root / "hatexplain")
        return Seed(
            d / "dataset.json", [d / "dataset.json", d / "post_id_divisions.json"], {"split": "train"}
        )
    if name == "hatexplain_csv":
        d = _copy(r / "hatexplain", root / "hatexplain")
        return Seed(
            d / "sample.csv",
            [d / "sample.csv", d / "post_id_divisions.json"],
            {"divisions": d / "post_id_divisions.json"},
        )
    if name == "contrapro_json":
        d = _copy(r / "contrapro", root / "contrapro")
        return Seed(
            d / "contrapro.json",
            [d / "contrapro.json", d / "ctx" / "contrapro.context.en"],
            {"context_dir": d / "ctx"},
        )
    if name == "contrapro_grouped":
        d = _copy(r / "contrapro" / "grouped", root / "grouped")
        return Seed(d, sorted(d.iterdir()))
    if name == "contracat":
        d = _copy(r / "contracat" / "templates", root / "templates")
        return Seed(d, sorted(p for p in d.rglob("*") if p.is_file()), {"include_priors": True})
    if name == "checklist":
        blob = _checklist_pickle()
        p = root / "sentiment_suite.tar.gz"
        with tarfile.open(p, "w:gz") as tar:
            info = tarfile.TarInfo("sentiment_suite.pkl")
            info.size = len(blob)
            tar.addfile(info, io.BytesIO(blob))
        return Seed(p, [p], binary=True)
    if name == "ptb_sample":
        p = root / "treebank.zip"
        with zipfile.ZipFile(p, "w") as zf:
            zf.write(FX / "parsing" / "traces.mrg", "treebank/combined/wsj_0001.mrg")
            zf.write(FX / "parsing" / "two_trees.ptb", "treebank/combined/wsj_0002.mrg")
        return Seed(p, [p], binary=True)
    if name in ("hf_conll2003", "hf_conll2012"):
        d = _hf_saved(root, name)
        return Seed(d, sorted(d.iterdir()), binary=True)
    raise AssertionError(f"no fuzz seed for reader {name!r}: add one to make_seed")


# --------------------------------------------------------------------------------------------
# mutations: bytes -> bytes (None: the file becomes a directory; b"" an empty file)
# --------------------------------------------------------------------------------------------
LABELS = [
    "B-BOGUS",
    "B-O",
    "I-",
    "+1",
    "\u0661",
    "\uff11",
    "-1",
    "99999999999999999999",
    "NaN",
    "true",
    "null",
    "1.5",
    "",
    '"',
    "'",
    "(",
    ")",
    "|",
    "_",
    "-",
    "#begin document (x)",
    "#end document",
    "-DOCSTART-",
    "<SEP>",
    "(1",
    "1)",
    "(2)",
    "(GPE*",
    "*)",
    "(TOP*",
    "0",
    "5",
]
ODD_JSON: list[Any] = [None, 5, -1, 1.5, True, "x", "", [], {}, [[1]], [["a"]], {"a": 1}, 10**30, [0, 0.5]]


def _lines(data: bytes) -> list[bytes]:
    return data.split(b"\n")


def _fields(line: bytes) -> tuple[list[bytes], bytes]:
    for sep in (b"\t", b",", b" "):
        if sep in line:
            return line.split(sep), sep
    return [line], b" "


def m_truncate(rng: random.Random, data: bytes) -> bytes:
    return data[: rng.randrange(max(len(data), 1))]


def m_drop_line(rng: random.Random, data: bytes) -> bytes:
    ls = _lines(data)
    del ls[rng.randrange(len(ls))]
    return b"\n".join(ls)


def m_dup_line(rng: random.Random, data: bytes) -> bytes:
    ls = _lines(data)
    i = rng.randrange(len(ls))
    ls.insert(i, ls[i])
    return b"\n".join(ls)


def m_swap_lines(rng: random.Random, data: bytes) -> bytes:
    ls = _lines(data)
    i, j = rng.randrange(len(ls)), rng.randrange(len(ls))
    ls[i], ls[j] = ls[j], ls[i]
    return b"\n".join(ls)


def m_columns(rng: random.Random, data: bytes) -> bytes:
    """Drop, duplicate or add a field on one line, or drop the last field of every line."""
    ls = _lines(data)
    kind = rng.choice(["drop", "dup", "add", "drop_last_everywhere", "dup_first_everywhere"])
    if kind.endswith("everywhere"):
        out = []
        for ln in ls:
            fs, sep = _fields(ln)
            if len(fs) > 1:
                fs = fs[:-1] if kind == "drop_last_everywhere" else [fs[0], *fs]
            out.append(sep.join(fs))
        return b"\n".join(out)
    i = rng.randrange(len(ls))
    fs, sep = _fields(ls[i])
    k = rng.randrange(len(fs))
    if kind == "drop":
        del fs[k]
    elif kind == "dup":
        fs.insert(k, fs[k])
    else:
        fs.insert(k, rng.choice(LABELS).encode())
    ls[i] = sep.join(fs)
    return b"\n".join(ls)


def m_label(rng: random.Random, data: bytes) -> bytes:
    """Replace one field of one line by an odd label."""
    ls = _lines(data)
    i = rng.randrange(len(ls))
    fs, sep = _fields(ls[i])
    fs[rng.randrange(len(fs))] = rng.choice(LABELS).encode()
    ls[i] = sep.join(fs)
    return b"\n".join(ls)


def m_bytes(rng: random.Random, data: bytes) -> bytes:
    """Insert invalid UTF-8, a NUL, a stray bracket or quote, or a BOM somewhere."""
    ins = rng.choice(
        [
            b"\xff\xfe",
            b"\x80",
            b"\xc3",
            b"\x00",
            b"(",
            b")",
            b"[",
            b"]",
            b"{",
            b"}",
            b'"',
            b"\t",
            b"\r",
            b"\xef\xbb\xbf",
            b"\xe2\x80\xa8",
        ]
    )
    k = rng.randrange(len(data) + 1)
    return data[:k] + ins + data[k:]


def m_encoding(rng: random.Random, data: bytes) -> bytes:
    text = data.decode("utf-8", errors="replace") + rng.choice(["", " caf\u00e9", " \u00fc\u00df"])
    kind = rng.choice(["latin-1", "utf-16", "bom", "crlf", "cr"])
    if kind == "bom":
        return b"\xef\xbb\xbf" + data
    if kind == "crlf":
        return data.replace(b"\n", b"\r\n")
    if kind == "cr":
        return data.replace(b"\n", b"\r")
    return text.encode(kind, errors="replace")


def m_nesting(rng: random.Random, data: bytes) -> bytes:
    n = rng.choice([300, 5_000, 60_000])  # beyond Python's recursion limit and json's
    o, c = rng.choice([(b"(", b")"), (b"[", b"]"), (b'{"a":', b"}"), (b"(2 ", b")"), (b"(S ", b")")])
    k = rng.randrange(len(data) + 1)
    return data[:k] + o * n + b"x" + c * n + data[k:]


def m_json(rng: random.Random, data: bytes) -> bytes:
    """Replace one value of a JSON document (or of one JSON line) by a value of another type."""

    def mutate(obj: Any) -> Any:
        if isinstance(obj, dict) and obj and rng.random() < 0.8:
            key = rng.choice(list(obj))
            return {**obj, key: mutate(obj[key])}
        if isinstance(obj, list) and obj and rng.random() < 0.8:
            i = rng.randrange(len(obj))
            return [*obj[:i], mutate(obj[i]), *obj[i + 1 :]]
        return rng.choice(ODD_JSON)

    try:
        return json.dumps(mutate(json.loads(data))).encode()
    except (ValueError, UnicodeDecodeError):
        pass
    ls = _lines(data)
    idx = [i for i, ln in enumerate(ls) if ln.strip().startswith(b"{")]
    if not idx:
        return m_label(rng, data)
    i = rng.choice(idx)
    ls[i] = json.dumps(mutate(json.loads(ls[i]))).encode()
    return b"\n".join(ls)


def m_flip(rng: random.Random, data: bytes) -> bytes:
    b = bytearray(data)
    for _ in range(rng.randint(1, 8)):
        if b:
            b[rng.randrange(len(b))] = rng.randrange(256)
    return bytes(b)


def m_zero_block(rng: random.Random, data: bytes) -> bytes:
    k = rng.randrange(max(len(data), 1))
    return data[:k] + bytes(min(512, len(data) - k)) + data[k + 512 :]


def m_empty(rng: random.Random, data: bytes) -> bytes:
    return rng.choice([b"", b"\n", b"\n \n\t\n"])


def m_directory(rng: random.Random, data: bytes) -> None:
    return None


TEXT_OPS: list[Callable[[random.Random, bytes], bytes | None]] = [
    m_truncate,
    m_drop_line,
    m_dup_line,
    m_swap_lines,
    m_columns,
    m_columns,
    m_label,
    m_label,
    m_bytes,
    m_encoding,
    m_nesting,
    m_json,
    m_empty,
    m_directory,
]
BINARY_OPS: list[Callable[[random.Random, bytes], bytes | None]] = [
    m_truncate,
    m_truncate,
    m_flip,
    m_flip,
    m_zero_block,
    m_empty,
    m_directory,
    m_json,
]


def _mutate_zip(rng: random.Random, path: Path) -> str:
    """Mutate one member's text inside a zip (the archive itself stays valid)."""
    with zipfile.ZipFile(path) as zf:
        members = {n: zf.read(n) for n in zf.namelist()}
    name = rng.choice(sorted(members))
    op = rng.choice([o for o in TEXT_OPS if o is not m_directory])
    members[name] = op(rng, members[name]) or b""
    with zipfile.ZipFile(path, "w") as zf:
        for n, d in members.items():
            zf.writestr(n, d)
    return f"{op.__name__} in member {name}"


def apply_mutation(rng: random.Random, seed: Seed) -> str:
    target = rng.choice(seed.targets)
    if target.suffix == ".zip" and rng.random() < 0.5:
        return _mutate_zip(rng, target)
    is_text = not seed.binary or target.suffix == ".json"
    op = rng.choice(TEXT_OPS if is_text else BINARY_OPS)
    data = target.read_bytes() if target.is_file() else b""
    out = op(rng, data)
    if out is None:
        if target.is_dir():
            shutil.rmtree(target)
        else:
            target.unlink()
        target.mkdir()
    else:
        target.write_bytes(out)
    return f"{op.__name__} on {target.name}"


# --------------------------------------------------------------------------------------------
# the property
# --------------------------------------------------------------------------------------------
def _read(name: str, seed: Seed) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if name == "coref_records":
            read_coref_records(seed.path)
            read_coref_records(seed.path, duplicates="drop", malformed="warn")
            return
        for record in configured(name, **seed.options)(seed.path):
            json.dumps(record.to_dict())  # what a reader accepts can be written by the prepare stage


TARGETS = [*READERS.names(), "coref_records"]


def test_every_reader_has_a_seed(tmp_path: Path) -> None:
    for name in READERS.names():
        seed = make_seed(name, tmp_path / name)
        _read(name, seed)  # the unmutated seed reads cleanly


@pytest.mark.parametrize("name", TARGETS)
def test_reading_a_mutant_succeeds_or_raises_input_error(tmp_path: Path, name: str) -> None:
    failures = []
    for i in range(MUTANTS):
        rng = random.Random(f"{name}/{i}")
        root = tmp_path / str(i)
        seed = make_seed(name, root)
        what = apply_mutation(rng, seed)
        try:
            _read(name, seed)
        except InputError as exc:
            assert exc.path is not None or exc.field is not None, (name, i, what, str(exc))
        except Exception as exc:  # noqa: BLE001 - the property under test
            failures.append(
                f"{name} mutant {i} ({what}): {type(exc).__name__}: {str(exc)[:200]}\n"
                + "".join(traceback.format_tb(exc.__traceback__)[-3:])
            )
        shutil.rmtree(root, ignore_errors=True)
    assert not failures, "\n".join(failures)


HF_12 = {"document_id": "d", "sentences": [HF_SENTENCE]}
HF_03 = {"id": "0", "tokens": ["John", "runs"], "ner_tags": [1, 0], "pos_tags": [0, 1]}


@pytest.mark.parametrize(
    "convert, record",
    [
        (lambda recs: from_hf_conll2012(recs, ["NN", "VB", "NNP"], ["O", "B-PERSON", "I-PERSON"], max_depth=250),
         HF_12),
        (lambda recs: from_hf_conll2003(recs, ["O", "B-PER", "I-PER"], pos_names=["NN", "VB"]), HF_03),
    ],
    ids=["hf_conll2012", "hf_conll2003"],
)
def test_hub_records_with_wrong_types(convert: Callable[[list[Any]], Any], record: dict) -> None:
    failures = []
    for i in range(200):
        rng = random.Random(f"hf-records/{i}")
        mutant = json.loads(m_json(rng, json.dumps(record).encode()))
        try:
            list(convert([mutant, mutant] if i % 7 == 0 else [mutant]))
        except InputError:
            pass
        except Exception as exc:  # noqa: BLE001 - the property under test
            failures.append(f"record mutant {i} {mutant!r}: {type(exc).__name__}: {exc}")
    assert not failures, "\n".join(failures)


@pytest.mark.parametrize("mutant", [334, 771])
def test_corrupt_saved_datasets_are_input_errors_not_crashes(mutant: int) -> None:
    """Regressions found by a deep run: flipped bytes in a saved dataset's Arrow file gave a
    UnicodeDecodeError while iterating (mutant 334) and killed the process with a bus error
    when ``datasets`` memory-mapped it (mutant 771). Replayed in a child process, so that a crash
    fails this test instead of the whole run."""
    code = (
        "import random, sys, tempfile\n"
        "from pathlib import Path\n"
        "sys.path.insert(0, sys.argv[1])\n"
        "from tests.readers import test_fuzz as F\n"
        "from lingtest.errors import InputError\n"
        "rng = random.Random(f'hf_conll2012/{sys.argv[2]}')\n"
        "seed = F.make_seed('hf_conll2012', Path(tempfile.mkdtemp()) / 's')\n"
        "print(F.apply_mutation(rng, seed))\n"
        "try:\n"
        "    F._read('hf_conll2012', seed)\n"
        "    print('read')\n"
        "except InputError as e:\n"
        "    print('InputError', e)\n"
    )
    root = Path(__file__).resolve().parents[2]
    proc = subprocess.run(
        [sys.executable, "-c", code, str(root), str(mutant)], capture_output=True, text=True, timeout=300
    )
    assert proc.returncode == 0, (proc.returncode, proc.stderr[-2000:])
    assert "m_flip on data-00000-of-00001.arrow" in proc.stdout
    assert "InputError" in proc.stdout and "arrow" in proc.stdout.lower(), proc.stdout
