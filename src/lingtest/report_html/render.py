"""The report page: one HTML string with inline CSS, images as data URIs and a few lines of inline
JavaScript (the case filters). Pure: sections in, text out."""

from __future__ import annotations

import json
from collections.abc import Sequence
from html import escape
from typing import Any

from lingtest.report_html.diff import Piece, word_diff
from lingtest.report_html.gather import FailingCase, Section

CSS = """
body{font:14px/1.45 system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:0;color:#1d2327;background:#fafafa}
header{background:#22313f;color:#fff;padding:14px 24px}header h1{margin:0;font-size:20px}
header p{margin:4px 0 0;font-size:12px;opacity:.85}
nav{padding:8px 24px;background:#eef1f4;border-bottom:1px solid #d5dbe1}nav a{margin-right:14px}
main{padding:8px 24px 40px}section{margin:18px 0 28px}h2{border-bottom:2px solid #22313f;padding-bottom:3px}
table{border-collapse:collapse;margin:8px 0 14px;font-size:13px;background:#fff;display:block;overflow-x:auto;
max-width:100%}
th,td{border:1px solid #d5dbe1;padding:3px 8px;text-align:left;vertical-align:top}
th{background:#eef1f4}td.num{text-align:right;font-variant-numeric:tabular-nums}
img.plot{max-width:100%;border:1px solid #d5dbe1;background:#fff;margin:4px 8px 8px 0}
.filters{display:flex;gap:10px;flex-wrap:wrap;align-items:center;margin:6px 0;padding:6px;background:#eef1f4}
.filters label{font-size:12px}.count{font-size:12px;color:#555}
details.case{background:#fff;border:1px solid #d5dbe1;margin:4px 0;padding:4px 8px}
details.case summary{cursor:pointer;font-size:13px}details.case[open]{border-color:#22313f}
.pair{display:grid;grid-template-columns:1fr 1fr;gap:10px;margin-top:6px}
.pair pre{white-space:pre-wrap;word-break:break-word;margin:0;padding:6px;background:#f6f8fa;font-size:12.5px;
max-height:340px;overflow:auto}
del{background:#ffd7d5;text-decoration:line-through}ins{background:#ccf0d2;text-decoration:none}
.tag{display:inline-block;background:#e3e8ee;border-radius:3px;padding:0 5px;margin-left:4px;font-size:11px}
.muted{color:#666;font-size:12px}
"""

JS = """
document.querySelectorAll('.filters').forEach(function (bar) {
  var target = document.getElementById(bar.dataset.target);
  var cases = target.querySelectorAll('details.case');
  var count = bar.querySelector('.count');
  function apply() {
    var want = {};
    bar.querySelectorAll('select').forEach(function (s) { want[s.name] = s.value; });
    var q = bar.querySelector('input[type=search]').value.toLowerCase();
    var shown = 0;
    cases.forEach(function (c) {
      var ok = Object.keys(want).every(function (k) { return !want[k] || c.dataset[k] === want[k]; });
      if (ok && q) { ok = c.textContent.toLowerCase().indexOf(q) >= 0; }
      c.hidden = !ok;
      if (ok) { shown += 1; }
    });
    count.textContent = shown + ' of ' + cases.length + ' failing cases shown';
  }
  bar.addEventListener('input', apply);
  bar.addEventListener('change', apply);
  apply();
});
"""


def _num(v: Any) -> str:
    if isinstance(v, float):
        return f"{v:.4f}".rstrip("0").rstrip(".") if v == v else "nan"
    return escape(str(v))


