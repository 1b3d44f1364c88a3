"""Azure AI Language named-entity recognition (Text Analytics REST API v3.1,
``POST {endpoint}/text/analytics/v3.1/entities/recognition/general``), the paper's Azure system.

Credentials come from the environment only: the resource key from ``$AZURE_LANGUAGE_KEY`` (the
variable's name is the ``key_env`` option; the key itself never goes into a config) and the endpoint
from the ``endpoint`` option or ``$AZURE_LANGUAGE_ENDPOINT``. Sentences are sent ``documents_per_request``
at a time (the service takes at most 5 per NER request) with ``stringIndexType=UnicodeCodePoint``,
so offsets are Python string indices; the label of an entity is its ``category`` (TIN's choice:
``Person``, ``Location``, ``Organization``, ``Event``, ...; the subcategory is ignored). A throttled
(429) or failed (5xx) request, and a connection error or timeout, is retried ``max_retries`` times,
waiting the server's ``Retry-After`` (seconds or an HTTP date) or ``backoff_s * 2**attempt``, never
more than ``max_backoff_s`` (the rules of :func:`lingtest.systems.generic.http.retry_wait`, so a
server asking for an hour cannot stall a run); any other failure, and any per-document error, is a
:class:`~lingtest.errors.SystemFailure` (nothing of that batch is cached). :func:`parse_response` is
what the tests exercise on recorded responses.
"""

from __future__ import annotations

import os
import time
from collections.abc import Sequence
from typing import Any

from lingtest.data.model import Entity
from lingtest.errors import InputError, MissingResourceError, SystemFailure
from lingtest.systems.generic.http import retry_after_seconds, retry_wait
from lingtest.systems.ner.base import NERSystem, Tokens
from lingtest.systems.ner.cloud import CharEntity, char_entities_to_tokens
from lingtest.systems.ner.spans import join_tokens

PATH = "/text/analytics/v3.1/entities/recognition/general"
MAX_DOCUMENTS = 5  # the v3.1 service's limit per synchronous NER request
RETRY_STATUS = frozenset({429, 500, 502, 503, 504})


def build_request(texts: Sequence[str], *, language: str, model_version: str) -> tuple[dict[str, str], dict]:
    """Query parameters and JSON body for one request; document ids are the texts' positions."""
    params = {"model-version": model_version, "stringIndexType": "UnicodeCodePoint", "showStats": "false"}
    body = {"documents": [{"id": str(i), "language": language, "text": t} for i, t in enumerate(texts)]}
    return params, body


def _number(v: Any, where: str, kind: type) -> Any:
    if isinstance(v, bool) or not isinstance(v, int | float) or (kind is int and not isinstance(v, int)):
        raise InputError(f"expected a {kind.__name__}, got {v!r}", field=where)
    return v


def parse_response(payload: Any, n_documents: int) -> list[list[CharEntity]]:
    """The character entities of documents ``0 .. n_documents - 1`` from a v3.1
    ``entities/recognition/general`` response. A per-document error raises :class:`SystemFailure`;
    a response of the wrong shape (a document missing, twice, or unknown; a field missing or of the
    wrong type) raises :class:`InputError` naming the field."""
    if not isinstance(payload, dict) or not isinstance(payload.get("documents"), list):
        raise InputError("expected an object with a 'documents' list", field="documents")
    errors = payload.get("errors") or []
    if errors:
        first: dict[str, Any] = errors[0] if isinstance(errors[0], dict) else {}
        err: dict[str, Any] = first["error"] if isinstance(first.get("error"), dict) else {}
        inner: dict[str, Any] = err["innererror"] if isinstance(err.get("innererror"), dict) else {}
        raise SystemFailure(f"Azure NER rejected {len(errors)} document(s); document {first.get('id')!r}: "
                            f"{err.get('code')}: {err.get('message')}"
                            + (f" ({inner.get('code')}: {inner.get('message')})" if inner else ""))
    out: dict[int, list[CharEntity]] = {}
    for d, doc in enumerate(payload["documents"]):
        where = f"documents[{d}]"
        if not isinstance(doc, dict) or not isinstance(doc.get("entities"), list):
            raise InputError("expected an object with an 'entities' list", field=where)
        try:
            idx = int(doc["id"])
        except (TypeError, ValueError):
            raise InputError(f"unknown document id {doc.get('id')!r}", field=f"{where}.id") from None
        if not 0 <= idx < n_documents or idx in out:
            raise InputError(f"unexpected or repeated document id {doc.get('id')!r}", field=f"{where}.id")
        ents = []
        for k, e in enumerate(doc["entities"]):
            w = f"{where}.entities[{k}]"
            if not isinstance(e, dict) or not isinstance(e.get("category"), str) or not e["category"]:
                raise InputError("expected an entity object with a 'category'", field=w)
            offset = _number(e.get("offset"), f"{w}.offset", int)
            length = _number(e.get("length"), f"{w}.length", int)
            score = _number(e.get("confidenceScore", 0.0), f"{w}.confidenceScore", float)
            text = e.get("text")
            ents.append(CharEntity(offset, offset + length, e["category"], float(score),
                                   text if isinstance(text, str) else None))
        out[idx] = ents
    missing = [i for i in range(n_documents) if i not in out]
    if missing:
        raise InputError(f"the response has no result for document(s) {missing}", field="documents")
    return [out[i] for i in range(n_documents)]


