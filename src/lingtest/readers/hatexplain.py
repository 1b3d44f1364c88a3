"""HateXplain readers: the official ``dataset.json`` and the header-less CSV variant.

Each post becomes one :class:`Document` with one :class:`Sentence` of ``post_tokens``.

* ``Document.label``: the majority of the annotators' labels (``hatespeech``, ``offensive``,
  ``normal``). When no label has a majority (three annotators, three different labels) the
  label is ``"undecided"`` and ``meta["undecided"]`` is ``True``: such posts are kept but
  flagged, as in the HateXplain paper, which leaves them out of training and evaluation.
* ``meta["targets"]``: communities named by at least ``min_target_votes`` annotators (2 by
  default, the paper's rule), sorted; ``meta["targets_all"]``: every community any annotator
  named. ``"None"`` (the annotators' word for no target) is dropped from both.
* ``meta["rationales"]``: the per-annotator 0/1 token masks as given;
  ``meta["rationale"]``: their token-wise majority (a token is in it when more than half of the
  masks mark it; empty when there are no masks, as for normal posts).
* ``meta["annotators"]``: ``[{"label", "annotator_id", "target"}, ...]`` as read.
* ``Document.split`` comes from ``post_id_divisions.json`` (``train``/``val``/``test``) when it
  is given (or found beside ``dataset.json``); ``split=`` keeps only that split. With divisions, a
  post they do not list is an error (the official file lists every post), as is a split other
  than those three.

Documents are yielded in file order and their id is the ``post_id``. Every field is type-checked
(labels, annotator ids, targets as lists of strings, rationales as 0/1 integer lists, tokens as
strings); a post id given twice, a key given twice in a JSON object, a key outside the official
schema (:data:`POST_KEYS`, :data:`ANNOTATOR_KEYS`: a misspelt ``rationales`` would otherwise
drop the rationales) and a file without posts are errors.
"""

from __future__ import annotations

import ast
import csv
import json
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any, NoReturn

from lingtest.data.model import Document, Sentence, Token
from lingtest.errors import InputError
from lingtest.readers.textio import (
    TextLimits,
    csv_rows,
    guarded,
    is_int,
    is_str_list,
    loads_json,
    read_lines,
    read_text,
    shorten,
)

LABELS = ("hatespeech", "normal", "offensive")  # CSV ids 0, 1, 2 (the official LabelEncoder order)
SPLITS = ("train", "val", "test")  # the splits of post_id_divisions.json
POST_KEYS = frozenset({"post_id", "annotators", "rationales", "post_tokens"})  # dataset.json, per post
ANNOTATOR_KEYS = frozenset({"label", "annotator_id", "target"})
UNDECIDED = "undecided"
_LABEL_ALIASES = {"hatespeech": "hatespeech", "hate speech": "hatespeech", "hate": "hatespeech",
                  "offensive": "offensive", "normal": "normal"}


# --------------------------------------------------------------------------------------------
# pure aggregation
# --------------------------------------------------------------------------------------------
def majority_label(labels: Sequence[str]) -> str:
    """The label given by more than half of the annotators, else ``"undecided"``."""
    if not labels:
        return UNDECIDED
    label, count = Counter(labels).most_common(1)[0]
    return label if count * 2 > len(labels) else UNDECIDED


def aggregate_targets(targets: Sequence[Sequence[str]], min_votes: int = 2) -> tuple[list[str], list[str]]:
    """(targets named by ``>= min_votes`` annotators, all targets named), each sorted; ``None``
    entries are ignored and an annotator naming a target twice counts once."""
    votes: Counter[str] = Counter()
    for t in targets:
        votes.update({x for x in t if x and x != "None"})
    return sorted(t for t, c in votes.items() if c >= min_votes), sorted(votes)


def majority_rationale(rationales: Sequence[Sequence[int]], n_tokens: int) -> list[int]:
    """Token-wise majority of 0/1 masks (1 where more than half of the masks have 1)."""
    if not rationales:
        return []
    return [int(sum(m[i] for m in rationales) * 2 > len(rationales)) for i in range(n_tokens)]


def load_divisions(path: str | Path, limits: TextLimits | None = None) -> dict[str, str]:
    """``post_id_divisions.json`` as ``post_id -> split`` (read within ``limits``)."""
    path = Path(path)
    data, text = _load_json(path, limits)
    if not isinstance(data, dict):
        raise InputError("expected an object {split: [post ids]}", path=path, line=1)
    out: dict[str, str] = {}
    for split, ids in data.items():
        if split not in SPLITS:
            raise InputError(f"unknown split {shorten(split)} (expected {', '.join(SPLITS)})", path=path,
                             line=_line_of(text, split), field=split)
        if not is_str_list(ids):
            raise InputError("expected a list of post ids (strings)", path=path, line=_line_of(text, split),
                             field=split)
        for pid in ids:
            if pid in out:
                raise InputError(f"post {shorten(pid)} is in two splits ({out[pid]!r} and {split!r})",
                                 path=path, line=_line_of(text, pid, last=True), field=split)
            out[pid] = split
    return out


