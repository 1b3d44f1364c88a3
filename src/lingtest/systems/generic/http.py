"""``kind: http``: a JSON endpoint as a system under test of any task.

Protocol (one POST per ``items_per_request`` inputs)::

    request   {"task": "<task>", "inputs": [<input in the task's JSON form>, ...]}
    response  {"outputs": [<output in the task's JSON form> | {"error": "<reason>"}, ...]}   (same length)

(the JSON forms are those of :class:`~lingtest.systems.tasks.Task`; see :mod:`.callable`). A batch from
the cache is split into requests that run ``concurrency`` at a time, at most ``requests_per_second``
(null: no limit) started per second over all threads.

Every wait is bounded. ``timeout_s`` bounds the connection and each single read; ``deadline_s`` bounds one
HTTP request as a whole (connecting, sending, the status line, the headers and every read of the body,
redirects included): when it passes, the request's socket is shut down, so a server that trickles its
answer a byte at a time fails that request. A body is read in chunks and abandoned as soon as it exceeds
``max_response_bytes`` (at once when its ``Content-Length`` says so); that failure is not retried. A
request that times out, misses its deadline, fails to connect, answers 408/429/5xx or sends a body that is
not the protocol is retried up to ``max_retries`` times, waiting ``Retry-After`` when the server sends a
readable one (delay-seconds or an HTTP date) and ``backoff_s * 2**attempt`` otherwise, and never longer
than ``max_backoff_s`` (an unreadable, infinite or negative ``Retry-After`` counts as absent). One request
therefore ends within ``(max_retries + 1) * deadline_s + max_retries * max_backoff_s`` seconds plus the
rate limit's spacing (a proxy tunnel and the TLS handshake of ``https`` are bounded per read by
``min(timeout_s, deadline_s)`` only, name resolution by the system's resolver).

What still fails, and every input of a request answered with another 4xx, becomes an
:class:`~lingtest.systems.base.ItemFailure` for those inputs only, as does an ``{"error": ...}`` or
malformed entry: the rest of the batch is kept and cached, the failures never are.

``model_version`` is part of the cache key (the URL cannot tell when the model behind it changes: pin
it). A bearer token is read from the environment variable named by ``auth_env`` (never from the config).
"""

from __future__ import annotations

import email.utils
import http.client
import json
import math
import os
import re
import socket
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, ClassVar

from lingtest.errors import ConfigError
from lingtest.systems.base import ItemFailure, System
from lingtest.systems.generic.callable import decode_json_output
from lingtest.systems.tasks import get_task

RETRY_STATUS = frozenset({408, 429, 500, 502, 503, 504})
#: bytes asked of the socket per read of a response body
READ_CHUNK = 1 << 16
_DELAY_SECONDS = re.compile(r"\d+(\.\d+)?")


class RateLimiter:
    """At most ``rate`` starts per second over all threads (evenly spaced); ``None``: no limit."""

    def __init__(self, rate: float | None) -> None:
        if rate is not None and rate <= 0:
            raise ConfigError(f"requests_per_second must be positive or null, got {rate!r}")
        self.interval = 0.0 if rate is None else 1.0 / float(rate)
        self._next = 0.0
        self._lock = threading.Lock()

    def wait(self) -> None:
        if not self.interval:
            return
        with self._lock:
            now = time.monotonic()
            start = max(now, self._next)
            self._next = start + self.interval
        if start > now:
            time.sleep(start - now)


def retry_after_seconds(value: str | None, now: float | None = None) -> float | None:
    """``Retry-After`` as seconds from ``now`` (default: the current time): delay-seconds (a non-negative
    decimal number) or an HTTP date (0 when it has passed). ``None`` when absent or unreadable, which
    includes ``inf``, ``nan``, negative numbers and dates that cannot be represented."""
    if not value:
        return None
    value = value.strip()
    if _DELAY_SECONDS.fullmatch(value):
        seconds = float(value)
        return seconds if math.isfinite(seconds) else None
    try:
        when = email.utils.parsedate_to_datetime(value)
        seconds = when.timestamp() - (time.time() if now is None else now)
    except (TypeError, ValueError, OverflowError, IndexError, AttributeError):
        return None
    return max(0.0, seconds) if math.isfinite(seconds) else None


