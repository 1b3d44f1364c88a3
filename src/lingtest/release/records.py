"""A test case as one flat, typed row: the columns of a released suite.

Scalars a user filters on are typed columns (``id``, ``technique``, ``relation``, ``expectation``,
``seed_id``, ``transformation``, ``source_text``, ``followup_text``); everything nested (the full
source and follow-up payloads, the expectation's parameters, the provenance parameters, meta) is a
JSON string column, so that every row has the same schema whatever the technique.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from lingtest.data.model import TestCase

# column name -> Hugging Face `datasets` dtype (all strings: a nullable string is still `string`)
COLUMNS: dict[str, str] = {
    "id": "string",
    "technique": "string",
    "relation": "string",
    "expectation": "string",
    "seed_id": "string",
    "transformation": "string",
    "source_text": "string",
    "followup_text": "string",
    "source": "string",
    "followup": "string",
    "expected": "string",
    "provenance": "string",
    "meta": "string",
}


def dumps(obj: Any) -> str:
    """Canonical JSON (sorted keys, no spaces, UTF-8 kept): the same object gives the same bytes."""
    return json.dumps(obj, ensure_ascii=False, sort_keys=True, separators=(",", ":"))


def payload_text(payload: Mapping[str, Any] | None) -> str | None:
    """A readable text of a source or follow-up payload: ``text`` (or ``src``) when present, else the
    words of a document's sentences, one sentence per line."""
    if payload is None:
        return None
    for key in ("text", "src", "sentence"):
        if isinstance(payload.get(key), str):
            return str(payload[key])
    sentences = payload.get("sentences")
    if isinstance(sentences, list):
        lines = []
        for s in sentences:
            tokens = s.get("tokens", []) if isinstance(s, Mapping) else []
            lines.append(" ".join(str(t.get("text", "")) if isinstance(t, Mapping) else str(t) for t in tokens))
        return "\n".join(lines)
    tokens = payload.get("tokens")
    if isinstance(tokens, list):
        return " ".join(str(t.get("text", "")) if isinstance(t, Mapping) else str(t) for t in tokens)
    return dumps(payload)


def expectation_name(expected: Any) -> str:
    if isinstance(expected, Mapping):
        return str(expected.get("name", ""))
    return str(expected) if expected is not None else ""


def case_row(case: TestCase) -> dict[str, str | None]:
    """The flat row of one test case (keys: :data:`COLUMNS`)."""
    prov = case.provenance
    return {
        "id": case.id,
        "technique": case.technique,
        "relation": case.relation,
        "expectation": expectation_name(case.expected),
        "seed_id": prov.seed_id,
        "transformation": prov.transformation,
        "source_text": payload_text(case.source),
        "followup_text": payload_text(case.followup),
        "source": dumps(case.source),
        "followup": dumps(case.followup) if case.followup is not None else None,
        "expected": dumps(case.expected),
        "provenance": dumps(prov.params),
        "meta": dumps(case.meta),
    }


def arrow_schema() -> Any:
    import pyarrow as pa

    return pa.schema([(name, pa.string()) for name in COLUMNS])


def rows_to_table(rows: list[dict[str, str | None]]) -> Any:
    """A pyarrow Table with :func:`arrow_schema` (no pandas metadata, so the bytes depend on the rows only)."""
    import pyarrow as pa

    return pa.Table.from_pylist(rows, schema=arrow_schema())
