"""What a reviewer sees of one test case: a :class:`ReviewItem` (plain data, shown by the terminal flow
and the HTML page alike).

An item holds the case's texts as :class:`Block` s of lines of :class:`Segment` s: words the two sides
share, words only the original has (``del``), words only the edited side has (``ins``), bracket marks
(``mark``: gold entities of an NER sentence, gold mentions of a coreference document numbered by
cluster) and dimmed text (``dim``: sentence numbers, elisions). Per task:

* classification: the source and the follow-up with a word diff; a case without a follow-up against
  what it was made from when the case records it (an S2LCT expansion against its seed case
  ``meta.parent``, else its masked template ``meta.masked``; a seed whose text differs from the corpus
  sentence ``meta.sent`` against that sentence), else the text alone;
* NER: the two token lists with the changed tokens (``meta.changed``/``meta.changed_followup`` when
  recorded, else a token diff) and the gold entities (``meta.gold``/``meta.followup_gold``) in brackets;
* coreference: only the sentences holding an edit, one sentence of context either side, ``…`` between
  runs (at most ``max_edited`` edited sentences), one sentence a line with its number, the gold
  mentions of those sentences in brackets numbered by cluster;
* contrastive: the contexts, the source sentence, the reference translation and each contrastive
  candidate with the words where it differs from the reference; the recorded edits
  (``provenance.params.changes``) as old/new lines, template fillers as a fact.

``expected`` says in words what a correct system does on the case; ``edit`` what the generator changed.
A unit other than a case (:mod:`lingtest.review.units`, such as an S2LCT expanded sentence) is built by
its provider from these pieces and carries its own questions (``ReviewItem.asks``).
"""

from __future__ import annotations

import bisect
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from lingtest.data.model import TestCase
from lingtest.harness.derive import expectation_name
from lingtest.report_html.cases import SIDE_TITLES, document_words
from lingtest.report_html.diff import Piece, token_diff, word_diff

#: segment kinds: shared text, only in the original, only in the edited side, a bracket mark, dimmed text
KINDS = ("same", "del", "ins", "mark", "dim")
#: at most this many edited sentences of a coreference document are shown
MAX_EDITED_SENTENCES = 8


@dataclass(frozen=True)
class Segment:
    """A run of text of one kind; ``space``: a space separates it from the segment before it."""

    text: str
    kind: str = "same"
    space: bool = True


Line = tuple[Segment, ...]


@dataclass(frozen=True)
class Block:
    """A titled text: ``source``, ``follow-up``, ``reference translation``, ..."""

    title: str
    lines: tuple[Line, ...]


@dataclass(frozen=True)
class ReviewItem:
    """One case as a reviewer sees it. ``capability``: the capability the relevance question asks
    about (``None``: the suite has no capabilities, the question is not asked)."""

    id: str
    group: str
    technique: str
    task: str
    relation: str
    expected: str
    edit: str
    blocks: tuple[Block, ...]
    facts: tuple[tuple[str, str], ...] = ()
    capability: str | None = None
    graded: bool = True  # False: the case has no correct answer (a ContraCAT prior); no label question
    noun: str = "case"  # what is judged, in words (a review unit's provider: "expanded sentence", ...)
    asks: tuple[Question, ...] = ()  # the questions asked of it, when not a case's (a review unit's provider)

    @property
    def asks_relevance(self) -> bool:
        return self.capability is not None


@dataclass(frozen=True)
class Question:
    """A question of the review: its answer field, its short prompt, what it asks, the answers it takes."""

    field: str
    prompt: str
    text: str
    answers: tuple[str, ...]


def questions(item: ReviewItem) -> list[Question]:
    """The questions asked about ``item``, in order (the relevance one only for a suite with capabilities)."""
    if item.asks:
        return list(item.asks)
    label = item.task == "classification"
    out = [Question("well_formed", "well-formed?", "Is the test input well-formed: natural, grammatical text a "
                    "user could write? (An unnatural mutant is not.)", ("y", "n"))]
    if item.graded:
        out.append(Question("label_correct", "label correct?" if label else "relation correct?",
                            "Is the expected label right for this text?" if label else
                            "Is the expected relation right: would a correct system satisfy it on this case?",
                            ("y", "n")))
    if item.asks_relevance:
        out.append(Question("relevance", "capability relevant?", f"How relevant is the case to its capability "
                            f"({item.capability})? 1: not at all, 5: exactly what it tests.",
                            ("1", "2", "3", "4", "5")))
    return out


