"""``kind: http`` against hostile servers on a loopback port: every wait is bounded. A huge or hostile
``Retry-After`` waits at most ``max_backoff_s``; a server that trickles its headers or body, or never
answers, fails its inputs at ``deadline_s``; a body beyond ``max_response_bytes`` is abandoned after that
many bytes (not read whole, not retried); the failing inputs are named in the :class:`PartialFailure`.

Each call runs under the test's own time limit (:func:`bounded`, 10 s): without the bounds these calls
sleep for hours, raise ``OverflowError`` or read hundreds of megabytes."""

from __future__ import annotations

import json
import math
import threading
import time
import tracemalloc
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from omegaconf import OmegaConf

from lingtest.errors import ConfigError
from lingtest.store import JSONStore
from lingtest.systems.base import ItemFailure, PartialFailure
from lingtest.systems.cache import CachedSystem
from lingtest.systems.generic.http import HTTPSystem, retry_after_seconds, retry_wait

LIMIT_S = 10.0  # each hostile call must end well within this (it ends in about a second)
OK = json.dumps({"outputs": [{"negative": 0.1, "positive": 0.9}]}).encode()


class Hostile:
    """Behaviour by path: /retry/<value> (503 with ``Retry-After: <value>``), /trickle-body (headers, then
    the body a byte every ``trickle_s``), /trickle-headers (the status line and headers likewise),
    /silent (reads the request, never answers), /big-declared (``Content-Length`` of 300 MB, body
    streamed), /big-streamed (no length, 64 MB streamed until the client hangs up), /reject (HTTP 400)."""

    def __init__(self) -> None:
        self.counts: dict[str, int] = {}
        self.sent: dict[str, int] = {}  # body bytes written per path
        self.stop = threading.Event()
        self.trickle_s = 0.2  # between two trickled bytes
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                self.rfile.read(int(self.headers["Content-Length"]))
                path = self.path
                server.counts[path] = server.counts.get(path, 0) + 1
                try:
                    self._answer(path)
                except OSError:
                    pass  # the client hung up: what these tests want

            def _trickle(self, raw: bytes) -> None:
                for i in range(len(raw)):
                    if server.stop.wait(server.trickle_s):
                        return
                    self.wfile.write(raw[i:i + 1])

            def _stream(self, path: str, total: int) -> None:
                chunk = b" " * (1 << 20)
                for _ in range(total // len(chunk)):
                    self.wfile.write(chunk)
                    server.sent[path] = server.sent.get(path, 0) + len(chunk)

            def _answer(self, path: str) -> None:
                if path.startswith("/retry/"):
                    self.send_response(503)
                    self.send_header("Retry-After", path[len("/retry/"):].replace("%20", " "))
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
                    server.stop.wait(LIMIT_S)
                elif path == "/big-declared":
                    self.send_response(200)
                    self.send_header("Content-Length", str(300 << 20))
                    self.end_headers()
                    self._stream(path, 300 << 20)
                elif path == "/big-streamed":
                    self.send_response(200)
                    self.end_headers()  # HTTP/1.0: the body ends when the connection closes
                    self._stream(path, 64 << 20)
                elif path == "/reject":
                    self.send_response(400)
                    self.send_header("Content-Length", "2")
                    self.end_headers()
                    self.wfile.write(b"{}")

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, args=(0.05,), daemon=True)


@pytest.fixture
def hostile():
    s = Hostile()
    s.thread.start()
    yield s
    s.stop.set()
    s.httpd.shutdown()
    s.httpd.server_close()


OPTIONS: dict[str, Any] = dict(model_version="v1", items_per_request=4, concurrency=1, timeout_s=5.0, deadline_s=0.6,
                               max_response_bytes=1 << 20, max_retries=1, backoff_s=0.01, max_backoff_s=0.2,
                               requests_per_second=None, headers={}, auth_env=None)


def http(server: Hostile, path: str, **over: Any) -> HTTPSystem:
    return HTTPSystem("classification", url=server.url + path, **{**OPTIONS, **over})


def bounded(call: Callable[[], Any], limit: float = LIMIT_S) -> Any:
    """``call()`` in a thread that must end within ``limit`` seconds (the test's own timeout)."""
    box: dict[str, Any] = {}

    def run() -> None:
        try:
            box["value"] = call()
        except BaseException as exc:  # handed to the test below
            box["error"] = exc

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(limit)
    assert not worker.is_alive(), f"still waiting after {limit} s"
    if "error" in box:
        raise box["error"]
    return box["value"]


# ---- Retry-After ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("value", ["100000", "inf", "-5", "nan", "soon", "1e400", "9" * 400,
                                   "Fri, 31 Dec 9999 23:59:59 GMT"])
def test_any_retry_after_waits_at_most_max_backoff(hostile, value):
    out = bounded(lambda: http(hostile, f"/retry/{value.replace(' ', '%20')}").predict(["x"]))
    assert isinstance(out[0], ItemFailure) and "HTTP 503" in out[0].reason and "2 attempts" in out[0].reason
    assert hostile.counts[f"/retry/{value.replace(' ', '%20')}"] == 2


