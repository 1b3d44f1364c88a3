"""The body of one test case, per task (pure: a :class:`~lingtest.report_html.cases.CaseView` in, HTML
out; every text is escaped).

* NER: each side's tokens with the predicted entities highlighted and labelled (and the gold's, where the
  suite records it); tokens that differ from the other side are marked.
* Coreference: each side's text with every predicted mention in brackets coloured and numbered by its
  cluster (a follow-up cluster that matches a source cluster gets its number), the clusters listed under
  it; changed tokens marked.
* Classification: the text of each side, the expected label(s) and the predicted label with its
  probability (and all probabilities).
* Contrastive: the source sentence and its contexts, then the candidates with their scores, the
  reference marked and the system's choice marked; words that differ from the reference are marked.

A side without an input or a prediction says why instead of showing an empty box.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from html import escape
from typing import Any

from lingtest.report_html.cases import CaseView
from lingtest.report_html.diff import TokenDiff, token_diff, word_diff

#: colours of the coreference clusters (cycled by cluster number)
CLUSTER_COLOURS = 10
#: colours of the entity labels: common labels have their own, others a colour by their name
LABEL_COLOURS = {"PER": 0, "PERSON": 0, "ORG": 1, "LOC": 2, "GPE": 2, "MISC": 3, "NORP": 4, "DATE": 5,
                 "CARDINAL": 6, "FAC": 7}
N_LABEL_COLOURS = 8


@dataclass(frozen=True)
class Span:
    """A token span ``[start, end)`` with a label (an entity type, a cluster number) and a CSS class."""

    start: int
    end: int
    label: str
    css: str


def why(text: str) -> str:
    """A visible reason in place of an absent payload."""
    return f"<p class=\"why\">{escape(text)}</p>"


def compact_json(value: Any, limit: int = 400) -> str:
    text = json.dumps(value, ensure_ascii=False, separators=(", ", ": "), sort_keys=True, default=str)
    return text if len(text) <= limit else text[:limit] + " …"


def label_css(label: str) -> str:
    n = LABEL_COLOURS.get(label.upper(), sum(map(ord, label)) % N_LABEL_COLOURS)
    return f"l{n}"


# ---- tokens with spans ------------------------------------------------------------------------------
def tokens_html(tokens: Sequence[str], *, spans: Sequence[Span] = (), style: str = "highlight",
                changed: frozenset[int] | set[int] = frozenset(), breaks: frozenset[int] | set[int] = frozenset(),
                max_chars: int = 0) -> str:
    """Tokens joined by spaces (a line break before each position in ``breaks``), the ``changed`` ones
    marked, with ``spans`` either highlighted with a label (``style="highlight"``; spans must not
    overlap, see :func:`non_overlapping`) or as coloured brackets numbered by their label
    (``style="brackets"``; spans may nest or overlap). ``max_chars`` (> 0) cuts the text after that many
    characters and says how many tokens are left out."""
    opens: dict[int, list[Span]] = {}
    closes: dict[int, list[Span]] = {}
    for s in spans:
        if 0 <= s.start < s.end <= len(tokens):
            opens.setdefault(s.start, []).append(s)
            closes.setdefault(s.end - 1, []).append(s)
    out: list[str] = []
    shown = 0
    open_now: list[Span] = []
    for i, tok in enumerate(tokens):
        if max_chars and shown > max_chars:
            if style != "brackets":  # a highlight is an element: close it; a bracket is text
                out.extend(_close(s, style) for s in reversed(open_now))
            out.append(f" <span class=\"cut\">… {len(tokens) - i} more tokens not shown</span>")
            break
        if i:
            out.append("\n" if i in breaks else " ")
        for s in sorted(opens.get(i, []), key=lambda s: -s.end):
            out.append(_open(s, style))
            open_now.append(s)
        text = escape(str(tok))
        out.append(f"<mark>{text}</mark>" if i in changed else text)
        shown += len(str(tok)) + 1
        for s in sorted(closes.get(i, []), key=lambda s: s.start, reverse=True):
            out.append(_close(s, style))
            if s in open_now:
                open_now.remove(s)
    return "".join(out)


def _open(s: Span, style: str) -> str:
    if style == "brackets":
        return f"<b class=\"{s.css}\">[</b>"
    return f"<span class=\"ent {s.css}\" title=\"{escape(s.label)} [{s.start}, {s.end})\">"


def _close(s: Span, style: str) -> str:
    if style == "brackets":
        return f"<b class=\"{s.css}\">]<sub>{escape(s.label)}</sub></b>"
    return f"<sup class=\"lab\">{escape(s.label)}</sup></span>"


def non_overlapping(spans: Sequence[Span]) -> tuple[list[Span], list[Span]]:
    """(spans kept, spans left out because they overlap an earlier kept one), by start then length."""
    kept: list[Span] = []
    left: list[Span] = []
    end = -1
    for s in sorted(spans, key=lambda s: (s.start, -(s.end - s.start))):
        if s.start >= end:
            kept.append(s)
            end = s.end
        else:
            left.append(s)
    return kept, left


def entity_spans(output: Any) -> list[Span]:
    """NER output ``[[start, end, label], ...]`` as spans (malformed entries are skipped)."""
    out = []
    for e in output if isinstance(output, list) else []:
        if isinstance(e, list | tuple) and len(e) >= 3 and isinstance(e[0], int) and isinstance(e[1], int):
            out.append(Span(e[0], e[1], str(e[2]), label_css(str(e[2]))))
    return out


def cluster_mentions(output: Any) -> list[list[tuple[int, int]]]:
    """Coreference output ``[[[start, end], ...], ...]`` as clusters of mention spans."""
    clusters = []
    for c in output if isinstance(output, list) else []:
        mentions = [(int(m[0]), int(m[1])) for m in (c if isinstance(c, list) else [])
                    if isinstance(m, list | tuple) and len(m) >= 2 and isinstance(m[0], int) and isinstance(m[1], int)]
        if mentions:
            clusters.append(mentions)
    return clusters


def cluster_numbers(source: list[list[tuple[int, int]]], followup: list[list[tuple[int, int]]],
                    to_source: Mapping[int, int]) -> list[int]:
    """The number of each follow-up cluster: the number (1-based index) of the source cluster with the
    most mentions in common once mapped to source positions, else a new number after the source's."""
    def mapped(m: tuple[int, int]) -> tuple[int, int] | None:
        a, b = to_source.get(m[0]), to_source.get(m[1] - 1)
        return (a, b + 1) if a is not None and b is not None else None

    src_sets = [set(c) for c in source]
    taken: set[int] = set()
    numbers = []
    fresh = len(source)
    for c in followup:
        got = {x for x in (mapped(m) for m in c) if x is not None}
        best, overlap = -1, 0
        for k, s in enumerate(src_sets):
            n = len(got & s)
            if n > overlap and k not in taken:
                best, overlap = k, n
        if best >= 0:
            taken.add(best)
            numbers.append(best + 1)
        else:
            fresh += 1
            numbers.append(fresh)
    return numbers