def retry_wait(attempt: int, retry_after: float | None, *, backoff_s: float, max_backoff_s: float) -> float:
    """Seconds to wait before retry ``attempt + 1``: the server's ``Retry-After`` when readable, else
    ``backoff_s * 2**attempt``; never more than ``max_backoff_s``."""
    if retry_after is not None:
        return min(max_backoff_s, retry_after)
    if backoff_s == 0:
        return 0.0
    grown = backoff_s * 2.0 ** attempt if attempt < 1024 else math.inf
    return min(max_backoff_s, grown)


class Deadline:
    """The deadline of one HTTP request: once ``seconds`` have passed, every socket attached to it is
    shut down (a blocked read returns at once) and :attr:`expired` is set. An attached socket waits at
    most ``per_read_s`` for each read (``None``: as it was). Use as a context manager."""

    def __init__(self, seconds: float, per_read_s: float | None = None) -> None:
        self.seconds = seconds
        self.per_read_s = per_read_s
        self.expired = False
        self._end = time.monotonic() + seconds
        self._sockets: list[socket.socket] = []
        self._lock = threading.Lock()
        self._timer = threading.Timer(seconds, self._expire)
        self._timer.daemon = True

    def remaining(self) -> float:
        return max(0.0, self._end - time.monotonic())

    def passed(self) -> bool:
        """Whether the deadline has passed (its timer may not have fired yet)."""
        return self.expired or self.remaining() == 0.0

    def attach(self, sock: socket.socket) -> None:
        """Shut ``sock`` down when the deadline passes (at once if it has)."""
        if self.per_read_s is not None:
            sock.settimeout(self.per_read_s)
        with self._lock:
            self._sockets.append(sock)
            if self.expired:
                _shutdown(sock)

    def _expire(self) -> None:
        with self._lock:
            self.expired = True
            for sock in self._sockets:
                _shutdown(sock)

    def __enter__(self) -> Deadline:
        self._end = time.monotonic() + self.seconds
        self._timer.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._timer.cancel()
        with self._lock:
            self._sockets.clear()


def _shutdown(sock: socket.socket) -> None:
    try:  # the plain socket's shutdown, also under TLS: the reader's SSL object is left alone
        socket.socket.shutdown(sock, socket.SHUT_RDWR)
    except OSError:
        pass  # already closed


_current = threading.local()  # .deadline: the Deadline of the request this thread is making


@contextmanager
def _deadline_of_this_thread(deadline: Deadline) -> Iterator[Deadline]:
    _current.deadline = deadline
    try:
        with deadline:
            yield deadline
    finally:
        _current.deadline = None


def _attach(sock: socket.socket | None) -> None:
    deadline = getattr(_current, "deadline", None)
    if deadline is not None and sock is not None:
        deadline.attach(sock)


class _WatchedHTTPConnection(http.client.HTTPConnection):
    """An HTTP connection whose socket the calling thread's :class:`Deadline` shuts down."""

    def connect(self) -> None:
        super().connect()
        _attach(self.sock)


class _WatchedHTTPSConnection(http.client.HTTPSConnection):
    """An HTTPS connection whose socket the calling thread's :class:`Deadline` shuts down."""

    def connect(self) -> None:
        super().connect()
        _attach(self.sock)


class _WatchedHTTPHandler(urllib.request.HTTPHandler):
    def do_open(self, http_class: Any, req: Any, **kw: Any) -> Any:
        return super().do_open(_WatchedHTTPConnection, req, **kw)


class _WatchedHTTPSHandler(urllib.request.HTTPSHandler):
    def do_open(self, http_class: Any, req: Any, **kw: Any) -> Any:
        return super().do_open(_WatchedHTTPSConnection, req, **kw)


class ResponseTooLarge(Exception):
    """A response body beyond ``max_response_bytes``."""


