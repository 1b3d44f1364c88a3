"""How long ``kind: http`` takes to fail cleanly against hostile servers, and how much memory a huge body
costs: a loopback server (this process, threads) and, per case, a client in a fresh subprocess that
builds :class:`~lingtest.systems.generic.http.HTTPSystem` from ``systems.generic.http`` of
``conf/systems/default.yaml`` with the bounds below overridden, predicts one input and reports its wall
time, the failure reason and its memory (tracemalloc peak, and the growth of the process's peak RSS).

    .venv/bin/python bench/bench_http.py [--deadline 1.0] [--max-backoff 0.5] [--retries 1]
        [--max-bytes 1048576] [--big-mb 300] [--out bench/results/http.json]

Cases: ``Retry-After: 100000`` / ``inf`` / ``-5`` / garbage on a 503 (every attempt); a body trickled a
byte every 0.2 s (each read well within ``timeout_s``) after its headers, and the headers trickled
likewise; a server that never answers; a body of ``--big-mb`` MB with and without ``Content-Length``,
and without it under the shipped ``max_response_bytes`` (what a default run holds before it gives up).
``bound_s`` is what the configuration promises per request: ``(max_retries + 1) * deadline_s +
max_retries * max_backoff_s`` (the size cap is not retried); ``bound_with_defaults_s`` the same for the
shipped defaults.
"""

from __future__ import annotations

import argparse
import json
import platform
import resource
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
OK = json.dumps({"outputs": [{"negative": 0.1, "positive": 0.9}]}).encode()
TRICKLE_S = 0.2