# ---- per task ---------------------------------------------------------------------------------------
def _pair(panels: Sequence[str]) -> str:
    return "<div class=\"pair\">" + "".join(panels) + "</div>"


def _panel(title: str, body: str) -> str:
    return f"<div class=\"side\"><div class=\"side-h\">{escape(title)}</div>{body}</div>"


def _row(label: str, body: str) -> str:
    return f"<div class=\"row\"><span class=\"rowlab\">{escape(label)}</span><div class=\"toks\">{body}</div></div>"


def _diff_of(tokens: Mapping[str, list[str]], breaks: Mapping[str, set[int]] | None = None) -> TokenDiff | None:
    if "source" in tokens and "followup" in tokens:
        b = breaks or {}
        return token_diff(tokens["source"], tokens["followup"], sorted(b.get("source", ())),
                          sorted(b.get("followup", ())))
    return None


def _changed(diff: TokenDiff | None, side: str) -> frozenset[int]:
    if diff is None:
        return frozenset()
    return diff.changed_source if side == "source" else diff.changed_followup


def render_ner(view: CaseView, max_chars: int = 0) -> str:
    """Each side's tokens with the predicted (and gold) entities as labelled highlights."""
    tokens = {s: [str(t) for t in view.inputs[s]] for s in view.sides() if isinstance(view.inputs.get(s), list)}
    diff = _diff_of(tokens)
    panels = []
    for side in view.sides():
        if side not in tokens:
            panels.append(_panel(view.side_title(side), why(view.missing.get(side, f"no {side} input recorded"))))
            continue
        toks, changed = tokens[side], _changed(diff, side)
        rows = []
        if side in view.prediction:
            kept, left = non_overlapping(entity_spans(view.prediction[side]))
            body = tokens_html(toks, spans=kept, changed=changed, max_chars=max_chars)
            if not kept:
                body += " <span class=\"muted\">(no entities predicted)</span>"
            if left:
                body += "<div class=\"muted\">overlapping, not highlighted: " + escape(", ".join(
                    f"{' '.join(toks[s.start:s.end])} {s.label} [{s.start}, {s.end})" for s in left)) + "</div>"
            rows.append(_row("predicted", body))
        else:
            rows.append(_row("text", tokens_html(toks, changed=changed, max_chars=max_chars)))
            rows.append(why(view.missing.get(side, f"no prediction recorded for the {side}")))
        if side in view.gold:
            kept, _ = non_overlapping(entity_spans(view.gold[side]))
            rows.append(_row("gold", tokens_html(toks, spans=kept, changed=changed, max_chars=max_chars)))
        panels.append(_panel(view.side_title(side), "".join(rows)))
    return _pair(panels)


