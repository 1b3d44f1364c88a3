"""``kind: http`` against a loopback server started by the test: batching, bounded concurrency, the rate
limit, timeouts and retries (Retry-After honoured), and per-item, malformed and failing answers that keep
the rest of the batch and never reach the cache."""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from omegaconf import OmegaConf

from lingtest.errors import ConfigError
from lingtest.store import JSONStore
from lingtest.systems.base import ItemFailure, PartialFailure
from lingtest.systems.cache import CachedSystem
from lingtest.systems.factory import build_system
from lingtest.systems.generic.http import HTTPSystem, RateLimiter, retry_after_seconds


def classify(text: str) -> dict[str, float]:
    p = 0.9 if "good" in text else 0.1
    return {"negative": round(1 - p, 6), "positive": p}


class Server:
    """Behaviour by path: /ok, /flaky (503 + Retry-After for the first ``fail_first`` requests),
    /slow (the first request sleeps past the client's timeout), /item (``{"error"}`` for texts with
    "bad", a malformed output for "weird"), /notjson, /short (one output too few), /reject (HTTP 400),
    /busy (each request takes 0.2 s; counts requests in flight)."""

    def __init__(self) -> None:
        self.requests: list[tuple[str, float, int]] = []  # (path, arrival, number of inputs)
        self.lock = threading.Lock()
        self.in_flight = 0
        self.max_in_flight = 0
        self.fail_first = 2
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):  # quiet
                pass

            def _leave(self):
                # a request stops counting as in flight before its answer is written: once the client
                # has the answer it may start the next request before this thread returns
                if getattr(self, "_counted", False):
                    self._counted = False
                    with server.lock:
                        server.in_flight -= 1

            def _send(self, code, body, headers=()):
                self._leave()
                raw = body if isinstance(body, bytes) else json.dumps(body).encode()
                self.send_response(code)
                for k, v in headers:
                    self.send_header(k, v)
                self.send_header("Content-Length", str(len(raw)))
                self.end_headers()
                self.wfile.write(raw)

            def do_POST(self):
                data = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                texts = data["inputs"]
                with server.lock:
                    server.requests.append((self.path, time.monotonic(), len(texts)))
                    n = sum(p == self.path for p, _, _ in server.requests)
                    server.in_flight += 1
                    server.max_in_flight = max(server.max_in_flight, server.in_flight)
                self._counted = True
                try:
                    self._answer(data, texts, n)
                finally:
                    self._leave()

            def _answer(self, data, texts, n):
                assert data["task"] == "classification"
                ok = {"outputs": [classify(t) for t in texts]}
                if self.path == "/ok":
                    self._send(200, ok)
                elif self.path == "/flaky":
                    if n <= server.fail_first:
                        self._send(503, {"error": "busy"}, [("Retry-After", "0.05")])
                    else:
                        self._send(200, ok)
                elif self.path == "/slow":
                    if n == 1:
                        time.sleep(0.6)
                    self._send(200, ok)
                elif self.path == "/item":
                    outs = [{"error": f"cannot classify {t!r}"} if "bad" in t else
                            {"positive": 7.0} if "weird" in t else classify(t) for t in texts]
                    self._send(200, {"outputs": outs})
                elif self.path == "/notjson":
                    self._send(200, b"<html>proxy error</html>")
                elif self.path == "/short":
                    self._send(200, {"outputs": ok["outputs"][:-1]})
                elif self.path == "/reject":
                    self._send(400, {"error": "bad request"})
                elif self.path == "/busy":
                    time.sleep(0.2)
                    self._send(200, ok)
                else:
                    self._send(404, {"error": "no such path"})

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def count(self, path: str) -> int:
        return sum(p == path for p, _, _ in self.requests)


@pytest.fixture
def server():
    s = Server()
    s.thread.start()
    yield s
    s.httpd.shutdown()
    s.httpd.server_close()


OPTIONS = dict(model_version="v1", items_per_request=2, concurrency=2, timeout_s=5.0, deadline_s=5.0,
               max_response_bytes=1 << 20, max_retries=3, backoff_s=0.01, max_backoff_s=0.05,
               requests_per_second=None, headers={}, auth_env=None)


def http(server, path, **over):
    return HTTPSystem("classification", url=server.url + path, **{**OPTIONS, **over})


TEXTS = ["a good film", "a dull film", "good acting", "long", "so good", "meh"]


def test_batched_requests_in_order(server):
    sys_ = http(server, "/ok")
    assert sys_.predict(TEXTS) == [classify(t) for t in TEXTS]
    assert server.count("/ok") == 3 and all(n == 2 for _, _, n in server.requests)


def test_retries_honour_retry_after_then_succeed(server):
    sys_ = http(server, "/flaky", concurrency=1, items_per_request=10)
    assert sys_.predict(TEXTS[:2]) == [classify(t) for t in TEXTS[:2]]
    times = [t for p, t, _ in server.requests if p == "/flaky"]
    assert len(times) == 3
    # Retry-After (0.05 s) wins over the 0.01 s backoff
    assert all(b - a >= 0.045 for a, b in zip(times, times[1:], strict=False))


