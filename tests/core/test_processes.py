"""Process liveness (:mod:`lingtest.processes`): a process that is gone, a zombie or a later process
reusing the pid is not alive."""

from __future__ import annotations

import os
import subprocess
import time

from lingtest.processes import process_alive, process_start


def test_process_alive():
    me = os.getpid()
    assert process_alive(me) and process_alive(me, process_start(me))
    gone = subprocess.Popen(["true"])
    gone.wait()
    assert not process_alive(gone.pid) and not process_alive(0) and not process_alive(-1)
    if process_start(me):  # Linux: a reused pid is told apart by its start time
        assert not process_alive(me, "1")
    zombie = subprocess.Popen(["true"])
    deadline = time.time() + 10
    while process_alive(zombie.pid) and time.time() < deadline:
        time.sleep(0.05)
    assert not process_alive(zombie.pid)  # exited, not yet reaped
    zombie.wait()


def test_cpu_seconds_counts_children_while_they_run_and_after_they_are_reaped():
    """A child that burns 0.3 s of its own CPU time (not wall time) adds about that (clock ticks: 10 ms), before
    and after it is reaped."""
    import subprocess
    import sys

    from lingtest.processes import cpu_seconds

    burn = ("import time\nwhile time.process_time() < 0.3: pass\n"
            "print('done', flush=True)\ntime.sleep(30)")
    before = cpu_seconds()
    child = subprocess.Popen([sys.executable, "-c", burn], stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout is not None and child.stdout.readline().strip() == "done"
        assert cpu_seconds() - before >= 0.25  # still running: read from /proc
    finally:
        child.kill()
        child.wait()
    assert cpu_seconds() - before >= 0.25  # reaped: os.times