def _doc_tokens(data: Any) -> tuple[list[str], set[int]] | None:
    if not isinstance(data, Mapping) or not isinstance(data.get("sentences"), list):
        return None
    tokens: list[str] = []
    breaks: set[int] = set()
    for s in data["sentences"]:
        if tokens:
            breaks.add(len(tokens))
        tokens.extend(str(t) for t in (s if isinstance(s, list) else []))
    return tokens, breaks


def _clusters_html(tokens: list[str], clusters: list[list[tuple[int, int]]], numbers: list[int]) -> str:
    if not clusters:
        return "<p class=\"muted\">no clusters predicted</p>"
    items = []
    for c, n in sorted(zip(clusters, numbers, strict=True), key=lambda x: x[1]):
        words = " · ".join(escape(" ".join(tokens[a:b]) or f"[{a}, {b})") for a, b in sorted(c))
        items.append(f"<li><span class=\"cid c{(n - 1) % CLUSTER_COLOURS}\">{n}</span> {words}</li>")
    return "<ul class=\"clusters\">" + "".join(items) + "</ul>"


def _bracketed(tokens: list[str], breaks: set[int], clusters: list[list[tuple[int, int]]], numbers: list[int],
               changed: frozenset[int], max_chars: int) -> str:
    spans = [Span(a, b, str(n), f"c{(n - 1) % CLUSTER_COLOURS}") for c, n in zip(clusters, numbers, strict=True)
             for a, b in c]
    return tokens_html(tokens, spans=spans, style="brackets", changed=changed, breaks=breaks, max_chars=max_chars)


def render_coref(view: CaseView, max_chars: int = 0) -> str:
    """Each side's text with the predicted clusters as numbered, coloured brackets and listed below."""
    docs = {s: d for s in view.sides() if (d := _doc_tokens(view.inputs.get(s))) is not None}
    diff = _diff_of({s: d[0] for s, d in docs.items()}, {s: d[1] for s, d in docs.items()})
    clusters = {s: cluster_mentions(view.prediction.get(s)) for s in docs}
    numbers = {s: list(range(1, len(c) + 1)) for s, c in clusters.items()}
    if diff is not None:
        numbers["followup"] = cluster_numbers(clusters["source"], clusters["followup"], diff.to_source)
    panels = []
    for side in view.sides():
        if side not in docs:
            panels.append(_panel(view.side_title(side), why(view.missing.get(side, f"no {side} input recorded"))))
            continue
        tokens, breaks = docs[side]
        changed = _changed(diff, side)
        if side in view.prediction:
            body = (_row("predicted", _bracketed(tokens, breaks, clusters[side], numbers[side], changed,
                                                              max_chars))
                    + _clusters_html(tokens, clusters[side], numbers[side]))
        else:
            body = (_row("text", tokens_html(tokens, changed=changed, breaks=breaks, max_chars=max_chars))
                    + why(view.missing.get(side, f"no prediction recorded for the {side}")))
        if side in view.gold:
            gold = cluster_mentions(view.gold[side])
            nums = list(range(1, len(gold) + 1))
            body += ("<details class=\"gold\"><summary>gold clusters</summary>"
                     + _row("gold", _bracketed(tokens, breaks, gold, nums, changed, max_chars))
                     + _clusters_html(tokens, gold, nums) + "</details>")
        panels.append(_panel(view.side_title(side), body))
    return _pair(panels)


def expected_labels(expected: Any) -> list[str]:
    """The labels a classification expectation accepts (``label`` or ``labels``; none for others, and none
    for ``direction``, whose ``label`` is the label whose probability moves)."""
    if not isinstance(expected, Mapping) or expected.get("name") == "direction":
        return []
    if isinstance(expected.get("labels"), list):
        return [str(x) for x in expected["labels"]]
    return [str(expected["label"])] if expected.get("label") is not None else []