def test_retry_after_parsing_and_the_capped_wait():
    assert retry_after_seconds("100000") == 100000.0 and retry_after_seconds(" 0.5 ") == 0.5
    for bad in ("inf", "-5", "nan", "soon", "1e400", "9" * 400, "", None, "Mon, 99 Foo 2020 99:99:99 GMT"):
        assert retry_after_seconds(bad) is None, bad
    assert retry_after_seconds("Thu, 01 Jan 1970 00:01:40 GMT", now=0.0) == 100.0
    assert retry_after_seconds("Thu, 01 Jan 1970 00:01:40 GMT", now=1000.0) == 0.0  # passed: retry now
    assert retry_after_seconds("Fri, 31 Dec 9999 23:59:59 GMT") > 1e9
    cap = dict(backoff_s=1.0, max_backoff_s=30.0)
    assert retry_wait(0, 100000.0, **cap) == 30.0 and retry_wait(0, 2.0, **cap) == 2.0
    assert [retry_wait(a, None, **cap) for a in (0, 1, 2, 5, 10_000)] == [1.0, 2.0, 4.0, 30.0, 30.0]
    assert retry_wait(10_000, None, backoff_s=0.0, max_backoff_s=30.0) == 0.0
    assert all(math.isfinite(retry_wait(a, None, **cap)) for a in (1023, 1024, 10**9))


# ---- deadlines ------------------------------------------------------------------------------------------

@pytest.mark.parametrize("path", ["/trickle-body", "/trickle-headers", "/silent"])
def test_a_slow_answer_fails_at_the_deadline(hostile, path):
    # each read arrives within timeout_s (5 s); only the deadline (0.6 s per request) ends the request
    out = bounded(lambda: http(hostile, path, max_retries=0).predict(["x", "y"]))
    assert [type(o) for o in out] == [ItemFailure, ItemFailure]
    assert "deadline_s=0.6" in out[0].reason and hostile.counts[path] == 1


def test_a_retried_deadline_counts_each_attempt(hostile):
    out = bounded(lambda: http(hostile, "/trickle-body", max_retries=2).predict(["x"]))
    assert "deadline_s" in out[0].reason and "3 attempts" in out[0].reason
    assert hostile.counts["/trickle-body"] == 3


def test_a_generous_deadline_lets_a_slow_answer_through(hostile):
    hostile.trickle_s = 0.02
    out = bounded(lambda: http(hostile, "/trickle-body", deadline_s=LIMIT_S, max_retries=0,
                               max_response_bytes=len(OK)).predict(["x"]))
    assert out == [{"negative": 0.1, "positive": 0.9}]


# ---- response size ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("path", ["/big-declared", "/big-streamed"])
def test_a_body_over_the_cap_fails_its_inputs_without_being_read(hostile, path):
    tracemalloc.start()
    try:
        out = bounded(lambda: http(hostile, path).predict(["x", "y"]))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert [type(o) for o in out] == [ItemFailure, ItemFailure]
    assert "max_response_bytes=1048576" in out[0].reason and "attempts" not in out[0].reason
    assert hostile.counts[path] == 1  # not retried
    assert peak < 16 << 20  # the client held about the cap (1 MiB), not the body (64-300 MB)
    time.sleep(0.2)  # the server notices the hang-up
    assert hostile.sent.get(path, 0) < 32 << 20


# ---- naming the failures, config ------------------------------------------------------------------------

def test_partial_failure_names_the_failed_inputs(hostile, tmp_path):
    texts = ["first input", "second " + "very " * 30 + "long input", "third", "fourth", "fifth"]
    cached = CachedSystem(http(hostile, "/reject", items_per_request=5), JSONStore(tmp_path / "p.sqlite"),
                          batch_size=5)
    with pytest.raises(PartialFailure) as info:
        cached.predict(texts)  # a 400 is answered at once and not retried
    message = str(info.value)
    assert "failed inputs (5): 'first input', 'second very very" in message
    assert "\u2026', 'third' and 2 more" in message and "fourth" not in message
    assert "HTTP 400" in message and sorted(info.value.failures) == [0, 1, 2, 3, 4]


@pytest.mark.parametrize("key,value", [("deadline_s", 0), ("deadline_s", -1.0), ("deadline_s", math.inf),
                                       ("deadline_s", "30"), ("deadline_s", True), ("max_response_bytes", 0),
                                       ("max_response_bytes", 1.5), ("max_response_bytes", True),
                                       ("max_backoff_s", math.inf), ("timeout_s", math.nan)])
def test_bad_bounds_are_config_errors(key, value):
    with pytest.raises(ConfigError, match=key):
        HTTPSystem("classification", url="http://127.0.0.1:9", **{**OPTIONS, key: value})


def test_the_bounds_come_from_the_config_defaults():
    defaults = OmegaConf.load(Path(__file__).resolve().parents[2] / "conf/systems/default.yaml").generic.http
    system = HTTPSystem("classification", url="http://127.0.0.1:9", **OmegaConf.to_container(defaults))
    assert system.deadline_s == defaults.deadline_s and system.max_response_bytes == defaults.max_response_bytes
    assert system.max_backoff_s == defaults.max_backoff_s
    assert system.deadline_s >= system.timeout_s
