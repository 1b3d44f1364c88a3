"""Run one pipeline stage with ``torch.use_deterministic_algorithms(True)``: the check that showed
the neural coreference training's run-to-run differences come from a non-deterministic torch CPU
kernel (README, top). Arguments are those of ``python -m lingtest.pipeline.stage``; send the outputs
elsewhere so the workspace's stay as DVC recorded them, e.g.

    PYTHONHASHSEED=1 .venv/bin/python bench/deterministic_stage.py coref_train clean \\
        coref_training.train.threads=2 paths.coref_training.models=/tmp/ct_d1/models \\
        paths.coref_training.training=/tmp/ct_d1/training tracking.enabled=false

and compare ``/tmp/ct_d1/training/clean.json`` across runs.
"""

from __future__ import annotations

import sys


def main(argv: list[str]) -> None:
    import torch

    from lingtest.pipeline.stage import main as stage_main

    torch.use_deterministic_algorithms(True)
    stage_main(argv)


if __name__ == "__main__":
    main(sys.argv[1:])