def serve(big_bytes: int, stop: threading.Event) -> ThreadingHTTPServer:
    """The hostile server: behaviour by path (see the module doc)."""

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

        def do_POST(self) -> None:
            self.rfile.read(int(self.headers["Content-Length"]))
            try:
                self._answer(self.path)
            except OSError:
                pass  # the client hung up

        def _trickle(self, raw: bytes) -> None:
            for i in range(len(raw)):
                if stop.wait(TRICKLE_S):
                    return
                self.wfile.write(raw[i:i + 1])

        def _stream(self) -> None:
            chunk = b" " * (1 << 20)
            for _ in range(big_bytes // len(chunk)):
                self.wfile.write(chunk)

        def _answer(self, path: str) -> None:
            if path.startswith("/retry/"):
                self.send_response(503)
                self.send_header("Retry-After", path[len("/retry/"):])
                self.send_header("Content-Length", "2")
                self.end_headers()
                self.wfile.write(b"{}")
            elif path == "/trickle-body":
                self.send_response(200)
                self.send_header("Content-Length", str(len(OK)))
                self.end_headers()
                self._trickle(OK)
            elif path == "/trickle-headers":
                self.close_connection = True
                self._trickle(b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n" % len(OK) + OK)
            elif path == "/silent":
                stop.wait(600)
            elif path in ("/big-declared", "/big-streamed"):
                self.send_response(200)
                if path == "/big-declared":
                    self.send_header("Content-Length", str(big_bytes))
                self.end_headers()
                self._stream()

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=httpd.serve_forever, args=(0.05,), daemon=True).start()
    return httpd


def client(url: str, options: dict[str, Any]) -> dict[str, Any]:
    """One predict against ``url`` in this (fresh) process: wall time, outcome and memory."""
    import tracemalloc

    from omegaconf import OmegaConf

    from lingtest.systems.base import ItemFailure
    from lingtest.systems.generic.http import HTTPSystem

    defaults = OmegaConf.to_container(OmegaConf.load(ROOT / "conf/systems/default.yaml").generic.http)
    assert isinstance(defaults, dict)
    system = HTTPSystem("classification", url=url, **{**defaults, **options})  # type: ignore[arg-type]
    rss0 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    tracemalloc.start()
    t0 = time.perf_counter()
    try:
        out = system.predict(["x"])
        outcome = out[0].reason if isinstance(out[0], ItemFailure) else "answered"
        clean = isinstance(out[0], ItemFailure)
    except BaseException as exc:  # noqa: BLE001 - what a raw failure looks like is the measurement
        outcome, clean = f"raised {type(exc).__name__}: {exc}", False
    wall = time.perf_counter() - t0
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    rss1 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return {"seconds_to_failure": round(wall, 3), "clean_failure": clean, "outcome": outcome.replace(url, "<url>"),
            "requests": system.requests, "tracemalloc_peak_mib": round(peak / 2**20, 2),
            "peak_rss_growth_mib": round((rss1 - rss0) / 1024, 1), "peak_rss_mib": round(rss1 / 1024, 1)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--deadline", type=float, default=1.0, help="deadline_s of the measured client")
    ap.add_argument("--max-backoff", type=float, default=0.5, help="max_backoff_s of the measured client")
    ap.add_argument("--retries", type=int, default=1, help="max_retries of the measured client")
    ap.add_argument("--max-bytes", type=int, default=1 << 20, help="max_response_bytes of the measured client")
    ap.add_argument("--big-mb", type=int, default=300)
    ap.add_argument("--out", default="bench/results/http.json")
    ap.add_argument("--client", nargs=2, metavar=("URL", "OPTIONS_JSON"), help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.client:
        print(json.dumps(client(args.client[0], json.loads(args.client[1]))))
        return 0

    from omegaconf import OmegaConf

    from lingtest.data.io import write_json

    options = {"deadline_s": args.deadline, "max_backoff_s": args.max_backoff, "max_retries": args.retries,
               "max_response_bytes": args.max_bytes, "timeout_s": 5.0, "backoff_s": 0.1}
    d = OmegaConf.load(ROOT / "conf/systems/default.yaml").generic.http
    cases = {"retry_after_100000": "/retry/100000", "retry_after_inf": "/retry/inf",
             "retry_after_negative": "/retry/-5", "retry_after_garbage": "/retry/soon",
             "trickled_body": "/trickle-body",
             "trickled_headers": "/trickle-headers", "silent_server": "/silent",
             f"body_{args.big_mb}mb_declared": "/big-declared", f"body_{args.big_mb}mb_streamed": "/big-streamed",
             f"body_{args.big_mb}mb_streamed_default_cap": "/big-streamed"}
    stop = threading.Event()
    httpd = serve(args.big_mb << 20, stop)
    url = f"http://127.0.0.1:{httpd.server_address[1]}"
    measured = {}
    try:
        for name, path in cases.items():
            over = {**options, "max_response_bytes": d.max_response_bytes} if "default_cap" in name else options
            run = subprocess.run([sys.executable, __file__, "--client", url + path, json.dumps(over)],
                                 capture_output=True, text=True, timeout=300, check=True, cwd=ROOT)
            measured[name] = json.loads(run.stdout.strip().splitlines()[-1])
            print(f"{name:28s} {measured[name]['seconds_to_failure']:7.3f} s  "
                  f"peak +{measured[name]['peak_rss_growth_mib']} MiB RSS  {measured[name]['outcome']}")
    finally:
        stop.set()
        httpd.shutdown()
        httpd.server_close()
    result = {
        "bench": "http", "python": platform.python_version(), "machine": platform.machine(),
        "client_options": options, "trickle_s_per_byte": TRICKLE_S,
        "bound_s": (args.retries + 1) * args.deadline + args.retries * args.max_backoff,
        "bound_with_defaults_s": (d.max_retries + 1) * d.deadline_s + d.max_retries * d.max_backoff_s,
        "defaults": {k: d[k] for k in ("timeout_s", "deadline_s", "max_response_bytes", "max_retries",
                                       "max_backoff_s")},
        "cases": measured,
        "command": "python bench/bench_http.py " + " ".join(argv if argv is not None else sys.argv[1:]),
    }
    write_json(ROOT / args.out, result)
    print(f"bound per request {result['bound_s']} s ({result['bound_with_defaults_s']} s with the defaults) "
          f"-> {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
