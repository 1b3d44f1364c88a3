"""Every reader on a 200 MB file without a line break refuses it with an InputError within seconds,
its peak memory well under 2 GiB: the text readers after about ``max_line_bytes`` (8 MiB), naming
the file and line 1; the others (a pickle, a zip, an Arrow file) from its first bytes or from
their own caps. Each reader runs in a child process (its peak RSS: ``VmHWM``, else ``getrusage``); about 10 s
in all and 200 MB of temporary disk, so marked e2e."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.readers.big_inputs import measure_all

from lingtest.readers import READERS
from lingtest.readers.options import configured_limits

SIZE = 200 * 10**6
BINARY = ("checklist", "ptb_sample", "hf_conll2003", "hf_conll2012")


@pytest.mark.e2e
def test_every_reader_refuses_a_200_mb_line_fast_and_in_little_memory(tmp_path: Path) -> None:
    results = measure_all(READERS.names(), tmp_path, SIZE)
    cap = configured_limits()["max_line_bytes"]
    problems = []
    for r in results:
        if r["outcome"] != "InputError" or not r.get("path"):
            problems.append(f"{r['format']}: {r['outcome']} {r.get('message', '')}")
            continue
        if r["seconds"] > 10 or r["peak_rss_bytes"] > 1 * 2**30:
            problems.append(f"{r['format']}: {r['seconds']} s, {r['peak_rss_bytes'] / 2**20:.0f} MiB peak")
        if r["format"] not in BINARY and ("max_line_bytes" not in r["message"] or r["line"] != 1):
            problems.append(f"{r['format']}: not refused by the line cap: {r['message']}")
        if r["format"] not in BINARY and r["peak_rss_bytes"] - r["rss_before_bytes"] > 8 * cap:
            problems.append(f"{r['format']}: {(r['peak_rss_bytes'] - r['rss_before_bytes']) / 2**20:.0f} MiB "
                            "more than before reading")
    assert not problems, "\n".join(problems)