# ---- lines ---------------------------------------------------------------------------------------------
def plain(text: str, kind: str = "same") -> Line:
    return (Segment(text, kind),) if text else ()


def piece_lines(pieces: Sequence[Piece]) -> tuple[Line, ...]:
    """Diff pieces as lines (a newline in a piece starts a new line)."""
    lines: list[list[Segment]] = [[]]
    for p in pieces:
        for k, part in enumerate(p.text.split("\n")):
            if k:
                lines.append([])
            if part.strip():
                lines[-1].append(Segment(part.strip(), p.kind))
    return tuple(tuple(line) for line in lines if line)


def text_diff(original: str, edited: str) -> tuple[tuple[Line, ...], tuple[Line, ...]]:
    """(lines of ``original``, lines of ``edited``) with the words that differ marked."""
    left, right = word_diff(original, edited)
    return piece_lines(left), piece_lines(right)


def merged(segments: Iterable[Segment]) -> list[Segment]:
    """Adjacent changed segments of one kind as one (``{+good deals+}``, not ``{+good+} {+deals+}``)."""
    out: list[Segment] = []
    for seg in segments:
        if out and seg.kind in ("del", "ins") and out[-1].kind == seg.kind:
            out[-1] = Segment(out[-1].text + (" " if seg.space else "") + seg.text, seg.kind, out[-1].space)
        else:
            out.append(seg)
    return out


def token_line(tokens: Sequence[str], lo: int, hi: int, changed: Iterable[int] = (), kind: str = "ins",
               spans: Sequence[tuple[int, int, str]] = ()) -> list[Segment]:
    """Tokens ``lo:hi`` as segments: changed ones of ``kind``, spans (``start, end, tag``) in brackets."""
    changed = set(changed)
    opens: dict[int, list[tuple[int, int, str]]] = {}
    closes: dict[int, list[tuple[int, int, str]]] = {}
    for s in spans:
        if lo <= s[0] < hi and s[0] < s[1] <= hi:
            opens.setdefault(s[0], []).append(s)
            closes.setdefault(s[1], []).append(s)
    out: list[Segment] = []
    for i in range(lo, hi):
        space = True
        for _ in sorted(opens.get(i, []), key=lambda s: -s[1]):  # the outer span opens first
            out.append(Segment("[", "mark", space))
            space = False
        out.append(Segment(str(tokens[i]), kind if i in changed else "same", space))
        for s in sorted(closes.get(i + 1, []), key=lambda s: -s[0]):  # the inner span closes first
            out.append(Segment(f"]{s[2]}", "mark", False))
    return merged(out)


# ---- what the case expects, what was edited ------------------------------------------------------------
def expected_labels(expected: Any) -> list[str]:
    if not isinstance(expected, Mapping):
        return []
    labels = expected.get("labels") or expected.get("label")
    if isinstance(labels, str):
        return [labels]
    return [str(x) for x in labels] if isinstance(labels, list) else []


INVARIANCE_WORDS = {"classification": "the same label for the source and the follow-up",
                    "ner": "the same entities, with the same labels, in both sentences",
                    "coref": "the same coreference clusters in both documents (the edited tokens aligned)",
                    "contrastive": "the same best candidate for both"}


def expected_words(case: TestCase, task: str) -> str:
    """What a correct system does on ``case``, in words."""
    exp = case.expected
    params = dict(exp) if isinstance(exp, Mapping) else {}
    name = expectation_name(exp)
    case_prior = bool(case.meta.get("prior"))
    if name == "direction":
        way = "rises" if params.get("increasing", True) else "falls"
        return f"the probability of {params.get('label')} {way} from the source to the follow-up"
    labels = expected_labels(exp)
    if labels:
        return f"the label is {' or '.join(labels)}"
    if name == "invariance":
        return INVARIANCE_WORDS.get(task, "the same output for the source and the follow-up")
    if name in ("same-coreference", "oracle"):
        return "the coreference clusters stay the same across the edit (who refers to whom does not change)"
    if name == "contrastive" and case_prior:
        return ("none: a prior template (no antecedent decides the pronoun); the system's preference between "
                "the candidates is measured, not graded - judge only whether the texts are well-formed")
    if name == "contrastive":
        return "the reference translation scores above every contrastive candidate"
    if name == "tin-mr1":
        return "every entity found in both sentences keeps its label (the replaced words are not checked)"
    if name == "tin-mr2":
        return "the same entities with the same labels in both sentences"
    rest = {k: v for k, v in params.items() if k != "name"}
    return name + (f" {json.dumps(rest, ensure_ascii=False, sort_keys=True)[:200]}" if rest else "")