def test_exhausted_retries_fail_those_items_only(server):
    server.fail_first = 100
    out = http(server, "/flaky", max_retries=1).predict(["x", "y"])
    assert all(isinstance(o, ItemFailure) and "HTTP 503" in o.reason and "2 attempts" in o.reason for o in out)
    assert server.count("/flaky") == 2


def test_timeout_is_retried(server):
    sys_ = http(server, "/slow", timeout_s=0.2, concurrency=1)
    assert sys_.predict(["a good film"]) == [classify("a good film")]
    assert server.count("/slow") == 2


def test_client_errors_are_not_retried(server):
    out = http(server, "/reject").predict(["x"])
    assert isinstance(out[0], ItemFailure) and "HTTP 400" in out[0].reason
    assert server.count("/reject") == 1


@pytest.mark.parametrize("path,reason", [("/notjson", "not JSON"), ("/short", "1 outputs for 2 inputs")])
def test_malformed_bodies_are_retried_then_fail_their_items(server, path, reason):
    out = http(server, path, max_retries=1).predict(["x", "y"])
    assert [type(o) for o in out] == [ItemFailure, ItemFailure] and reason in out[0].reason
    assert server.count(path) == 2


def test_per_item_errors_keep_the_rest_and_never_reach_the_cache(server, tmp_path):
    store = JSONStore(tmp_path / "p.sqlite")
    texts = ["a good film", "a bad film", "weird", "good acting"]
    cached = CachedSystem(http(server, "/item"), store, batch_size=4)
    with pytest.raises(PartialFailure, match="2 of 4") as info:
        cached.predict(texts)
    assert sorted(info.value.failures) == [1, 2]
    assert "cannot classify" in info.value.failures[1] and "malformed" in info.value.failures[2]
    assert info.value.outputs[0] == classify("a good film") and info.value.outputs[3] == classify("good acting")
    assert len(store) == 2  # only the good answers
    # a re-run asks the server only for the failed inputs
    before = len(server.requests)
    with pytest.raises(PartialFailure):
        CachedSystem(http(server, "/item"), store, batch_size=4).predict(texts)
    assert sum(n for _, _, n in server.requests[before:]) == 2


def test_concurrency_is_bounded(server):
    sys_ = http(server, "/busy", items_per_request=1, concurrency=3)
    assert sys_.predict(TEXTS) == [classify(t) for t in TEXTS]
    assert 1 < server.max_in_flight <= 3


def test_rate_limit_spaces_request_starts(server):
    sys_ = http(server, "/ok", items_per_request=1, concurrency=4, requests_per_second=20)
    sys_.predict(TEXTS)
    times = sorted(t for _, t, _ in server.requests)
    # 6 starts at most 20/s: the last arrives >= 5 intervals (0.25 s) after the first
    assert times[-1] - times[0] >= 0.24


def test_rate_limiter_and_retry_after_parsing():
    assert RateLimiter(None).interval == 0.0
    with pytest.raises(ConfigError):
        RateLimiter(0)
    assert retry_after_seconds("2") == 2.0 and retry_after_seconds(None) is None
    assert retry_after_seconds("Wed, 21 Oct 2015 07:28:00 GMT") == 0.0  # a past date: retry now
    assert retry_after_seconds("soon") is None


def test_auth_token_comes_from_the_environment(server, monkeypatch):
    sys_ = http(server, "/ok", auth_env="LINGTEST_TEST_TOKEN")
    with pytest.raises(ConfigError, match="LINGTEST_TEST_TOKEN"):
        sys_.predict(["x"])
    monkeypatch.setenv("LINGTEST_TEST_TOKEN", "secret")
    assert sys_._headers()["Authorization"] == "Bearer secret"
    assert "secret" not in json.dumps(sys_.config())


def test_factory_builds_http_systems_for_any_task_from_defaults(server, tmp_path):
    defaults = OmegaConf.load(Path(__file__).resolve().parents[2] / "conf/systems/default.yaml").generic
    cfg = OmegaConf.create({"resources": {"device": "cpu"},
                            "systems": {"cache": True, "cache_dir": str(tmp_path), "batch_size": {"cpu": 4},
                                        "sort_by_length": True, "generic": defaults,
                                        "classification": {"svc": {"kind": "http", "url": server.url + "/ok",
                                                                   "max_retries": 0}},
                                        "ner": {"bad": {"kind": "http", "url": server.url, "nope": 1}}}})
    s = build_system(cfg, "classification", "svc")
    assert isinstance(s.system, HTTPSystem) and s.system.max_retries == 0 and s.system.concurrency == 4
    assert s.predict(["a good film"]) == [classify("a good film")]
    with pytest.raises(ConfigError, match="nope"):
        build_system(cfg, "ner", "bad")
    with pytest.raises(ConfigError, match="url"):
        HTTPSystem("ner", **{**OPTIONS, "url": "ftp://x"})