def _load_json(path: Path, limits: TextLimits | None) -> tuple[Any, str]:
    text = read_text(path, limits=limits)
    return loads_json(text, path), text


def _line_of(text: str, key: str, last: bool = False) -> int | None:
    """Line of the (first or last) JSON string ``key`` in ``text``, for messages."""
    needle = json.dumps(key)
    pos = text.rfind(needle) if last else text.find(needle)
    return text.count("\n", 0, pos) + 1 if pos >= 0 else None


def _post_document(post_id: str, annotators: list[dict[str, Any]], rationales: list[list[int]],
                   tokens: list[str], split: str | None, min_target_votes: int,
                   err: Callable[[str, str], NoReturn]) -> Document:
    """Build the Document of one post; ``err(message, field)`` raises the located InputError."""
    if not tokens:
        err("empty post", "post_tokens")
    if not all(isinstance(t, str) for t in tokens):
        err("post_tokens must be strings", "post_tokens")
    if not annotators:
        err("no annotators", "annotators")
    labels: list[str] = []
    for a in annotators:
        raw = a.get("label")
        name = _LABEL_ALIASES.get(raw.strip().lower()) if isinstance(raw, str) else None
        if name is None:
            err(f"unknown label {shorten(raw)} (expected one of {', '.join(LABELS)})", "annotators.label")
        labels.append(name)
        aid = a.get("annotator_id")
        if not (aid is None or is_int(aid) or isinstance(aid, str)):
            err(f"annotator_id must be an integer or a string, found {shorten(aid)}",
                "annotators.annotator_id")
        target = a.get("target")
        if not (target is None or is_str_list(target)):
            err(f"target must be a list of strings, found {shorten(target)}", "annotators.target")
    for i, mask in enumerate(rationales):
        if not isinstance(mask, list) or len(mask) != len(tokens) or \
                any(not is_int(v) or v not in (0, 1) for v in mask):
            err(f"rationale {i} must be a 0/1 integer list of length {len(tokens)}", "rationales")
    label = majority_label(labels)
    targets, targets_all = aggregate_targets([a.get("target") or [] for a in annotators], min_target_votes)
    meta: dict[str, Any] = {
        "annotators": [
            {"label": lab, "annotator_id": a.get("annotator_id"), "target": list(a.get("target") or [])}
            for lab, a in zip(labels, annotators, strict=True)
        ],
        "undecided": label == UNDECIDED,
        "targets": targets,
        "targets_all": targets_all,
        "rationales": [list(m) for m in rationales],
        "rationale": majority_rationale(rationales, len(tokens)),
    }
    sent = Sentence(tokens=[Token(text=t) for t in tokens], id=f"{post_id}-s0", label=label)
    return Document(id=post_id, sentences=[sent], split=split, label=label, meta=meta)


def _split_of(post_id: str, div: dict[str, str] | None, err: Callable[[str, str], NoReturn]) -> str | None:
    """The split of ``post_id`` in the divisions (``None`` without them); a post they do not list
    is an error."""
    if div is None:
        return None
    got = div.get(post_id)
    if got is None:
        err(f"post_id {shorten(post_id)} is in no split of post_id_divisions.json", "post_id")
    return got


def _divisions_for(path: Path, divisions: str | Path | None, limits: TextLimits) -> dict[str, str] | None:
    if divisions is not None:
        return load_divisions(divisions, limits)
    beside = path.parent / "post_id_divisions.json"
    return load_divisions(beside, limits) if beside.is_file() else None


# --------------------------------------------------------------------------------------------
# readers
# --------------------------------------------------------------------------------------------
@guarded(None)  # split= may select nothing; an empty file is checked below
def read_hatexplain_json(path: str | Path, *, divisions: str | Path | None, split: str | None,
                         min_target_votes: int, max_line_bytes: int, max_file_bytes: int) -> Iterator[Document]:
    """Read the official ``dataset.json`` (``{post_id: {post_id, annotators, rationales,
    post_tokens}}``). ``divisions`` is ``post_id_divisions.json`` (default: the one beside
    ``path`` if any); ``split`` keeps only that split's posts (it needs divisions).
    ``max_line_bytes`` and ``max_file_bytes`` cap what is read.
    Errors give the line where the post's entry starts."""
    path = Path(path)
    limits = TextLimits(max_line_bytes, max_file_bytes)
    div = _divisions_for(path, divisions, limits)
    if split is not None and div is None:
        raise InputError("split= needs post_id_divisions.json (pass divisions=)", path=path)
    data, raw_text = _load_json(path, limits)
    if not isinstance(data, dict):
        raise InputError("expected an object {post_id: post}", path=path, line=1)
    if not data:
        raise InputError("no posts: the file holds an empty object", path=path, line=1)
    seen: set[str] = set()
    for key, post in data.items():
        def err(message: str, field: str, _key: str = key) -> NoReturn:
            raise InputError(f"post {_key}: {message}", path=path, line=_line_of(raw_text, _key), field=field)

        if not isinstance(post, dict):
            err("expected an object", "post")
        unknown = sorted(set(post) - POST_KEYS)
        if unknown:
            err(f"unknown field {shorten(unknown[0])} (a post has {', '.join(sorted(POST_KEYS))})", unknown[0])
        for fld in ("annotators", "post_tokens"):
            if fld not in post:
                err("missing field", fld)
        post_id = post.get("post_id", key)
        if not isinstance(post_id, str) or not post_id:
            err(f"post_id must be a non-empty string, found {shorten(post_id)}", "post_id")
        if post_id in seen:
            err(f"post_id {shorten(post_id)} occurs twice", "post_id")
        seen.add(post_id)
        post_split = _split_of(post_id, div, err)
        if split is not None and post_split != split:
            continue
        annotators = post["annotators"]
        if not isinstance(annotators, list) or not all(isinstance(a, dict) for a in annotators):
            err("annotators must be a list of objects", "annotators")
        for a in annotators:
            extra = sorted(set(a) - ANNOTATOR_KEYS)
            if extra:
                err(f"unknown field {shorten(extra[0])} (an annotator has {', '.join(sorted(ANNOTATOR_KEYS))})",
                    f"annotators.{extra[0]}")
        rationales = post.get("rationales")
        if rationales is None:
            rationales = []
        if not isinstance(rationales, list):
            err("rationales must be a list", "rationales")
        tokens = post["post_tokens"]
        if not isinstance(tokens, list):
            err("post_tokens must be a list", "post_tokens")
        yield _post_document(post_id, annotators, rationales, tokens, post_split, min_target_votes, err)