def markdown_tables(text: str) -> str:
    """Pipe tables become HTML tables; other non-empty lines become paragraphs (escaped)."""
    out: list[str] = []
    rows: list[list[str]] = []

    def flush() -> None:
        if not rows:
            return
        head, body = rows[0], [r for r in rows[1:] if not all(set(c.strip()) <= set("-:") for c in r)]
        html = ["<table class=\"md\"><thead><tr>", *(f"<th>{escape(c)}</th>" for c in head), "</tr></thead><tbody>"]
        for r in body:
            html.append("<tr>" + "".join(f"<td>{escape(c)}</td>" for c in r) + "</tr>")
        html.append("</tbody></table>")
        out.append("".join(html))
        rows.clear()

    for line in text.splitlines():
        s = line.strip()
        if s.startswith("|") and s.endswith("|"):
            rows.append([c.strip() for c in s[1:-1].split("|")])
            continue
        flush()
        if s:
            out.append(f"<p class=\"muted\">{escape(s.lstrip('#').strip())}</p>")
    flush()
    return "\n".join(out)


def _pieces(pieces: list[Piece]) -> str:
    out = []
    for p in pieces:
        t = escape(p.text)
        out.append(t if p.kind == "same" else f"<{p.kind}>{t}</{p.kind}>")
    return " ".join(out)


def _prediction_pair(pred: dict[str, Any]) -> tuple[str, str] | None:
    for a, b in (("source", "followup"), ("original", "perturbed"), ("clean", "perturbed"), ("reference", "variants")):
        if a in pred and b in pred:
            return json.dumps(pred[a], ensure_ascii=False, indent=1), json.dumps(pred[b], ensure_ascii=False, indent=1)
    return None


def _cut(text: str, limit: int = 3000) -> str:
    return text if len(text) <= limit else text[:limit] + "\n…"


def render_case(c: FailingCase) -> str:
    left, right = word_diff(c.source_text, c.followup_text) if c.followup_text else (
        [Piece(c.source_text, "same")], [])
    pair = _prediction_pair(c.predictions)
    if pair:
        preds = (f"<div class=\"pair\"><div><b>prediction on the source</b><pre>{escape(_cut(pair[0]))}</pre></div>"
                 f"<div><b>prediction on the follow-up</b><pre>{escape(_cut(pair[1]))}</pre></div></div>")
    else:
        preds = (f"<div><b>predictions</b><pre>{escape(_cut(json.dumps(c.predictions, ensure_ascii=False, indent=1)))}"
                 "</pre></div>")
    details = (f"<div><b>details</b><pre>{escape(_cut(json.dumps(c.details, ensure_ascii=False, indent=1), 1500))}"
               "</pre></div>") if c.details else ""
    first = (c.followup_text or c.source_text).replace("\n", " ")[:90]
    return (f"<details class=\"case\" data-system=\"{escape(c.system)}\" "
            f"data-transformation=\"{escape(c.transformation)}\" "
            f"data-capability=\"{escape(c.capability)}\"><summary><code>{escape(c.id)}</code>"
            f"<span class=\"tag\">{escape(c.system)}</span><span class=\"tag\">{escape(c.transformation)}</span>"
            f"<span class=\"tag\">{escape(c.expectation)}</span> {escape(first)}</summary>"
            f"<div class=\"pair\"><div><b>source</b><pre>{_pieces(left)}</pre></div>"
            f"<div><b>follow-up</b><pre>{_pieces(right)}</pre></div></div>{preds}{details}</details>")


def _select(name: str, values: Sequence[str]) -> str:
    opts = "".join(f"<option value=\"{escape(v)}\">{escape(v)}</option>" for v in values)
    return (f"<label>{escape(name)} <select name=\"{escape(name)}\"><option value=\"\">all</option>{opts}"
            "</select></label>")


