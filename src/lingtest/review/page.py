"""The review as a local, self-contained HTML page: the sampled cases as the terminal shows them, each
with the questions as form controls, and a button that downloads the answers as a labels file
(``lingtest review SUITE --labels FILE`` records it).

Nothing is fetched: the style and the script are inline and every text of a case is escaped. The
answers are kept in the browser's local storage (per suite and sample) while the page is open again
later; the labels file holds a header of kind ``review-judgements`` (the suite's name, version, sha256,
the unit when it is not ``case``, and the sample) and one row per case with an answer: ``{"id",
"well_formed", "label_correct", "relevance" (a suite with capabilities), "note", "reviewer" (when the
reviewer field is filled in), "time" (when the case was last answered)}``. The same rows appear, as they
are, in a read-only text box under the button (to copy by hand).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from html import escape
from typing import Any

from lingtest.data.model import SCHEMA_VERSION
from lingtest.review.labels import INPUT_KIND, SuiteKey
from lingtest.review.units import noun
from lingtest.review.views import Line, ReviewItem, questions

TAGS = {"del": ("<del>", "</del>"), "ins": ("<ins>", "</ins>"), "mark": ("<span class=\"mark\">", "</span>"),
        "dim": ("<span class=\"dim\">", "</span>")}

STYLE = """
body{font:15px/1.5 system-ui,sans-serif;margin:0 auto;max-width:60rem;padding:1rem 1.5rem;color:#1d1d1f}
header.top{position:sticky;top:0;background:#fff;border-bottom:1px solid #ddd;padding:.5rem 0;z-index:1}
section.case{border:1px solid #ddd;border-radius:6px;margin:1rem 0;padding:.5rem 1rem}
section.case.done{border-color:#3a3}
h2{font-size:1rem;margin:.2rem 0}
.kv{display:grid;grid-template-columns:max-content 1fr;gap:0 1rem;margin:.3rem 0}
.kv dt{font-weight:600}.kv dd{margin:0}
.block .title{font-weight:600;margin-top:.4rem}
.line{margin-left:1rem;font-family:ui-monospace,monospace;font-size:.9rem;white-space:pre-wrap;overflow-wrap:anywhere}
del{background:#fdd;color:#900}ins{background:#dfd;color:#060;text-decoration:none;font-weight:600}
.mark{color:#07a}.dim{color:#888}
fieldset{border:0;padding:.3rem 0;margin:0}fieldset label{margin-right:1rem}
.q{display:block;margin:.2rem 0}.q .text{font-weight:600;margin-right:.6rem}
input.note{width:70%}
textarea#labels-jsonl{width:100%;height:8rem;font-family:ui-monospace,monospace;font-size:.8rem}
"""

SCRIPT = r"""
(function () {
  'use strict';
  var data = JSON.parse(document.getElementById('review-data').textContent);
  var storeKey = 'lingtest-review:' + data.sha256 + ':' + JSON.stringify(data.sample);
  var sections = Array.prototype.slice.call(document.querySelectorAll('section.case'));
  var reviewer = document.getElementById('reviewer');
  var box = document.getElementById('labels-jsonl');
  var counter = document.getElementById('counter');

  function checked(sec, field) {
    var el = sec.querySelector('input[data-field="' + field + '"]:checked');
    return el ? el.value : null;
  }
  function row(sec) {
    var wf = checked(sec, 'well_formed'), lc = checked(sec, 'label_correct'), rel = checked(sec, 'relevance');
    if (wf === null && lc === null && rel === null) { return null; }
    var r = {id: sec.getAttribute('data-id'), well_formed: wf === null ? null : wf === 'y',
             label_correct: lc === null ? null : lc === 'y'};
    if (data.relevance) { r.relevance = rel === null ? null : parseInt(rel, 10); }
    r.note = sec.querySelector('input.note').value.trim();
    if (reviewer.value.trim()) { r.reviewer = reviewer.value.trim(); }
    if (sec.getAttribute('data-time')) { r.time = sec.getAttribute('data-time'); }
    return r;
  }
  function jsonl() {
    var head = {__schema__: data.schema, kind: data.kind, suite: data.suite, version: data.version,
                sha256: data.sha256, sample: data.sample};
    if (data.unit !== 'case') { head.unit = data.unit; }
    var lines = [JSON.stringify(head)];
    sections.forEach(function (sec) { var r = row(sec); if (r) { lines.push(JSON.stringify(r)); } });
    return lines.join('\n') + '\n';
  }
  function state() {
    var s = {reviewer: reviewer.value, cases: {}};
    sections.forEach(function (sec) {
      var a = {};
      Array.prototype.forEach.call(sec.querySelectorAll('input[data-field]:checked'), function (el) {
        a[el.getAttribute('data-field')] = el.value;
      });
      a.note = sec.querySelector('input.note').value;
      a.time = sec.getAttribute('data-time') || '';
      s.cases[sec.getAttribute('data-id')] = a;
    });
    return s;
  }
  function update() {
    var n = 0;
    sections.forEach(function (sec) { var done = row(sec) !== null; sec.classList.toggle('done', done); n += done; });
    counter.textContent = n + ' of ' + sections.length + ' cases answered';
    box.value = jsonl();
    try { window.localStorage.setItem(storeKey, JSON.stringify(state())); } catch (e) { /* storage off */ }
  }
  function restore() {
    var saved = null;
    try { saved = JSON.parse(window.localStorage.getItem(storeKey) || 'null'); } catch (e) { saved = null; }
    if (!saved) { return; }
    if (saved.reviewer && !reviewer.value) { reviewer.value = saved.reviewer; }
    sections.forEach(function (sec) {
      var a = (saved.cases || {})[sec.getAttribute('data-id')];
      if (!a) { return; }
      Array.prototype.forEach.call(sec.querySelectorAll('input[data-field]'), function (el) {
        if (a[el.getAttribute('data-field')] === el.value) { el.checked = true; }
      });
      sec.querySelector('input.note').value = a.note || '';
      if (a.time) { sec.setAttribute('data-time', a.time); }
    });
  }
  sections.forEach(function (sec) {
    sec.addEventListener('change', function () {
      sec.setAttribute('data-time', new Date().toISOString().replace(/\.\d+Z$/, 'Z'));
      update();
    });
  });
  reviewer.addEventListener('input', update);
  document.getElementById('download').addEventListener('click', function () {
    var blob = new Blob([jsonl()], {type: 'application/x-ndjson'});
    var a = document.createElement('a');
    a.href = URL.createObjectURL(blob);
    a.download = data.filename;
    document.body.appendChild(a);
    a.click();
    setTimeout(function () { URL.revokeObjectURL(a.href); a.remove(); }, 0);
  });
  restore();
  update();
}());
"""


def line_html(line: Line) -> str:
    """A line of segments as HTML (every text escaped)."""
    out = []
    for k, seg in enumerate(line):
        if k and seg.space:
            out.append(" ")
        open_, close = TAGS.get(seg.kind, ("", ""))
        out.append(f"{open_}{escape(seg.text)}{close}")
    return "".join(out)


def _kv(rows: Sequence[tuple[str, str]]) -> str:
    return "<dl class=\"kv\">" + "".join(f"<dt>{escape(k)}</dt><dd>{escape(v)}</dd>" for k, v in rows) + "</dl>"


def item_html(item: ReviewItem, position: int, total: int) -> str:
    """One case: its heading, what it expects and what was edited, its texts and its questions."""
    cid = escape(item.id, quote=True)
    facts = [("edit", item.edit), ("expected", item.expected)]
    if item.capability is not None:
        facts.append(("capability", item.capability))
    facts += list(item.facts)
    blocks = "".join(
        "<div class=\"block\"><div class=\"title\">" + escape(b.title) + "</div>"
        + "".join(f"<div class=\"line\">{line_html(line)}</div>" for line in b.lines) + "</div>"
        for b in item.blocks)
    qs = []
    for q in questions(item):
        radios = "".join(f"<label><input type=\"radio\" name=\"{q.field}-{cid}\" data-field=\"{q.field}\" "
                         f"value=\"{a}\"> {'yes' if a == 'y' else 'no' if a == 'n' else a}</label>" for a in q.answers)
        qs.append(f"<div class=\"q\" title=\"{escape(q.text, quote=True)}\"><span class=\"text\">{escape(q.text)}"
                  f"</span>{radios}</div>")
    qs.append(f"<div class=\"q\"><span class=\"text\">note</span><input class=\"note\" type=\"text\" "
              f"name=\"note-{cid}\" aria-label=\"note\"></div>")
    return (f"<section class=\"case\" data-id=\"{cid}\" data-group=\"{escape(item.group, quote=True)}\">"
            f"<h2>{escape(item.noun)} {position} of {total} · <code>{escape(item.id)}</code> · "
            f"{escape(item.group)}</h2>"
            f"{_kv(facts)}{blocks}<fieldset>{''.join(qs)}</fieldset></section>")


def _script_json(value: Any) -> str:
    """JSON safe inside a ``<script>`` element."""
    return json.dumps(value, ensure_ascii=False, sort_keys=True).replace("<", "\\u003c").replace(">", "\\u003e") \
        .replace("&", "\\u0026")


def review_page(items: Sequence[ReviewItem], *, key: SuiteKey, sample: Mapping[str, Any], command: str,
                reviewer: str = "") -> str:
    """The page for ``items`` of the suite ``key`` drawn as ``sample``; ``command``: how to record the
    downloaded file (shown on the page); ``reviewer``: the reviewer field's initial value."""
    label = key.folder_name
    data = {"schema": SCHEMA_VERSION, "kind": INPUT_KIND, "suite": key.name, "version": key.version,
            "sha256": key.sha256, "unit": key.unit, "sample": dict(sample), "relevance": key.capabilities,
            "filename": f"{label}-labels.jsonl"}
    body = "".join(item_html(item, k, len(items)) for k, item in enumerate(items, start=1))
    how = ("Answer what you can for each case (a case counts once it has an answer); Download writes the "
           "labels file; record it with")
    what = noun(key.unit, several=True)
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
            f"<title>review {escape(label)}</title><style>{STYLE}</style></head><body>"
            f"<header class=\"top\"><h1>Review of {escape(label)}</h1>"
            f"<p>{len(items)} {what} sampled (seed {escape(str(sample.get('seed')))}"
            f"{', stratified by group' if sample.get('by_group') else ''}) · sha256 <code>{escape(key.sha256[:16])}"
            f"</code> · {escape(key.technique)}, {escape(key.task)}</p>"
            f"<label>reviewer <input id=\"reviewer\" type=\"text\" value=\"{escape(reviewer, quote=True)}\"></label> "
            "<button id=\"download\" type=\"button\">Download labels</button> <span id=\"counter\"></span>"
            f"<p>{escape(how)} <code>{escape(command)}</code>.</p></header>"
            f"<main>{body}</main>"
            "<details><summary>labels (JSONL)</summary><textarea id=\"labels-jsonl\" readonly></textarea></details>"
            f"<script type=\"application/json\" id=\"review-data\">{_script_json(data)}</script>"
            f"<script>{SCRIPT}</script></body></html>\n")
