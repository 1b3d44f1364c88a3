"""A test case as one flat, typed row: the columns of a released suite.

Scalars a user filters on are typed columns (``id``, ``technique``, ``relation``, ``expectation``,
``seed_id``, ``transformation``, ``source_text``, ``followup_text``); everything nested (the full
source and follow-up payloads, the expectation's parameters, the provenance parameters, meta) is a
JSON string column, so that every row has the same schema whatever the technique.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping, Sequence
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
    "group": "string",
    "source_text": "string",
    "followup_text": "string",
    "source": "string",
    "followup": "string",
    "expected": "string",
    "provenance": "string",
    "meta": "string",
    "line_sha256": "string",
}
#: the columns that carry text of the source corpus (null in a release whose licence forbids redistribution)
TEXT_COLUMNS: tuple[str, ...] = ("source_text", "followup_text", "source", "followup", "provenance", "meta")
#: the columns of a release of sources (a technique that generates its cases per system under test)
SOURCE_COLUMNS: dict[str, str] = {"id": "string", "tokens": "string", "text": "string", "gold": "string",
                                  "n_tokens": "int64", "line_sha256": "string"}
SOURCE_TEXT_COLUMNS: tuple[str, ...] = ("tokens", "text")
#: the columns of a recipe release (files too large for git, or not redistributable, and regenerated
#: by their DVC stage): one row per file
RECIPE_COLUMNS: dict[str, str] = {"path": "string", "sha256": "string", "bytes": "int64"}


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


def case_from_line(text: str, *, path: Any, line: int) -> TestCase:
    """One suite line as a test case; a bad line is an :class:`~lingtest.errors.InputError` naming the
    file, the line and (where one is missing) the field."""
    from lingtest.errors import InputError

    try:
        return TestCase.from_dict(json.loads(text))
    except json.JSONDecodeError as exc:
        raise InputError(f"invalid JSON ({exc.msg})", path=path, line=line) from None
    except KeyError as exc:
        raise InputError("missing required field", path=path, line=line, field=str(exc.args[0])) from None
    except (TypeError, ValueError) as exc:
        raise InputError(str(exc), path=path, line=line) from None


def line_sha256(line: str | bytes) -> str:
    """The sha256 of one JSONL line (without its newline): what ties a released row to its suite line."""
    data = line.encode("utf-8") if isinstance(line, str) else line
    return hashlib.sha256(data.rstrip(b"\r\n")).hexdigest()


def case_row(case: TestCase, *, group: str | None = None, line_hash: str | None = None,
             withheld: bool = False) -> dict[str, str | None]:
    """The flat row of one test case (keys: :data:`COLUMNS`); ``withheld``: the :data:`TEXT_COLUMNS` null."""
    row = _case_row(case)
    row["group"] = group if group is not None else case.provenance.transformation
    row["line_sha256"] = line_hash
    if withheld:
        for c in TEXT_COLUMNS:
            row[c] = None
    return {c: row.get(c) for c in COLUMNS}


def _case_row(case: TestCase) -> dict[str, str | None]:
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


def arrow_schema(columns: Mapping[str, str] | None = None) -> Any:
    import pyarrow as pa

    types = {"string": pa.string(), "int64": pa.int64()}
    return pa.schema([(name, types[t]) for name, t in (columns or COLUMNS).items()])


def rows_to_table(rows: list[dict[str, Any]], columns: Mapping[str, str] | None = None) -> Any:
    """A pyarrow Table with :func:`arrow_schema` (no pandas metadata, so the bytes depend on the rows only)."""
    import pyarrow as pa

    return pa.Table.from_pylist(rows, schema=arrow_schema(columns))


def rows_sha256(rows: Sequence[Mapping[str, Any]]) -> str:
    """The sha256 of the rows as canonical JSON, one per line: what the release index records of a
    release's Parquet content (independent of Parquet's bytes)."""
    h = hashlib.sha256()
    for row in rows:
        h.update(dumps(dict(row)).encode("utf-8"))
        h.update(b"\n")
    return h.hexdigest()


def ner_sentence_records(doc: Any) -> list[dict[str, Any]]:
    """A tagged document as NER source records ``{"id", "tokens", "gold"}``, one per sentence: gold
    entities ``[start, end, label]`` decoded from the tokens' IOB tags by conlleval's rules. A
    one-sentence document whose id ends in ``/<k>`` keeps its id; other sentences are ``<doc id>/<k>``
    (the ids a sentence-level technique gives them)."""
    from lingtest.metrics.ner import chunks

    out = []
    keep = len(doc.sentences) == 1 and re.search(r"/\d+$", str(doc.id)) is not None
    for k, sent in enumerate(doc.sentences):
        tags = [t.ent or "O" for t in sent.tokens]
        gold = [[c.start, c.end, c.type] for c in chunks(tags, "iob2")]
        out.append({"id": str(doc.id) if keep else f"{doc.id}/{k}", "tokens": [t.text for t in sent.tokens],
                    "gold": gold})
    return out


def source_row(record: Mapping[str, Any], *, withheld: bool) -> dict[str, Any]:
    """The flat row of one NER source record (keys: :data:`SOURCE_COLUMNS`)."""
    tokens = list(record["tokens"])
    row: dict[str, Any] = {"id": record["id"], "tokens": dumps(tokens), "text": " ".join(tokens),
                           "gold": dumps(record.get("gold")), "n_tokens": len(tokens),
                           "line_sha256": line_sha256(dumps(dict(record)))}
    if withheld:
        for c in SOURCE_TEXT_COLUMNS:
            row[c] = None
    return row
