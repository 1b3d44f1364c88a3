"""Readers on hostile input: mutants of valid inputs (from the test fixtures, and from files of the
data mirror) and a 200 MB file without a line break given to every reader.

    .venv/bin/python bench/bench_readers.py
    .venv/bin/python bench/bench_readers.py --per-class 100 --mirror-per-class 10

For the mutants (``tests/readers/mutants.py`` says what each class and outcome is): how many were
read, how many gave a clean InputError naming file, line and field or the valid input's records
(``share_clean``; ``share_clean_detectable`` leaves out the undetectable ones, mutants that are
valid files themselves), how many were accepted silently, crashed or gave an error that names
less than it should, and why the undetectable ones are. For the long line: per reader, the
outcome, the seconds and the peak resident memory of a child process.

Writes ``bench/results/readers.json``.
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.readers.big_inputs import measure_all  # noqa: E402
from tests.readers.mutants import Result, fixture_case, mirror_cases, run_case, summary  # noqa: E402

from lingtest.data.io import write_json  # noqa: E402
from lingtest.paths import mirror_root  # noqa: E402
from lingtest.readers import READERS  # noqa: E402
from lingtest.readers.options import configured_limits  # noqa: E402


def _mutants(results: list[Result]) -> dict[str, Any]:
    s = summary(results)
    s["undetectable_why"] = dict(Counter(r.detail for r in results if r.outcome == "undetectable").most_common())
    s["not_clean"] = [f"{r.fmt} {r.cls} ({r.what}): {r.outcome} {r.detail}"[:300]
                      for r in results if r.outcome not in ("error", "same", "undetectable")]
    return s


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--per-class", type=int, default=40, help="fixture mutants per class and format")
    ap.add_argument("--mirror-per-class", type=int, default=6, help="mirror mutants per class and file (0: none)")
    ap.add_argument("--mirror", default=None)
    ap.add_argument("--line-bytes", type=int, default=200 * 10**6, help="size of the one-line file")
    ap.add_argument("--seed", default="bench")
    ap.add_argument("--out", default=str(ROOT / "bench" / "results" / "readers.json"))
    args = ap.parse_args(argv)

    t_all = time.perf_counter()
    report: dict[str, Any] = {"command": "python bench/bench_readers.py " + " ".join(argv or sys.argv[1:]),
                              "python": platform.python_version(), "machine": platform.machine(),
                              "limits": configured_limits()}
    with tempfile.TemporaryDirectory(prefix="lingtest-bench-readers-") as tmp:
        root = Path(tmp)
        t0 = time.perf_counter()
        fixture_results = [r for fmt in READERS.names()
                           for r in run_case(fixture_case(fmt, root / "fixtures" / fmt), args.per_class, args.seed)]
        report["fixtures"] = {"per_class": args.per_class, "seconds": round(time.perf_counter() - t0, 1),
                              **_mutants(fixture_results)}
        print(f"fixture mutants: {len(fixture_results)} in {report['fixtures']['seconds']} s", flush=True)

        mirror = mirror_root(args.mirror)
        if mirror is not None and args.mirror_per_class > 0:
            t0 = time.perf_counter()
            cases = mirror_cases(mirror, root / "mirror")
            mirror_results = [r for case in cases for r in run_case(case, args.mirror_per_class, args.seed)]
            report["mirror"] = {"per_class": args.mirror_per_class, "files": [str(c.path.name) for c in cases],
                                "seconds": round(time.perf_counter() - t0, 1), **_mutants(mirror_results)}
            print(f"mirror mutants: {len(mirror_results)} in {report['mirror']['seconds']} s", flush=True)
        else:
            report["mirror"] = None

        t0 = time.perf_counter()
        readers = measure_all(READERS.names(), root / "memory", args.line_bytes)
        for r in readers:
            for key in ("peak_rss_bytes", "rss_before_bytes"):
                if key in r:
                    r[key.replace("_bytes", "_mib")] = round(r.pop(key) / 2**20, 1)
        ok = [r for r in readers if r["outcome"] == "InputError"]
        report["one_line_file"] = {
            "bytes": args.line_bytes, "readers": readers,
            "all_input_errors": len(ok) == len(readers),
            "max_seconds": max((r["seconds"] for r in ok), default=None),
            "max_peak_rss_mib": max((r["peak_rss_mib"] for r in ok), default=None),
            "max_text_reader_extra_rss_mib": max((r["peak_rss_mib"] - r["rss_before_mib"] for r in ok
                                                 if r.get("line") == 1), default=None),
            "seconds": round(time.perf_counter() - t0, 1),
        }
    report["seconds"] = round(time.perf_counter() - t_all, 1)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    write_json(args.out, report)
    brief = {k: report["fixtures"][k] for k in ("mutants", "error", "same", "undetectable", "silent", "crash",
                                                 "unlocated", "share_clean", "share_clean_detectable")}
    print(json.dumps({"fixtures": brief, "one_line_file": {k: v for k, v in report["one_line_file"].items()
                                                            if k != "readers"}}, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