def edit_words(case: TestCase, changed: int | None = None, unit: str = "token") -> str:
    """What the generator changed: the transformation, then what the case records of the edit (old → new,
    the filled masks, the edited fields, template fillers), else the number of changed tokens."""
    p = case.provenance.params
    meta = case.meta
    parts = []
    if isinstance(p.get("old"), str) and isinstance(p.get("new"), str):
        parts.append(f"{p['old']} → {p['new']}")
    fills, tags = meta.get("fills"), meta.get("mask_tags")
    if isinstance(fills, list) and fills:
        named = tags if isinstance(tags, list) and len(tags) == len(fills) else ["mask"] * len(fills)
        parts.append("filled " + ", ".join(f"{{{t}}} with {f!r}" for t, f in zip(named, fills, strict=True)))
    changes = p.get("changes")
    if isinstance(changes, list) and changes and all(isinstance(c, Mapping) for c in changes):
        parts.append("edited " + ", ".join(dict.fromkeys(str(c.get("where", "?")) for c in changes)))
    fillers = {k: v for k, v in p.items() if len(k) == 1 and k.isupper() and isinstance(v, str)}
    if fillers:
        parts.append("template filled with " + ", ".join(f"{k}={v}" for k, v in sorted(fillers.items())))
    if not parts and changed is not None:
        parts.append(f"{changed} {unit}{'s' if changed != 1 else ''} changed" if changed else f"no {unit} changed")
    return case.provenance.transformation + (f": {'; '.join(parts)}" if parts else "")


# ---- per task ------------------------------------------------------------------------------------------
def _titles(case: TestCase) -> tuple[str, str]:
    return SIDE_TITLES.get(case.technique, ("source", "follow-up"))


def _text(payload: Any) -> str | None:
    if isinstance(payload, Mapping) and isinstance(payload.get("text"), str):
        return str(payload["text"])
    return None


def classification_blocks(case: TestCase, by_id: Mapping[str, TestCase]) -> tuple[list[Block], int | None]:
    """The blocks of a classification case and the number of changed words (``None``: no edit shown)."""
    text = _text(case.source) or ""
    followup = _text(case.followup)
    meta = case.meta
    if followup is not None:
        titles = _titles(case)
        original, edited = text, followup
    else:
        parent = by_id.get(str(meta.get("parent", ""))) if meta.get("parent") else None
        if parent is not None and _text(parent.source):
            titles, original, edited = ("seed case", "expansion"), _text(parent.source) or "", text
        elif isinstance(meta.get("masked"), str) and meta["masked"] != text:
            titles, original, edited = ("masked template", "expansion"), str(meta["masked"]), text
        elif isinstance(meta.get("sent"), str) and meta["sent"] != text:
            titles, original, edited = ("corpus sentence", "test case"), str(meta["sent"]), text
        else:
            return [Block("text", (plain(text),))], None
    left, right = text_diff(original, edited)
    changed = sum(len(s.text.split()) for line in right for s in line if s.kind == "ins")
    return [Block(titles[0], left), Block(titles[1], right)], changed


def _tokens(payload: Any) -> list[str] | None:
    if not isinstance(payload, Mapping):
        return None
    if isinstance(payload.get("tokens"), list):
        return [str(t) for t in payload["tokens"]]
    words = document_words(payload)
    return words[0] if words and len(words) == 1 else None


def _span_list(value: Any) -> list[tuple[int, int, str]]:
    out = []
    for e in value if isinstance(value, list) else []:
        if isinstance(e, list | tuple) and len(e) == 3 and isinstance(e[0], int) and isinstance(e[1], int):
            out.append((int(e[0]), int(e[1]), str(e[2])))
    return out


def _range(value: Any) -> set[int] | None:
    if isinstance(value, list | tuple) and len(value) == 2 and all(isinstance(v, int) for v in value):
        return set(range(int(value[0]), int(value[1])))
    return None


def ner_blocks(case: TestCase) -> tuple[list[Block], int | None]:
    src, fu = _tokens(case.source), _tokens(case.followup)
    if src is None:
        return generic_blocks(case), None
    meta = case.meta
    src_titles = _titles(case)
    if fu is None:
        return [Block(src_titles[0], (tuple(token_line(src, 0, len(src), spans=_span_list(meta.get("gold")))),))], None
    left, right = _range(meta.get("changed")), _range(meta.get("changed_followup") or meta.get("changed"))
    if left is None or right is None:
        diff = token_diff(src, fu)
        left, right = set(diff.changed_source), set(diff.changed_followup)
    blocks = [Block(src_titles[0], (tuple(token_line(src, 0, len(src), left, "del", _span_list(meta.get("gold")))),)),
              Block(src_titles[1], (tuple(token_line(fu, 0, len(fu), right, "ins",
                                                     _span_list(meta.get("followup_gold")))),))]
    return blocks, len(right)


