"""What ruamel.yaml's C parser saves DVC between stages: the same forced ``dvc repro`` of a few quick stages, timed
with DVC's YAML loads on the C parser (``ruamel.yaml.clib``, a lingtest dependency) and forced to the pure-Python
parser.

    .venv/bin/python bench/bench_dvc_yaml.py --workspace WS [--repeat 2] [--stage TARGET ...]
        [--out bench/results/dvc_yaml.json]

``WS`` is a workspace where ``dvc repro -P`` ran to the end. Each run is ``dvc repro -f -s TARGET ...`` (by default
the report stages of every technique: a second of work each, so the wall time is mostly DVC and process start-up);
their outputs come out the same, so the workspace is left as it was. DVC parses ``dvc.yaml``, ``params.yaml`` and
the lock files with ruamel.yaml's safe loader, which uses the C parser when ``ruamel.yaml.clib`` is installed; the
pure-Python condition passes ``pure=True`` to every ``ruamel.yaml.YAML`` (the round-trip loader DVC uses to rewrite
a lock file is pure Python in both). The conditions alternate, ``--repeat`` times each; the result records every
wall time, the best of each condition and the saving per stage.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_profile import machine  # noqa: E402

REPORTS = ("stages/adversarial/dvc.yaml:adversarial_report", "stages/contrapro/dvc.yaml:contrapro_report",
           "stages/contracat/dvc.yaml:contracat_report", "stages/coref_training/dvc.yaml:coref_train_report",
           "stages/tin/dvc.yaml:tin_report", "stages/s2lct/dvc.yaml:s2lct_report",
           "stages/crest/dvc.yaml:crest_baseline_report", "stages/crest/dvc.yaml:crest_report")

#: runs DVC's command line with every ruamel.yaml.YAML built pure (no C parser)
PURE = ("import sys, ruamel.yaml.main as m\n"
        "init = m.YAML.__init__\n"
        "def pure(self, *a, **k):\n"
        "    k['pure'] = True\n"
        "    init(self, *a, **k)\n"
        "m.YAML.__init__ = pure\n"
        "from dvc.cli import main\n"
        "sys.exit(main(sys.argv[1:]))\n")
C_PARSER = "import sys\nfrom dvc.cli import main\nsys.exit(main(sys.argv[1:]))\n"


def timed_repro(workspace: Path, stages: list[str], code: str) -> float:
    t = time.perf_counter()
    proc = subprocess.run([sys.executable, "-c", code, "repro", "-f", "-s", *stages], cwd=workspace,
                          capture_output=True, text=True, env=os.environ.copy())
    if proc.returncode:
        raise SystemExit(f"dvc repro failed ({proc.returncode}):\n{proc.stdout[-2000:]}\n{proc.stderr[-2000:]}")
    return round(time.perf_counter() - t, 2)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--workspace", required=True, type=Path)
    ap.add_argument("--stage", action="append", default=None, help="a DVC target (default: the report stages)")
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--out", default=str(ROOT / "bench" / "results" / "dvc_yaml.json"))
    args = ap.parse_args(argv)

    from ruamel.yaml import YAML

    from lingtest.data.io import write_json

    if YAML(typ="safe").Parser.__name__ != "CParser":
        raise SystemExit("ruamel.yaml's C parser is not installed (pip install ruamel.yaml.clib)")
    stages = list(args.stage or REPORTS)
    runs: dict[str, list[float]] = {"c_parser": [], "pure_python": []}
    for i in range(args.repeat):
        for label, code in (("c_parser", C_PARSER), ("pure_python", PURE)):
            runs[label].append(timed_repro(args.workspace, stages, code))
            print(f"run {i + 1} {label:<12} {runs[label][-1]:7.2f} s", flush=True)
    best = {k: min(v) for k, v in runs.items()}
    result = {"benchmark": "dvc_yaml", "machine": machine(), "stages": stages, "walls_s": runs, "best_s": best,
              "saved_per_stage_s": round((best["pure_python"] - best["c_parser"]) / len(stages), 2),
              "note": "dvc repro -f -s of the stages, alternating the two conditions; warm OS file cache"}
    write_json(args.out, result)
    print(f"best: C parser {best['c_parser']} s, pure Python {best['pure_python']} s for {len(stages)} stages "
          f"-> {result['saved_per_stage_s']} s per stage; wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
