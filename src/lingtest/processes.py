"""The processes behind tracked runs: which process this is (:func:`this_process`: host, pid and
start time, so that a later process reusing the pid is told apart) and whether a process still runs
(:func:`process_alive`). :mod:`lingtest.tracking` records a run's process as the tags of
:meth:`ProcessId.tags` and marks KILLED the runs whose process is gone.
"""

from __future__ import annotations

import os
import socket
from dataclasses import dataclass
from pathlib import Path

__all__ = ["CLOCK_TICKS", "TAG_HOST", "TAG_PID", "TAG_PROC_START", "ProcessId", "cpu_seconds", "process_alive",
           "process_start", "this_process"]

# the tags that record a run's process
TAG_HOST = "lingtest.host"
TAG_PID = "lingtest.pid"
TAG_PROC_START = "lingtest.proc_start"


def _clock_ticks() -> int:
    try:
        return int(os.sysconf("SC_CLK_TCK"))
    except (AttributeError, ValueError, OSError):
        return 100


#: clock ticks per second of ``/proc/<pid>/stat`` times (``getconf CLK_TCK``; 100 on Linux)
CLOCK_TICKS = _clock_ticks()


@dataclass(frozen=True)
class ProcessId:
    """A process, told apart from a later one that reuses its pid by its start time (clock ticks
    since boot, Linux; empty elsewhere)."""

    host: str
    pid: int
    start: str

    def tags(self) -> dict[str, str]:
        return {TAG_HOST: self.host, TAG_PID: str(self.pid), TAG_PROC_START: self.start}


def this_process() -> ProcessId:
    return ProcessId(socket.gethostname(), os.getpid(), process_start(os.getpid()))


def process_start(pid: int) -> str:
    """Start time of ``pid`` in clock ticks since boot (``/proc/<pid>/stat`` field 22); "" when unknown."""
    stat = _proc_stat(pid)
    return stat[19] if stat and len(stat) > 19 else ""


def _proc_stat(pid: int) -> list[str] | None:
    """Fields of ``/proc/<pid>/stat`` after the command name (state first), None when unreadable."""
    try:
        raw = Path(f"/proc/{pid}/stat").read_text(encoding="ascii", errors="replace")
    except OSError:
        return None
    return raw[raw.rfind(")") + 2:].split()


def process_alive(pid: int, start: str = "") -> bool:
    """Whether process ``pid`` (on this host) still runs: not gone, not a zombie, and, when ``start``
    is known, not a later process that reuses the pid."""
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass  # exists, owned by someone else
    stat = _proc_stat(pid)
    if stat is None:
        return True  # no /proc: trust kill(0)
    if stat[0] in ("Z", "X"):
        return False
    return not (start and len(stat) > 19 and stat[19] != start)


def _live_descendants(pid: int) -> list[list[str]]:
    """``/proc/<pid>/stat`` fields (after the command name) of every live descendant of ``pid``."""
    stats: dict[int, list[str]] = {}
    try:
        entries = [e for e in os.listdir("/proc") if e.isdigit()]
    except OSError:
        return []
    for e in entries:
        st = _proc_stat(int(e))
        if st and len(st) > 14 and st[0] not in ("Z", "X"):
            stats[int(e)] = st
    children: dict[int, list[int]] = {}
    for child, st in stats.items():
        children.setdefault(int(st[1]), []).append(child)
    out, todo = [], list(children.get(pid, []))
    while todo:
        c = todo.pop()
        out.append(stats[c])
        todo.extend(children.get(c, []))
    return out


def cpu_seconds() -> float:
    """CPU seconds (user + system) this process has used so far, with its children: those it has waited
    for (``os.times``) and, on Linux, those still running (worker pools live until the interpreter exits).
    A figure to compare with wall seconds: their ratio is how many cores a stage kept busy."""
    t = os.times()
    total = t.user + t.system + t.children_user + t.children_system
    for st in _live_descendants(os.getpid()):
        total += sum(int(x) for x in st[11:15]) / CLOCK_TICKS  # utime, stime, cutime, cstime
    return total