def _cluster_spans(payload: Mapping[str, Any]) -> list[tuple[int, int, str]]:
    """The payload's gold mentions as ``(start, end, cluster number)`` (clusters numbered from 1)."""
    out = []
    for k, cluster in enumerate(payload.get("clusters") or [], start=1):
        mentions = cluster.get("mentions") if isinstance(cluster, Mapping) else cluster
        for m in mentions if isinstance(mentions, list) else []:
            if isinstance(m, list | tuple) and len(m) >= 2 and isinstance(m[0], int) and isinstance(m[1], int):
                out.append((int(m[0]), int(m[1]), str(k)))
    return out


def _flat(words: list[list[str]]) -> tuple[list[str], list[int]]:
    """The document's tokens and the position where each sentence starts."""
    flat: list[str] = []
    starts = []
    for s in words:
        starts.append(len(flat))
        flat.extend(s)
    return flat, starts


def shown_sentences(edited: Iterable[int], count: int, max_edited: int = MAX_EDITED_SENTENCES) -> tuple[list[int], int]:
    """The sentences to show of a document of ``count`` sentences whose sentences ``edited`` hold an edit:
    the first ``max_edited`` edited ones with one sentence of context either side, in order; and how many
    edited sentences were left out."""
    edited = sorted(set(edited))
    kept = edited[:max_edited]
    shown = sorted({j for i in kept for j in (i - 1, i, i + 1) if 0 <= j < count})
    return shown, len(edited) - len(kept)


def _document_lines(tokens: list[str], starts: list[int], shown: list[int], changed: set[int], kind: str,
                    spans: list[tuple[int, int, str]]) -> tuple[Line, ...]:
    lines: list[Line] = []
    previous = -1
    ends = [*starts[1:], len(tokens)]
    for i in shown:
        if (previous >= 0 and i != previous + 1) or (previous < 0 and i > 0):
            lines.append((Segment("…", "dim"),))
        lines.append((Segment(f"{i + 1}│", "dim"), *token_line(tokens, starts[i], ends[i], changed, kind, spans)))
        previous = i
    if shown and shown[-1] < len(starts) - 1:
        lines.append((Segment("…", "dim"),))
    return tuple(lines)


def coref_blocks(case: TestCase, max_edited: int = MAX_EDITED_SENTENCES) -> tuple[list[Block], int | None, str]:
    """The blocks of a coreference case, the number of changed tokens and a note on what is left out."""
    src_words = document_words(case.source) if isinstance(case.source, Mapping) else None
    if src_words is None:
        return generic_blocks(case), None, ""
    titles = _titles(case)
    src, src_starts = _flat(src_words)
    fu_words = document_words(case.followup) if isinstance(case.followup, Mapping) else None
    src_spans = _cluster_spans(case.source)
    if fu_words is None:
        shown, _ = shown_sentences([0], len(src_starts))
        return [Block(titles[0], _document_lines(src, src_starts, shown, set(), "del", src_spans))], None, ""
    fu, fu_starts = _flat(fu_words)
    diff = token_diff(src, fu, src_starts[1:], fu_starts[1:])

    def sentence(starts: list[int], i: int) -> int:
        return bisect.bisect_right(starts, i) - 1

    left = {sentence(src_starts, i) for i in diff.changed_source}
    right = {sentence(fu_starts, i) for i in diff.changed_followup}
    note = ""
    if not left and not right:
        note = "no token differs between the two documents"
    if len(src_starts) == len(fu_starts):
        src_shown, hidden = shown_sentences(left | right or {0}, len(src_starts), max_edited)
        fu_shown = src_shown
    else:
        src_shown, hidden = shown_sentences(left or {0}, len(src_starts), max_edited)
        fu_shown, _ = shown_sentences(right or {0}, len(fu_starts), max_edited)
    if hidden:
        note = f"{hidden} more edited sentence{'s' if hidden != 1 else ''} not shown"
    blocks = [Block(titles[0], _document_lines(src, src_starts, src_shown, set(diff.changed_source), "del",
                                               src_spans)),
              Block(titles[1], _document_lines(fu, fu_starts, fu_shown, set(diff.changed_followup), "ins",
                                               _cluster_spans(case.followup or {})))]
    return blocks, len(diff.changed_followup), note