def _num(v: Any) -> str:
    if isinstance(v, int | float) and not isinstance(v, bool):
        return "nan" if isinstance(v, float) and math.isnan(v) else f"{v:.4g}"
    return escape(str(v))


def _marked_texts(source: Any, followup: Any, max_chars: int) -> dict[str, str]:
    """The source and follow-up texts (escaped) with the words that differ marked; none unless both are
    texts within ``max_chars``."""
    if not (isinstance(source, str) and isinstance(followup, str)):
        return {}
    if max_chars and max(len(source), len(followup)) > max_chars:
        return {}
    left, right = word_diff(source, followup)
    return {side: " ".join(escape(p.text) if p.kind == "same" else f"<mark>{escape(p.text)}</mark>" for p in pieces)
            for side, pieces in (("source", left), ("followup", right))}


def render_classification(view: CaseView, max_chars: int = 0) -> str:
    """Each side's text, the expected label(s) and the predicted label with its probability."""
    labels = expected_labels(view.expected)
    marked = _marked_texts(view.inputs.get("source"), view.inputs.get("followup"), max_chars)
    panels = []
    for side in view.sides():
        text = view.inputs.get(side)
        if not isinstance(text, str):
            panels.append(_panel(view.side_title(side), why(view.missing.get(side, f"no {side} text recorded"))))
            continue
        shown = marked.get(side) or escape(text if not max_chars or len(text) <= max_chars
                                           else text[:max_chars] + " …")
        kv = []
        if labels and side == "source":
            kv.append(f"<tr><th>expected</th><td>{escape(' or '.join(labels))}</td></tr>")
        pred = view.prediction.get(side)
        probs = dict(pred["probs"]) if isinstance(pred, Mapping) and isinstance(pred.get("probs"), Mapping) else None
        if pred is not None and probs is not None:
            label = str(pred.get("label") or (max(probs, key=lambda k: probs[k]) if probs else ""))
            css = "" if not labels or side != "source" else (" class=\"good\"" if label in labels else " class=\"bad\"")
            p = probs.get(label)
            kv.append(f"<tr><th>predicted</th><td><span{css}>{escape(label)}</span>"
                      f"{f' (p = {_num(p)})' if p is not None else ''}</td></tr>")
            kv.append("<tr><th>probabilities</th><td>" + " · ".join(
                f"{escape(str(k))} {_num(v)}" for k, v in sorted(probs.items())) + "</td></tr>")
        rows = [f"<p class=\"text\">{shown}</p>"]
        if kv:
            rows.append("<table class=\"kv\">" + "".join(kv) + "</table>")
        if pred is None:
            rows.append(why(view.missing.get(side, f"no prediction recorded for the {side}")))
        elif probs is None:
            rows.append(why(f"the recorded prediction is not a classification output: {compact_json(pred)}"))
        panels.append(_panel(view.side_title(side) if len(view.sides()) > 1 else "text", "".join(rows)))
    return _pair(panels) if len(panels) > 1 else "".join(panels)


def _marked_words(reference: str, candidate: str) -> str:
    _, right = word_diff(reference, candidate)
    return " ".join(escape(p.text) if p.kind == "same" else f"<mark>{escape(p.text)}</mark>"
                    for p in right)


def render_contrastive(view: CaseView, max_chars: int = 0) -> str:
    """The source and its contexts, then the candidates with their scores (reference and choice marked)."""
    query = view.inputs.get("source")
    if not isinstance(query, Mapping) or not isinstance(query.get("candidates"), list):
        return why(view.missing.get("source", "no contrastive query recorded"))
    ref = 0
    if isinstance(view.expected, Mapping) and isinstance(view.expected.get("reference"), int):
        ref = int(view.expected["reference"])
    cands = [str(c) for c in query["candidates"]]
    rows = ["<table class=\"kv\">"]
    for key, title in (("source_context", "source context"), ("source", "source"),
                       ("target_context", "target context")):
        value = str(query.get(key) or "")
        body = escape(value) if value else "<span class=\"muted\">(none)</span>"
        rows.append(f"<tr><th>{title}</th><td>{body}</td></tr>")
    rows.append("</table>")
    scores = view.prediction.get("source")
    ok_scores = isinstance(scores, list) and len(scores) == len(cands) and all(
        isinstance(s, int | float) and not isinstance(s, bool) for s in scores)
    values = [float(s) for s in scores] if ok_scores and isinstance(scores, list) else []
    top = [i for i, v in enumerate(values) if v == max(values)]
    table = ["<table class=\"cands\"><thead><tr><th>#</th><th>candidate</th><th>score</th><th></th></tr></thead>"
             "<tbody>"]
    reference = cands[ref] if 0 <= ref < len(cands) else ""
    for i, c in enumerate(cands):
        marks = []
        if i == ref:
            marks.append("<span class=\"good\">reference</span>")
        if i in top:
            won = i == ref and len(top) == 1
            marks.append(f"<span class=\"{'good' if won else 'bad'}\">{'chosen' if len(top) == 1 else 'tied best'}"
                         "</span>")
        css = " class=\"ref\"" if i == ref else (" class=\"wrong\"" if i in top else "")
        text = escape(c) if i == ref or not reference else _marked_words(reference, c)
        score = _num(values[i]) if values else "-"
        table.append(f"<tr{css}><td class=\"num\">{i + 1}</td><td>{text}</td><td class=\"num\">{score}</td>"
                     f"<td>{' '.join(marks)}</td></tr>")
    table.append("</tbody></table>")
    body = "".join(rows) + "".join(table)
    if not values:
        body += why(view.missing.get("source", "no scores recorded for the candidates")
                    if scores is None else f"the recorded scores do not fit the candidates: {compact_json(scores)}")
    return body


