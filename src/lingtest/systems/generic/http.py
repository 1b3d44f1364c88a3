"""``kind: http``: a JSON endpoint as a system under test of any task.

Protocol (one POST per ``items_per_request`` inputs)::

    request   {"task": "<task>", "inputs": [<input in the task's JSON form>, ...]}
    response  {"outputs": [<output in the task's JSON form> | {"error": "<reason>"}, ...]}   (same length)

(the JSON forms are those of :class:`~lingtest.systems.tasks.Task`; see :mod:`.callable`). A batch from
the cache is split into requests that run ``concurrency`` at a time, at most ``requests_per_second``
(null: no limit) started per second over all threads. A request that times out (``timeout_s``, for
the connection and for each read), fails to connect, answers 408/429/5xx or sends a body that is not
the protocol is retried up to ``max_retries`` times, waiting ``Retry-After`` when the server sends it and
``backoff_s * 2**attempt`` (at most ``max_backoff_s``) otherwise. What still fails, and every input of a
request answered with another 4xx, becomes an :class:`~lingtest.systems.base.ItemFailure` for those
inputs only, as does an ``{"error": ...}`` or malformed entry: the rest of the batch is kept and cached,
the failures never are.

``model_version`` is part of the cache key (the URL cannot tell when the model behind it changes: pin
it). A bearer token is read from the environment variable named by ``auth_env`` (never from the config).
"""

from __future__ import annotations

import email.utils
import json
import os
import threading
import time
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, ClassVar

from lingtest.errors import ConfigError
from lingtest.systems.base import ItemFailure, System
from lingtest.systems.generic.callable import decode_json_output
from lingtest.systems.tasks import get_task

RETRY_STATUS = frozenset({408, 429, 500, 502, 503, 504})


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


def retry_after_seconds(value: str | None) -> float | None:
    """``Retry-After`` as seconds (delta-seconds or an HTTP date); ``None`` when absent or unreadable."""
    if not value:
        return None
    value = value.strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when is None:
        return None
    return max(0.0, when.timestamp() - time.time())


@dataclass(slots=True)
class _Attempt:
    """One request's outcome: ``outputs`` (JSON values) or a failure ``reason``; ``retry``/``wait``."""

    outputs: list[Any] | None = None
    reason: str = ""
    retry: bool = False
    wait: float | None = None


class HTTPSystem(System[Any, Any]):
    """A JSON endpoint as a system of ``task`` (see the module doc for the protocol)."""

    version: ClassVar[str] = "1"

    def __init__(self, task: str, *, url: str, model_version: str | None, items_per_request: int,
                 concurrency: int, timeout_s: float, max_retries: int, backoff_s: float, max_backoff_s: float,
                 requests_per_second: float | None, headers: dict[str, str], auth_env: str | None,
                 name: str | None = None) -> None:
        if not str(url).startswith(("http://", "https://")):
            raise ConfigError(f"url must be http(s)://..., got {url!r}")
        for key, value, low in (("items_per_request", items_per_request, 1), ("concurrency", concurrency, 1),
                                ("max_retries", max_retries, 0)):
            if not isinstance(value, int) or isinstance(value, bool) or value < low:
                raise ConfigError(f"{key} must be an integer >= {low}, got {value!r}")
        if timeout_s <= 0 or backoff_s < 0 or max_backoff_s < 0:
            raise ConfigError("timeout_s must be positive, backoff_s and max_backoff_s not negative")
        self.task = task  # type: ignore[misc]
        self.url = str(url)
        self.model_version = model_version
        self.items_per_request = items_per_request
        self.concurrency = concurrency
        self.timeout_s = float(timeout_s)
        self.max_retries = max_retries
        self.backoff_s = float(backoff_s)
        self.max_backoff_s = float(max_backoff_s)
        self.limiter = RateLimiter(requests_per_second)
        self.headers = {str(k): str(v) for k, v in dict(headers or {}).items()}
        self.auth_env = auth_env
        self.name = name or self.url
        self._task = get_task(task)
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

    def _attempt(self, body: bytes, n: int, headers: dict[str, str]) -> _Attempt:
        self.limiter.wait()
        self.requests += 1
        req = urllib.request.Request(self.url, data=body, headers=headers, method="POST")
        try:
            with urllib.request.urlopen(req, timeout=self.timeout_s) as resp:
                raw = resp.read()
        except urllib.error.HTTPError as exc:
            wait = retry_after_seconds(exc.headers.get("Retry-After") if exc.headers else None)
            return _Attempt(reason=f"HTTP {exc.code} from {self.url}", retry=exc.code in RETRY_STATUS, wait=wait)
        except (urllib.error.URLError, TimeoutError, ConnectionError, OSError) as exc:
            reason = getattr(exc, "reason", exc)
            return _Attempt(reason=f"request to {self.url} failed: {reason}", retry=True)
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
            wait = got.wait if got.wait is not None else min(self.max_backoff_s, self.backoff_s * 2 ** attempt)
            time.sleep(wait)
        raise AssertionError("unreachable")

    def predict(self, inputs: list[Any]) -> list[Any]:
        chunks = [inputs[i:i + self.items_per_request] for i in range(0, len(inputs), self.items_per_request)]
        if len(chunks) <= 1 or self.concurrency == 1:
            answers = [self._request(c) for c in chunks]
        else:
            with ThreadPoolExecutor(max_workers=min(self.concurrency, len(chunks))) as pool:
                answers = list(pool.map(self._request, chunks))
        return [o for a in answers for o in a]