def contrastive_blocks(case: TestCase) -> list[Block]:
    p = case.source if isinstance(case.source, Mapping) else {}
    if "candidates" in p:
        ref = int(dict(case.expected).get("reference", 0)) if isinstance(case.expected, Mapping) else 0
        cands = [str(c) for c in p.get("candidates") or []]
        source, src_ctx, tgt_ctx = str(p.get("source", "")), str(p.get("source_context", "")), \
            str(p.get("target_context", ""))
        reference = cands[ref] if 0 <= ref < len(cands) else ""
        others = [c for i, c in enumerate(cands) if i != ref]
    elif "src" in p:
        source, src_ctx, tgt_ctx = str(p.get("src", "")), str(p.get("src_context", "")), str(p.get("ref_context", ""))
        reference, others = str(p.get("ref", "")), [str(c) for c in p.get("contrastive") or []]
    else:
        return generic_blocks(case)
    blocks = []
    if src_ctx:
        blocks.append(Block("source context", (plain(src_ctx),)))
    blocks.append(Block("source", (plain(source),)))
    if tgt_ctx:
        blocks.append(Block("target context", (plain(tgt_ctx),)))
    prior = bool(case.meta.get("prior"))
    title = ("candidate 1 (a prior: no candidate is correct; the system's preference is measured)" if prior
             else "reference translation (correct)")
    blocks.append(Block(title, (plain(reference),)))
    for k, other in enumerate(others, start=1):
        _, right = text_diff(reference, other)
        blocks.append(Block(f"contrastive {k}", right))
    changes = case.provenance.params.get("changes")
    shown = [c for c in changes if isinstance(c, Mapping) and not str(c.get("where", "")).startswith("contrastive")] \
        if isinstance(changes, list) else []
    for c in shown:
        left, right = text_diff(str(c.get("old", "")), str(c.get("new", "")))
        blocks.append(Block(f"edit of {c.get('where', '?')}: before", left))
        blocks.append(Block(f"edit of {c.get('where', '?')}: after", right))
    return blocks


def generic_blocks(case: TestCase) -> list[Block]:
    """The payloads as compact JSON (a shape no task view reads)."""
    out = []
    for title, payload in zip(_titles(case), (case.source, case.followup), strict=True):
        if payload is not None:
            out.append(Block(title, (plain(json.dumps(payload, ensure_ascii=False, sort_keys=True)[:2000]),)))
    return out


def capability_words(case: TestCase, names: Mapping[str, str]) -> str:
    """The case's capability with its name (``LC1: Short sentences with ...``) or its CheckList test."""
    cap = str(case.meta.get("capability", ""))
    name = names.get(cap) or case.meta.get("description") or case.meta.get("test")
    return f"{cap}: {name}" if cap and name else cap or str(name or "")


def review_item(case: TestCase, *, task: str, group: str, capabilities: Mapping[str, str] | None = None,
                by_id: Mapping[str, TestCase] | None = None, max_edited: int = MAX_EDITED_SENTENCES) -> ReviewItem:
    """``case`` as a reviewer sees it. ``capabilities``: capability code -> name for a suite with
    capabilities (``None``: the suite has none, no relevance question); ``by_id``: the suite's cases by id
    (an expansion is shown against its seed case)."""
    facts: list[tuple[str, str]] = []
    note = ""
    if task == "classification":
        blocks, changed = classification_blocks(case, by_id or {})
    elif task == "ner":
        blocks, changed = ner_blocks(case)
    elif task == "coref":
        blocks, changed, note = coref_blocks(case, max_edited)
    elif task == "contrastive":
        blocks, changed = contrastive_blocks(case), None
    else:
        blocks, changed = generic_blocks(case), None
    if note:
        facts.append(("note", note))
    if task == "coref" and any(s.kind == "mark" for b in blocks for line in b.lines for s in line):
        facts.append(("brackets", "gold mentions, numbered by cluster"))
    if task == "ner" and any(s.kind == "mark" for b in blocks for line in b.lines for s in line):
        facts.append(("brackets", "gold entities with their labels"))
    facts.append(("seed", case.provenance.seed_id))
    capability = capability_words(case, capabilities) if capabilities is not None else None
    unit = "word" if task == "classification" else "token"
    return ReviewItem(id=case.id, group=group, technique=case.technique, task=task, relation=case.relation,
                      expected=expected_words(case, task), edit=edit_words(case, changed, unit), blocks=tuple(blocks),
                      facts=tuple(facts), capability=capability or (None if capabilities is None else "-"),
                      graded=not bool(case.meta.get("prior")))