def render_generic(view: CaseView, max_chars: int = 0) -> str:
    """Any other task: each side's input and prediction as compact JSON."""
    panels = []
    for side in view.sides():
        rows = []
        if view.inputs.get(side) is not None:
            rows.append(_row("input", f"<code>{escape(compact_json(view.inputs[side], max_chars or 4000))}</code>"))
        else:
            rows.append(why(view.missing.get(side, f"no {side} input recorded")))
        if side in view.prediction:
            rows.append(_row("prediction", f"<code>{escape(compact_json(view.prediction[side]))}</code>"))
        panels.append(_panel(view.side_title(side), "".join(rows)))
    return _pair(panels)


RENDERERS: dict[str, Callable[[CaseView, int], str]] = {
    "ner": render_ner, "coref": render_coref, "classification": render_classification,
    "contrastive": render_contrastive}


def describe_expected(view: CaseView) -> str:
    """What the case expects, in words (plain text)."""
    exp = view.expected
    params = dict(exp) if isinstance(exp, Mapping) else {}
    name = view.expectation or str(params.get("name") or exp or "")
    labels = expected_labels(exp)
    if labels:
        return f"{name}: the label is {' or '.join(labels)}"
    if name == "direction":
        way = "up" if params.get("increasing", True) else "down"
        return f"direction: p({params.get('label')}) goes {way} (tolerance {params.get('tolerance', 0)})"
    if name == "invariance":
        return "invariance: the follow-up's output equals the source's"
    if name == "contrastive":
        return f"contrastive: candidate {int(params.get('reference', 0)) + 1} (the reference) scores highest"
    if name in ("same-coreference", "oracle"):
        return f"{name}: the coreference stays consistent across the change"
    rest = {k: (f"{len(v.get('replacements', []))} replacements" if k == "alignment" and isinstance(v, Mapping)
                else v) for k, v in params.items() if k != "name"}
    return f"{name}" + (f" {compact_json(rest, 200)}" if rest else "")


#: details the task's view already shows
SHOWN_DETAILS: dict[str, frozenset[str]] = {"classification": frozenset({"expected", "predicted"}),
                                            "contrastive": frozenset({"chosen"})}


def details_html(details: Mapping[str, Any], task: str = "") -> str:
    """The check's details as a key/value table (values as compact JSON), less what ``task``'s view shows."""
    rows = "".join(f"<tr><th>{escape(str(k))}</th><td><code>{escape(compact_json(v))}</code></td></tr>"
                   for k, v in details.items() if k not in SHOWN_DETAILS.get(task, frozenset()))
    if not rows:
        return ""
    return f"<table class=\"kv details\">{rows}</table>"


def render_case_body(view: CaseView, max_chars: int = 0, *, with_expected: bool = True) -> str:
    """The expectation (unless ``with_expected`` is false), the task's view of the case (or why it cannot be
    shown) and the details."""
    head = f"<p class=\"expect\">expected: {escape(describe_expected(view))}</p>" if with_expected else ""
    if view.note:
        body = why(view.note) + render_generic(view, max_chars)
    else:
        render = RENDERERS.get(view.task, render_generic)
        try:
            body = render(view, max_chars)
        except (TypeError, ValueError, KeyError, IndexError, AttributeError) as exc:
            body = why(f"this case cannot be shown as a {view.task} case ({type(exc).__name__}: {exc})") + \
                render_generic(view, max_chars)
    return head + body + details_html(view.details, "" if view.note else view.task)
