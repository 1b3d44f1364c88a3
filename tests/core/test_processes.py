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