def read_capped(resp: Any, limit: int, chunk: int = READ_CHUNK) -> bytes:
    """The body of ``resp`` (an ``http.client.HTTPResponse``), read ``chunk`` bytes at a time; raises
    :class:`ResponseTooLarge` as soon as it exceeds ``limit`` bytes, before reading further (at once when
    its ``Content-Length`` says so), and ``http.client.IncompleteRead`` when the connection ends before
    the ``Content-Length`` it declared."""
    declared = resp.headers.get("Content-Length") if resp.headers is not None else None
    if declared and declared.strip().isdigit() and int(declared) > limit:
        raise ResponseTooLarge(f"declares {int(declared)} bytes")
    body = bytearray()
    while True:
        part = resp.read1(min(chunk, limit + 1 - len(body)))
        if not part:
            break
        body += part
        if len(body) > limit:
            raise ResponseTooLarge(f"sent more than {limit} bytes")
    if declared and declared.strip().isdigit() and len(body) < int(declared):
        raise http.client.IncompleteRead(bytes(body), int(declared) - len(body))
    return bytes(body)


@dataclass(slots=True)
class _Attempt:
    """One request's outcome: ``outputs`` (JSON values) or a failure ``reason``; ``retry``/``wait``."""

    outputs: list[Any] | None = None
    reason: str = ""
    retry: bool = False
    wait: float | None = None


def _number(key: str, value: Any, *, positive: bool) -> float:
    """A finite number (positive, or not negative) option, or a :class:`ConfigError` naming ``key``."""
    ok = (not isinstance(value, bool) and isinstance(value, int | float) and math.isfinite(value)
          and (value > 0 if positive else value >= 0))
    if not ok:
        raise ConfigError(f"{key} must be a finite number {'> 0' if positive else '>= 0'}, got {value!r}")
    return float(value)


