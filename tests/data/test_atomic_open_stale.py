"""A writer killed inside :func:`lingtest.data.io.atomic_open` leaves its temporary file
(``.<name>.XXXXXXXX.tmp``) in the output folder; the rerun's ``atomic_open`` of the same path deletes it,
so the folder holds exactly the files written (the same DVC directory hash as an uninterrupted run). Only
that pattern goes, and only a temporary whose writer is gone: one a live writer holds (its lock) or one
written since this process started is kept, so two processes writing the same path never delete each
other's file."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

from lingtest.data.io import PROCESS_START, atomic_open, remove_stale_temporaries

LIMIT_S = 10.0  # every subprocess here ends (or is killed) well within this

# writes a folder output of three files; with "stop" it dies by SIGKILL (from the test) inside the third
WRITER = textwrap.dedent("""
    import sys, time
    from pathlib import Path
    from lingtest.data.io import atomic_open
    out, mode = Path(sys.argv[1]), sys.argv[2]
    for name in ("a.txt", "b.txt", "c.txt"):
        with atomic_open(out / name) as fh:
            fh.write(name.upper() * 1000)
            if mode == "stop" and name == "c.txt":
                fh.flush()
                print("inside c.txt", flush=True)
                time.sleep(60)
""")

# holds atomic_open(path) open until a line arrives on stdin, then writes its name and finishes
HOLDER = textwrap.dedent("""
    import sys
    from lingtest.data.io import atomic_open
    with atomic_open(sys.argv[1]) as fh:
        print("open", flush=True)
        sys.stdin.readline()
        fh.write("holder")
""")


def python(code: str, *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-c", code, *args], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            text=True)


def temporaries(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".tmp"))


def make_old(path: Path) -> None:
    """Backdate ``path`` to before this process started, as a file a killed earlier run left."""
    os.utime(path, (PROCESS_START - 3600, PROCESS_START - 3600))


def test_the_rerun_after_a_killed_writer_leaves_exactly_the_written_files(tmp_path):
    out = tmp_path / "stage_out"
    killed = python(WRITER, str(out), "stop")
    assert killed.stdout is not None and killed.stdout.readline() == "inside c.txt\n"
    killed.send_signal(signal.SIGKILL)
    assert killed.wait(LIMIT_S) == -signal.SIGKILL
    left = sorted(p.name for p in out.iterdir())
    assert len(left) == 3 and left[1:] == ["a.txt", "b.txt"] and left[0].startswith(".c.txt.")  # the finding

    rerun = subprocess.run([sys.executable, "-c", WRITER, str(out), "all"], timeout=LIMIT_S, check=True)
    assert rerun.returncode == 0
    assert sorted(p.name for p in out.iterdir()) == ["a.txt", "b.txt", "c.txt"]
    assert [(out / n).read_text() for n in ("a.txt", "b.txt", "c.txt")] == ["A.TXT" * 1000, "B.TXT" * 1000,
                                                                            "C.TXT" * 1000]


def test_only_its_own_abandoned_temporaries_go(tmp_path):
    names = [".out.txt.k3j_9x0a.tmp",       # atomic_open's temporary of out.txt, left by a killed writer
             ".out.txt.k3j_9x0a.tmp.keep",  # not the pattern
             ".out.txt.b.k3j_9x0a.tmp",     # the temporary of out.txt.b
             ".other.txt.k3j_9x0a.tmp",     # of another file
             "out.txt.k3j_9x0a.tmp",        # no leading dot
             ".out.txt.short.tmp"]          # not a mkstemp name
    for n in names:
        (tmp_path / n).write_text("stale")
        make_old(tmp_path / n)
    with atomic_open(tmp_path / "out.txt") as fh:
        fh.write("new")
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(names[1:] + ["out.txt"])
    assert (tmp_path / "out.txt").read_text() == "new"


def test_a_temporary_written_since_this_process_started_is_kept(tmp_path):
    fresh = tmp_path / ".out.txt.abcdefgh.tmp"  # a writer that started after us, between mkstemp and its lock
    fresh.write_text("x")
    assert remove_stale_temporaries(tmp_path / "out.txt") == []
    make_old(fresh)
    assert remove_stale_temporaries(tmp_path / "out.txt") == [fresh] and not fresh.exists()


def test_two_processes_writing_one_path_keep_each_others_temporary(tmp_path):
    path = tmp_path / "shared.txt"
    holder = python(HOLDER, str(path))
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "open\n"
        [theirs] = temporaries(tmp_path)
        make_old(tmp_path / theirs)  # old enough to look abandoned: only its lock says its writer lives
        with atomic_open(path) as fh:
            fh.write("ours")
        assert temporaries(tmp_path) == [theirs] and path.read_text() == "ours"
        assert holder.stdin is not None
        holder.stdin.write("go\n")
        holder.stdin.flush()
        assert holder.wait(LIMIT_S) == 0
    finally:
        if holder.poll() is None:
            holder.kill()
            holder.wait(LIMIT_S)
    assert temporaries(tmp_path) == [] and path.read_text() == "holder"  # the last rename wins


def test_the_clean_up_is_quick_in_a_full_folder(tmp_path):
    for i in range(2000):
        (tmp_path / f"f{i}.txt").write_text("x")
    start = time.perf_counter()
    for i in range(20):
        remove_stale_temporaries(tmp_path / f"f{i}.txt")
    assert time.perf_counter() - start < LIMIT_S  # loose: a directory listing per write
