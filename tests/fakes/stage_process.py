"""A Python script run as a stage process would be: its own interpreter with this checkout's ``src``
on the path, no ``MLFLOW_TRACKING_URI``, SIGINT at its default, stdout and stderr piped."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def stage_process(script: str, *args: str) -> subprocess.Popen[str]:
    env = {k: v for k, v in os.environ.items() if k != "MLFLOW_TRACKING_URI"}
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "src"), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    # SIGINT at its default, as from a terminal: a test run started in the background (``cmd &`` in a
    # shell without job control) has it ignored, which the child would inherit and rightly leave alone
    return subprocess.Popen([sys.executable, "-c", script, *args], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))


@contextmanager
def running(script: str, *args: str) -> Iterator[subprocess.Popen[str]]:
    """:func:`stage_process`, killed and reaped on leaving the block whatever happened in it."""
    proc = stage_process(script, *args)
    try:
        yield proc
    finally:
        proc.kill()
        proc.wait()


def stop(proc: subprocess.Popen[str], sig: int, timeout: float = 60) -> int:
    """Send ``sig`` and wait for the process to end; its return code."""
    proc.send_signal(sig)
    return proc.wait(timeout=timeout)