class HTTPSystem(System[Any, Any]):
    """A JSON endpoint as a system of ``task`` (see the module doc for the protocol and the bounds)."""

    version: ClassVar[str] = "1"

    def __init__(self, task: str, *, url: str, model_version: str | None, items_per_request: int,
                 concurrency: int, timeout_s: float, deadline_s: float, max_response_bytes: int, max_retries: int,
                 backoff_s: float, max_backoff_s: float, requests_per_second: float | None,
                 headers: dict[str, str], auth_env: str | None, name: str | None = None) -> None:
        if not str(url).startswith(("http://", "https://")):
            raise ConfigError(f"url must be http(s)://..., got {url!r}")
        for key, value, low in (("items_per_request", items_per_request, 1), ("concurrency", concurrency, 1),
                                ("max_retries", max_retries, 0), ("max_response_bytes", max_response_bytes, 1)):
            if not isinstance(value, int) or isinstance(value, bool) or value < low:
                raise ConfigError(f"{key} must be an integer >= {low}, got {value!r}")
        self.task = task  # type: ignore[misc]
        self.url = str(url)
        self.model_version = model_version
        self.items_per_request = items_per_request
        self.concurrency = concurrency
        self.timeout_s = _number("timeout_s", timeout_s, positive=True)
        self.deadline_s = _number("deadline_s", deadline_s, positive=True)
        self.max_response_bytes = max_response_bytes
        self.max_retries = max_retries
        self.backoff_s = _number("backoff_s", backoff_s, positive=False)
        self.max_backoff_s = _number("max_backoff_s", max_backoff_s, positive=False)
        self.limiter = RateLimiter(requests_per_second)
        self.headers = {str(k): str(v) for k, v in dict(headers or {}).items()}
        self.auth_env = auth_env
        self.name = name or self.url
        self._task = get_task(task)
        self._opener = urllib.request.build_opener(_WatchedHTTPHandler(), _WatchedHTTPSHandler())
        self.requests = 0  # HTTP requests sent, retries included

    def config(self) -> dict[str, Any]:
        return {"url": self.url, "model_version": self.model_version}

    def _headers(self) -> dict[str, str]:
        h = {"Content-Type": "application/json", "Accept": "application/json", **self.headers}
        if self.auth_env:
            token = os.environ.get(self.auth_env)
            if not token:
                raise ConfigError(f"environment variable {self.auth_env} (auth_env of {self.name!r}) is not set")
            h["Authorization"] = f"Bearer {token}"
        return h

    def _fetch(self, body: bytes, headers: dict[str, str]) -> bytes | _Attempt:
        """The response body of one POST within ``deadline_s``, or the failed attempt."""
        req = urllib.request.Request(self.url, data=body, headers=headers, method="POST")
        # the connection waits at most the deadline, each read at most timeout_s, all of it the deadline
        with _deadline_of_this_thread(Deadline(self.deadline_s, per_read_s=self.timeout_s)) as deadline:
            try:
                with self._opener.open(req, timeout=min(self.timeout_s, self.deadline_s)) as resp:
                    raw: bytes | _Attempt = read_capped(resp, self.max_response_bytes)
            except ResponseTooLarge as exc:
                return _Attempt(reason=f"{self.url} answered a body over max_response_bytes="
                                       f"{self.max_response_bytes} ({exc}); not read further")
            except urllib.error.HTTPError as exc:  # a status line and headers arrived: a complete answer
                exc.close()
                wait = retry_after_seconds(exc.headers.get("Retry-After") if exc.headers else None)
                return _Attempt(reason=f"HTTP {exc.code} from {self.url}", retry=exc.code in RETRY_STATUS, wait=wait)
            except (urllib.error.URLError, http.client.HTTPException, OSError, ValueError) as exc:
                reason = getattr(exc, "reason", None) or exc
                raw = _Attempt(reason=f"request to {self.url} failed: {type(exc).__name__}: {reason}", retry=True)
        if deadline.passed():  # whatever the shutdown looked like: an error, or a body that ended early
            return _Attempt(reason=f"{self.url} gave no complete answer within deadline_s={self.deadline_s:g} s",
                            retry=True)
        return raw

    def _attempt(self, body: bytes, n: int, headers: dict[str, str]) -> _Attempt:
        self.limiter.wait()
        self.requests += 1
        raw = self._fetch(body, headers)
        if isinstance(raw, _Attempt):
            return raw
        try:
            data = json.loads(raw)
        except (UnicodeDecodeError, json.JSONDecodeError):
            return _Attempt(reason=f"{self.url} answered with a body that is not JSON", retry=True)
        outputs = data.get("outputs") if isinstance(data, dict) else None
        if not isinstance(outputs, list) or len(outputs) != n:
            got = f"{len(outputs)} outputs" if isinstance(outputs, list) else "no 'outputs' list"
            return _Attempt(reason=f"{self.url} answered {got} for {n} inputs", retry=True)
        return _Attempt(outputs=outputs)

    def _request(self, items: list[Any]) -> list[Any]:
        body = json.dumps({"task": self.task, "inputs": [self._task.encode_input(x) for x in items]},
                          ensure_ascii=False).encode("utf-8")
        headers = self._headers()
        for attempt in range(self.max_retries + 1):
            got = self._attempt(body, len(items), headers)
            if got.outputs is not None:
                return [decode_json_output(self._task, o, f"outputs[{i}]") for i, o in enumerate(got.outputs)]
            if not got.retry or attempt == self.max_retries:
                tries = f" (after {attempt + 1} attempts)" if got.retry else ""
                return [ItemFailure(got.reason + tries)] * len(items)
            time.sleep(retry_wait(attempt, got.wait, backoff_s=self.backoff_s, max_backoff_s=self.max_backoff_s))
        raise AssertionError("unreachable")

    def predict(self, inputs: list[Any]) -> list[Any]:
        chunks = [inputs[i:i + self.items_per_request] for i in range(0, len(inputs), self.items_per_request)]
        if len(chunks) <= 1 or self.concurrency == 1:
            answers = [self._request(c) for c in chunks]
        else:
            with ThreadPoolExecutor(max_workers=min(self.concurrency, len(chunks))) as pool:
                answers = list(pool.map(self._request, chunks))
        return [o for a in answers for o in a]
