"""A very long one-line file given to every reader, each read in a child process that reports what
it raised, how long it took and its peak resident memory (``VmHWM`` of ``/proc/self/status``,
else ``getrusage``'s ``ru_maxrss``, which on Linux also counts the parent's peak at fork time), for
``test_reader_memory.py`` and ``bench/bench_readers.py``."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

#: what the long line repeats: the start of a Penn tree, which a reader without a line cap would
#: go on parsing (and which is as much a word, a field or a JSON value to the others)
UNIT = b"(S (NN a) "
ROOT = Path(__file__).resolve().parents[2]


def one_line_file(path: Path, size: int, unit: bytes = UNIT) -> Path:
    """A file of ``size`` bytes without a line break, written in 1 MiB chunks."""
    chunk = unit * (2**20 // len(unit))
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as fh:
        left = size
        while left > 0:
            fh.write(chunk[:left])
            left -= len(chunk[:left])
    return path


def _link(big: Path, path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    os.symlink(big, path)
    return path


def layout(fmt: str, root: Path, big: Path) -> tuple[Path, dict[str, Any]]:
    """The input of reader ``fmt`` (path and options) whose first file read is ``big``."""
    d = root / fmt
    if fmt == "contrapro_grouped":
        _link(big, d / "contrapro.text.en")
        (d / "contrapro.text.de").write_text("x\n", encoding="utf-8")
        return d, {}
    if fmt == "contracat":
        t = d / "templates" / "t"
        _link(big, t / "en.txt")
        for name in ("de.txt", "genders.txt"):
            (t / name).write_text("x\n", encoding="utf-8")
        return d / "templates", {}
    if fmt in ("hf_conll2003", "hf_conll2012"):
        _link(big, d / "data-00000-of-00001.arrow")
        return d, {}
    names = {"checklist": "sentiment_suite.pkl", "ptb_sample": "treebank.zip", "hatexplain_json": "dataset.json",
             "hatexplain_csv": "posts.csv", "hatecheck": "cases.csv", "contrapro_json": "contrapro.json",
             "jsonlines": "big.jsonlines", "conllu": "big.conllu", "ontogum": "big.conll",
             "conll2012": "big.v4_gold_conll", "conll_coref": "big.conll", "ptb": "big.ptb"}
    options: dict[str, Any] = {"tokenizer": "whitespace"} if fmt == "hatecheck" else {}
    return _link(big, d / names.get(fmt, "big.txt")), options


_CHILD = """
import json, resource, sys, time
sys.path.insert(0, sys.argv[4])
from lingtest.errors import InputError
from lingtest.readers import READERS, read


def peak():
    # VmHWM: the peak of this process's own memory; ru_maxrss on Linux also counts the parent's
    # peak at fork time, carried over the exec
    try:
        with open("/proc/self/status") as fh:
            return next(int(ln.split()[1]) * 1024 for ln in fh if ln.startswith("VmHWM:"))
    except (OSError, StopIteration):
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


fmt, path, options = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
READERS.get(fmt)  # the reader's module imported before the clock starts
before = peak()
t0 = time.perf_counter()
try:
    n = sum(1 for _ in read(fmt, path, **options))
    out = {"outcome": "read", "records": n}
except InputError as exc:
    out = {"outcome": "InputError", "message": str(exc)[:300], "path": exc.path, "line": exc.line}
except BaseException as exc:
    out = {"outcome": type(exc).__name__, "message": str(exc)[:300]}
out["seconds"] = round(time.perf_counter() - t0, 3)
out["peak_rss_bytes"] = peak()
out["rss_before_bytes"] = before
print(json.dumps(out))
"""


def measure(fmt: str, path: Path, options: dict[str, Any], timeout: float = 300) -> dict[str, Any]:
    """Read ``path`` with reader ``fmt`` in a child process: the outcome (``InputError`` with its
    message, path and line, or what else happened), seconds and peak RSS."""
    proc = subprocess.run([sys.executable, "-c", _CHILD, fmt, str(path), json.dumps(options, default=str),
                           str(ROOT)], capture_output=True, text=True, timeout=timeout, cwd=ROOT)
    if proc.returncode != 0 or not proc.stdout.strip():
        return {"format": fmt, "outcome": f"exit {proc.returncode}", "message": proc.stderr[-500:]}
    return {"format": fmt, **json.loads(proc.stdout.strip().splitlines()[-1])}


def measure_all(formats: list[str], root: Path, size: int, workers: int = 2) -> list[dict[str, Any]]:
    """Every reader of ``formats`` on one ``size``-byte line (one file, linked into each layout)."""
    big = one_line_file(root / "one_line.bin", size)
    jobs = [(fmt, *layout(fmt, root / "layouts", big)) for fmt in formats]
    with ThreadPoolExecutor(workers) as pool:
        return list(pool.map(lambda job: measure(*job), jobs))