class AzureNERSystem(NERSystem):
    """Azure's general NER. ``endpoint``: the resource endpoint (``None``: ``$<endpoint_env>``);
    ``key_env``: the environment variable that holds the key; ``language``: the documents' language;
    ``model_version``: the service's model (``latest`` moves: pin a dated version for cached results
    that stay comparable); ``documents_per_request`` (1-5), ``timeout_s`` (connection and each read),
    ``max_retries``, ``backoff_s`` and ``max_backoff_s`` (the longest wait, ``Retry-After`` included):
    transport.
    ``session``: a ``requests.Session``-like object (tests; default: a new ``requests.Session``)."""

    name = "azure_ner"
    version = "1"
    label_scheme = "azure"

    def __init__(self, endpoint: str | None = None, *, language: str, model_version: str,
                 documents_per_request: int, timeout_s: float, max_retries: int, backoff_s: float,
                 max_backoff_s: float,
                 endpoint_env: str = "AZURE_LANGUAGE_ENDPOINT", key_env: str = "AZURE_LANGUAGE_KEY",
                 session: Any = None) -> None:
        if not 1 <= int(documents_per_request) <= MAX_DOCUMENTS:
            raise ValueError(f"documents_per_request must be 1..{MAX_DOCUMENTS}, got {documents_per_request}")
        if int(max_retries) < 0:
            raise ValueError(f"max_retries must be >= 0, got {max_retries}")
        if not 0 <= float(backoff_s) <= float(max_backoff_s):
            raise ValueError(f"need 0 <= backoff_s <= max_backoff_s, got {backoff_s} and {max_backoff_s}")
        self.endpoint = endpoint
        self.language = language
        self.model_version = model_version
        self.documents_per_request = int(documents_per_request)
        self.timeout_s = float(timeout_s)
        self.max_retries = int(max_retries)
        self.backoff_s = float(backoff_s)
        self.max_backoff_s = float(max_backoff_s)
        self.endpoint_env = endpoint_env
        self.key_env = key_env
        self._session = session

    def config(self) -> dict[str, Any]:
        return {"language": self.language, "model_version": self.model_version}

    def _credentials(self) -> tuple[str, str]:
        endpoint = self.endpoint or os.environ.get(self.endpoint_env)
        key = os.environ.get(self.key_env)
        if not endpoint or not key:
            raise MissingResourceError(
                f"Azure NER needs the endpoint (option endpoint or ${self.endpoint_env}) and the key "
                f"(${self.key_env}) of an Azure AI Language resource")
        return endpoint.rstrip("/"), key

    def _wait(self, attempt: int, retry_after: float | None) -> float:
        return retry_wait(attempt, retry_after, backoff_s=self.backoff_s, max_backoff_s=self.max_backoff_s)

    def _post(self, url: str, key: str, params: dict[str, str], body: dict) -> Any:
        if self._session is None:
            import requests

            self._session = requests.Session()
        headers = {"Ocp-Apim-Subscription-Key": key, "Content-Type": "application/json"}
        for attempt in range(self.max_retries + 1):
            try:
                resp = self._session.post(url, params=params, json=body, headers=headers,
                                          timeout=self.timeout_s)
            except OSError as exc:  # requests' ConnectionError/Timeout are OSErrors
                if attempt == self.max_retries:
                    raise SystemFailure(f"Azure NER request failed: {exc}") from exc
                time.sleep(self._wait(attempt, None))
                continue
            if resp.status_code == 200:
                return resp.json()
            if resp.status_code in RETRY_STATUS and attempt < self.max_retries:
                time.sleep(self._wait(attempt, retry_after_seconds(resp.headers.get("Retry-After"))))
                continue
            raise SystemFailure(f"Azure NER answered HTTP {resp.status_code}: {resp.text[:300]}")
        raise AssertionError("unreachable")

    def predict(self, inputs: list[Tokens]) -> list[list[Entity]]:
        if not inputs:
            return []
        endpoint, key = self._credentials()
        out: list[list[Entity]] = []
        for start in range(0, len(inputs), self.documents_per_request):
            chunk = inputs[start:start + self.documents_per_request]
            params, body = build_request([join_tokens(t)[0] for t in chunk], language=self.language,
                                         model_version=self.model_version)
            payload = self._post(endpoint + PATH, key, params, body)
            for k, (tokens, found) in enumerate(zip(chunk, parse_response(payload, len(chunk)), strict=True)):
                out.append(char_entities_to_tokens(tokens, found, f"documents[id={k}].entities"))
        return out