def _literal(text: str, expected: type, err: Callable[[str, str], NoReturn], field: str) -> Any:
    try:
        value = ast.literal_eval(text)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        err(f"not a Python literal: {text[:60]!r}", field)
    if not isinstance(value, expected):
        err(f"expected a {expected.__name__}, found {type(value).__name__}", field)
    return value


@guarded(None)  # split= may select nothing; an empty file is checked below
def read_hatexplain_csv(path: str | Path, *, divisions: str | Path | None, split: str | None,
                        min_target_votes: int, encoding: str, max_line_bytes: int,
                        max_file_bytes: int) -> Iterator[Document]:
    """Read the header-less CSV variant (``df_{val,test}_with_rationales.csv``).

    Columns: ``post_id``, annotators as a Python dict literal ``{'label': [ids],
    'annotator_id': [...], 'target': [[...], ...]}`` with label ids 0 hatespeech / 1 normal /
    2 offensive, rationales (list of 0/1 lists), post_tokens (list); further (third-party)
    columns are ignored. A header row starting with ``post_id`` is skipped. ``line`` in errors
    is the physical line where the row starts (fields may span lines); a quoted field left open
    at the end (a truncated file) is an error. ``max_line_bytes`` and ``max_file_bytes`` cap what
    is read.
    """
    path = Path(path)
    limits = TextLimits(max_line_bytes, max_file_bytes)
    div = _divisions_for(path, divisions, limits)
    if split is not None and div is None:
        raise InputError("split= needs post_id_divisions.json (pass divisions=)", path=path)
    lines = read_lines(path, encoding, limits)
    reader = csv.reader(lines, strict=True)
    seen: dict[str, int] = {}
    for row_line, row in csv_rows(reader, path):

        def err(message: str, field: str, _line: int = row_line) -> NoReturn:
            raise InputError(message, path=path, line=_line, field=field)

        if not row or not any(c.strip() for c in row):
            continue
        if row[0].strip() == "post_id":
            continue
        if len(row) < 4:
            err("expected at least 4 columns (post_id, annotators, rationales, post_tokens), "
                f"found {len(row)}", "columns")
        post_id = row[0].strip()
        if not post_id:
            err("empty post_id", "post_id")
        if post_id in seen:
            err(f"post_id {shorten(post_id)} occurs twice (first on line {seen[post_id]})", "post_id")
        seen[post_id] = row_line
        ann = _literal(row[1], dict, err, "annotators")
        for key in ("label", "annotator_id", "target"):
            if key not in ann or not isinstance(ann[key], list):
                err(f"annotators dict needs a list under {key!r}", "annotators")
        if not len(ann["label"]) == len(ann["annotator_id"]) == len(ann["target"]):
            err("annotators lists have different lengths", "annotators")
        annotators = []
        for lab, aid, tgt in zip(ann["label"], ann["annotator_id"], ann["target"], strict=True):
            if isinstance(lab, bool) or not isinstance(lab, int) or not 0 <= lab < len(LABELS):
                err(f"unknown label id {shorten(lab)} (expected 0 hatespeech, 1 normal, 2 offensive)",
                    "annotators.label")
            if not (tgt is None or is_str_list(tgt)):
                err(f"target must be a list of strings, found {shorten(tgt)}", "annotators.target")
            annotators.append({"label": LABELS[lab], "annotator_id": aid, "target": list(tgt or [])})
        rationales = _literal(row[2], list, err, "rationales")
        tokens = _literal(row[3], list, err, "post_tokens")
        post_split = _split_of(post_id, div, err)
        if split is not None and post_split != split:
            continue
        yield _post_document(post_id, annotators, rationales, tokens, post_split, min_target_votes, err)
    if not seen:
        raise InputError("no posts: the file is empty", path=path)