def _systems_table(sec: Section) -> str:
    from lingtest.compare.table import flatten_numbers

    names = sorted(set(sec.systems) | set(sec.cases))
    if not names:
        return ""
    fails: dict[str, int] = {}
    for c in sec.failures:
        fails[c.system] = fails.get(c.system, 0) + 1
    rows = ["<table class=\"systems\"><thead><tr><th>system</th><th>cases run</th><th>failing</th>"
            "<th>failure rate</th></tr></thead><tbody>"]
    for n in names:
        total = sec.cases.get(n, 0)
        failing = fails.get(n, 0) + sec.shown_cut.get(n, 0)
        rate = f"{failing / total:.1%}" if total else "-"
        rows.append(f"<tr><td>{escape(n)}</td><td class=\"num\">{total}</td><td class=\"num\">{failing}</td>"
                    f"<td class=\"num\">{rate}</td></tr>")
    rows.append("</tbody></table>")
    flat = {n: flatten_numbers(sec.systems.get(n, {})) for n in names}
    keys = sorted(set().union(*[set(f) for f in flat.values()]))
    if keys:
        rows.append(f"<details><summary>all {len(keys)} metrics of the systems</summary>"
                    "<table class=\"metrics\"><thead>"
                    "<tr><th>metric</th>" + "".join(f"<th>{escape(n)}</th>" for n in names) + "</tr></thead><tbody>")
        for k in keys:
            rows.append(f"<tr><td>{escape(k)}</td>" + "".join(
                f"<td class=\"num\">{_num(flat[n][k]) if k in flat[n] else '-'}</td>" for n in names) + "</tr>")
        rows.append("</tbody></table></details>")
    return "\n".join(rows)


def render_section(sec: Section) -> str:
    sid = f"{sec.technique}-{sec.corpus}"
    parts = [f"<section id=\"{escape(sid)}\"><h2>{escape(sec.technique)} — {escape(sec.corpus)}</h2>"]
    for name, md in sec.tables.items():
        parts.append(f"<h3>{escape(name)}</h3>{markdown_tables(md)}")
    if sec.plots:
        parts.append("<h3>Plots</h3>" + "".join(
            f"<img class=\"plot\" alt=\"{escape(n)}\" title=\"{escape(n)}\" src=\"{uri}\">"
            for n, uri in sec.plots.items()))
    systems = _systems_table(sec)
    if systems:
        parts.append(f"<h3>Systems under test</h3>{systems}")
    if sec.cases:
        cid = f"cases-{sid}"
        parts.append("<h3>Failing test cases</h3>")
        cut = ", ".join(f"{s}: {n} more not shown" for s, n in sec.shown_cut.items())
        if cut:
            parts.append(f"<p class=\"muted\">at most report.max_cases per system ({escape(cut)})</p>")
        parts.append(f"<div class=\"filters\" data-target=\"{escape(cid)}\">"
                     + _select("system", sorted({c.system for c in sec.failures}))
                     + _select("transformation", sorted({c.transformation for c in sec.failures}))
                     + _select("capability", sorted({c.capability for c in sec.failures}))
                     + "<label>text <input type=\"search\" placeholder=\"search\"></label>"
                     + "<span class=\"count\"></span></div>")
        parts.append(f"<div id=\"{escape(cid)}\">" + "\n".join(render_case(c) for c in sec.failures) + "</div>")
    parts.append("</section>")
    return "\n".join(parts)


def render(sections: Sequence[Section], *, title: str, subtitle: str, comparison_md: str | None = None,
           comparison_plots: dict[str, str] | None = None) -> str:
    nav = []
    body = []
    if comparison_md:
        nav.append("<a href=\"#comparison\">comparison</a>")
        plots = "".join(f"<img class=\"plot\" alt=\"{escape(n)}\" src=\"{u}\">"
                        for n, u in (comparison_plots or {}).items())
        body.append(f"<section id=\"comparison\"><h2>Comparison</h2>{markdown_tables(comparison_md)}{plots}</section>")
    for sec in sections:
        anchor = f"{sec.technique}-{sec.corpus}"
        nav.append(f"<a href=\"#{escape(anchor)}\">{escape(sec.technique)}/{escape(sec.corpus)}</a>")
        body.append(render_section(sec))
    if not sections and not comparison_md:
        body.append("<p>No technique has outputs in this working tree yet: run <code>dvc repro</code>.</p>")
    return ("<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
            f"<link rel=\"icon\" href=\"data:,\"><title>{escape(title)}</title><style>{CSS}</style></head><body>"
            f"<header><h1>{escape(title)}</h1><p>{escape(subtitle)}</p></header><nav>{''.join(nav)}</nav>"
            f"<main>{''.join(body)}</main><script>{JS}</script></body></html>\n")
