"""The report page: one HTML string with inline CSS, images as data URIs and a few lines of inline
JavaScript (the case filters). Pure: sections and comparisons in, text out. Every text from the data
is escaped; the filters' options are the values the cases have.

The filters can be preset from the address: ``report.html#outcome=pass&group=LC1&q=film`` sets the
selects of that name (where the value is one of their options) and the text search."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from html import escape
from typing import Any

from lingtest.report_html.cases import CaseView, case_text
from lingtest.report_html.gather import Counts, Section, passing_limit
from lingtest.report_html.runs import FAIL_TO_PASS, PASS_TO_FAIL, Comparison, Flip
from lingtest.report_html.views import CLUSTER_COLOURS, N_LABEL_COLOURS, describe_expected, render_case_body

#: background (then text) colour of each coreference cluster number and entity label class
_CLUSTER_PALETTE = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#17becf",
                    "#7f7f00", "#393b79"]
_LABEL_PALETTE = ["#ffe0b2", "#c8e6c9", "#bbdefb", "#e1bee7", "#fff59d", "#ffcdd2", "#b2dfdb", "#d7ccc8"]

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
.facts{font-size:12px;color:#444}.facts b{font-weight:600}
.filters{display:flex;gap:10px;flex-wrap:wrap;align-items:center;margin:6px 0;padding:6px;background:#eef1f4}
.filters label{font-size:12px}.count{font-size:12px;color:#555}
.case{background:#fff;border:1px solid #d5dbe1;margin:4px 0;padding:4px 8px}.case[hidden]{display:none}
.case summary{cursor:pointer;font-size:13px}.case[open]{border-color:#22313f}
.badge{display:inline-block;border-radius:3px;padding:0 6px;font-size:11px;font-weight:600;color:#fff;margin-right:4px}
.badge.fail{background:#c62828}.badge.pass{background:#2e7d32}
.tag{display:inline-block;background:#e3e8ee;border-radius:3px;padding:0 5px;margin:0 4px 0 4px;font-size:11px}
.pair{display:grid;grid-template-columns:1fr 1fr;gap:10px;margin-top:6px}
.side{background:#f6f8fa;padding:6px;border-radius:3px;min-width:0}
.side-h{font-weight:600;font-size:12px;text-transform:uppercase;letter-spacing:.03em;color:#445;margin-bottom:4px}
.row{display:flex;gap:8px;margin:2px 0}.rowlab{flex:0 0 auto;font-size:11px;color:#667;min-width:56px;
padding-top:2px}
.toks{white-space:pre-wrap;word-break:break-word;font-size:13px;line-height:1.9;max-height:420px;overflow:auto;
flex:1}
.text{white-space:pre-wrap;word-break:break-word;margin:2px 0 6px}
mark{background:#ffe9a8;color:inherit;border-bottom:2px solid #e0a800}
.ent{border-radius:3px;padding:1px 2px}.ent sup.lab{font-size:9px;font-weight:700;margin-left:2px;color:#333}
.toks b{font-weight:700}.toks b sub{font-size:9px}
.cid{display:inline-block;min-width:16px;text-align:center;border-radius:8px;color:#fff;font-size:11px}
ul.clusters{margin:4px 0;padding-left:18px;font-size:12px}ul.clusters li{list-style:none;margin:1px 0}
.why{color:#8a4b00;background:#fff4e5;border-left:3px solid #e0a800;padding:3px 6px;margin:4px 0;font-size:12.5px}
.expect{font-size:12.5px;color:#333;margin:6px 0 2px}.muted,.cut{color:#666;font-size:12px}
table.kv th{width:110px}.good{color:#1b5e20;font-weight:600}.bad{color:#b71c1c;font-weight:600}
table.cands tr.ref td{background:#e8f5e9}table.cands tr.wrong td{background:#ffebee}
.runhead{font-weight:600;margin:10px 0 0;font-size:13px}details.gold summary{font-size:12px;color:#555}
""" + "".join(f".c{i}{{color:{c}}}.cid.c{i}{{background:{c};color:#fff}}" for i, c in enumerate(_CLUSTER_PALETTE)) \
    + "".join(f".ent.l{i}{{background:{c}}}" for i, c in enumerate(_LABEL_PALETTE)) + "\n"
assert len(_CLUSTER_PALETTE) == CLUSTER_COLOURS and len(_LABEL_PALETTE) == N_LABEL_COLOURS

JS = """
(function () {
  var preset = {};
  if (location.hash.indexOf('=') >= 0) {
    location.hash.slice(1).split('&').forEach(function (kv) {
      var i = kv.indexOf('=');
      if (i > 0) { preset[decodeURIComponent(kv.slice(0, i))] = decodeURIComponent(kv.slice(i + 1)); }
    });
  }
  document.querySelectorAll('.filters').forEach(function (bar) {
    var target = document.getElementById(bar.dataset.target);
    if (!target) { return; }
    var items = Array.prototype.slice.call(target.children).filter(function (c) {
      return c.classList.contains('case');
    });
    var count = bar.querySelector('.count');
    var search = bar.querySelector('input[type=search]');
    var selects = Array.prototype.slice.call(bar.querySelectorAll('select'));
    selects.forEach(function (s) {
      if (Object.prototype.hasOwnProperty.call(preset, s.name)) {
        Array.prototype.forEach.call(s.options, function (o) {
          if (o.value === preset[s.name]) { s.value = o.value; }
        });
      }
    });
    if (search && preset.q) { search.value = preset.q; }
    function apply() {
      var want = {};
      selects.forEach(function (s) { if (s.value) { want[s.name] = s.value; } });
      var q = search ? search.value.toLowerCase() : '';
      var shown = 0;
      items.forEach(function (c) {
        var ok = Object.keys(want).every(function (k) { return c.getAttribute('data-' + k) === want[k]; });
        if (ok && q) { ok = c.textContent.toLowerCase().indexOf(q) >= 0; }
        c.hidden = !ok;
        if (ok) { shown += 1; }
      });
      count.textContent = shown + ' of ' + items.length + ' ' + (bar.dataset.noun || 'cases') + ' shown';
    }
    bar.addEventListener('input', apply);
    bar.addEventListener('change', apply);
    apply();
  });
  document.body.setAttribute('data-ready', '1');
})();
"""

#: a groups table longer than this starts closed
MANY_GROUPS = 15
_BR = re.compile(r"<br\s*/?>", re.IGNORECASE)


def _cell(text: str) -> str:
    """A table cell: escaped, with the ``<br>`` line breaks the metrics tables use kept as breaks."""
    return "<br>".join(escape(part) for part in _BR.split(text))


def markdown_tables(text: str) -> str:
    """Pipe tables become HTML tables (a ``<br>`` in a cell is a line break, everything else is escaped);
    other non-empty lines become paragraphs (escaped)."""
    out: list[str] = []
    rows: list[list[str]] = []

    def flush() -> None:
        if not rows:
            return
        head, body = rows[0], [r for r in rows[1:] if not all(set(c.strip()) <= set("-:") for c in r)]
        html = ["<table class=\"md\"><thead><tr>", *(f"<th>{_cell(c)}</th>" for c in head), "</tr></thead><tbody>"]
        for r in body:
            html.append("<tr>" + "".join(f"<td>{_cell(c)}</td>" for c in r) + "</tr>")
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
            out.append(f"<p class=\"muted\">{_cell(s.lstrip('#').strip())}</p>")
    flush()
    return "\n".join(out)


def _num(v: Any) -> str:
    if isinstance(v, float):
        return f"{v:.4f}".rstrip("0").rstrip(".") if v == v else "nan"
    return escape(str(v))


def _rate(c: Counts) -> str:
    return f"{c.failed / c.cases:.1%}" if c.cases else "-"


def _attr(value: str) -> str:
    return escape(value, quote=True)


def _first_line(text: str, limit: int = 100) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[:limit] + " …"


def render_case(view: CaseView, max_chars: int = 0, *, show_system: bool = False, open_: bool = False) -> str:
    """One case as a collapsible block; ``data-group``, ``data-outcome`` and ``data-system`` feed the filters."""
    system = f"<span class=\"tag\">{escape(view.system)}</span>" if show_system else ""
    return (f"<details class=\"case\" data-group=\"{_attr(view.group)}\" data-outcome=\"{view.outcome}\" "
            f"data-system=\"{_attr(view.system)}\" data-id=\"{_attr(view.id)}\"{' open' if open_ else ''}>"
            f"<summary><span class=\"badge {view.outcome}\">{view.outcome}</span><code>{escape(view.id)}</code>"
            f"<span class=\"tag\">{escape(view.group)}</span>{system} {escape(_first_line(case_text(view)))}"
            f"</summary>{render_case_body(view, max_chars)}</details>")


def _select(name: str, values: Iterable[str], *, selected: str = "", label: str | None = None) -> str:
    opts = "".join(f"<option value=\"{_attr(v)}\"{' selected' if v == selected else ''}>{escape(v)}</option>"
                   for v in values)
    return (f"<label>{escape(label or name)} <select name=\"{_attr(name)}\"><option value=\"\">all</option>{opts}"
            "</select></label>")


def _filters(target: str, selects: Sequence[str], noun: str) -> str:
    return (f"<div class=\"filters\" data-target=\"{_attr(target)}\" data-noun=\"{_attr(noun)}\">" + "".join(selects)
            + "<label>text <input type=\"search\" placeholder=\"search the cases\"></label>"
            + "<span class=\"count\"></span></div>")


def _sorted_groups(groups: Iterable[str]) -> list[str]:
    def key(g: str) -> tuple[Any, ...]:
        return tuple((0, int(p), "") if p.isdigit() else (1, 0, p) for p in re.split(r"(\d+)", g) if p)

    return sorted(groups, key=key)


def _systems_table(sec: Section) -> str:
    from lingtest.compare.table import flatten_numbers

    names = list(sec.counts) + [n for n in sorted(sec.systems) if n not in sec.counts]
    if not names:
        return ""
    noted = bool(sec.no_results)
    rows = ["<table class=\"systems\"><thead><tr><th>system</th><th>cases run</th><th>failing</th>"
            "<th>failure rate</th>" + ("<th>per-case results</th>" if noted else "") + "</tr></thead><tbody>"]
    for n in names:
        c = sec.counts.get(n)
        if c is None:
            cells = "<td class=\"num\">—</td><td class=\"num\">—</td><td class=\"num\">—</td>"
        else:
            cells = (f"<td class=\"num\">{c.cases}</td><td class=\"num\">{c.failed}</td>"
                     f"<td class=\"num\">{_rate(c)}</td>")
        note = f"<td class=\"muted\">{escape(sec.no_results.get(n, 'in this report'))}</td>" if noted else ""
        rows.append(f"<tr><td>{escape(n)}</td>{cells}{note}</tr>")
    rows.append("</tbody></table>")
    metric_names = [n for n in names if n in sec.systems]
    flat = {n: flatten_numbers(sec.systems[n]) for n in metric_names}
    keys = sorted(set().union(*[set(f) for f in flat.values()])) if flat else []
    if keys:
        rows.append(f"<details><summary>all {len(keys)} metrics of the systems</summary>"
                    "<table class=\"metrics\"><thead>"
                    "<tr><th>metric</th>" + "".join(f"<th>{escape(n)}</th>" for n in metric_names) + "</tr></thead>"
                    "<tbody>")
        for k in keys:
            rows.append(f"<tr><td>{escape(k)}</td>" + "".join(
                f"<td class=\"num\">{_num(flat[n][k]) if k in flat[n] else '-'}</td>" for n in metric_names) + "</tr>")
        rows.append("</tbody></table></details>")
    return "\n".join(rows)


def validity_rows(metrics: dict[str, Any]) -> list[tuple[str, int, int, float | None, float | None]]:
    """``(scope, valid, total, precision, adjusted precision)`` for every place in a system's metrics that
    reports the validity of its tests (``<scope>.validity_valid`` and ``validity_total``; scope ``overall``
    at the top level), with the precision and the validity-adjusted precision reported beside it."""
    from lingtest.compare.table import flatten_numbers

    flat = flatten_numbers(metrics)
    out = []
    for key in sorted(flat):
        if not key.endswith("validity_total"):
            continue
        prefix = key[: -len("validity_total")]
        total = int(flat[key])
        valid = flat.get(f"{prefix}validity_valid")
        if valid is None or total <= 0:
            continue
        out.append((prefix.rstrip(".") or "overall", int(valid), total, flat.get(f"{prefix}precision"),
                    flat.get(f"{prefix}precision_validity_adjusted")))
    return sorted(out, key=lambda r: (r[0] != "overall", r[0]))


def _validity_table(sec: Section) -> str:
    """Validity beside precision, per system and scope: the share of tests whose generated input keeps its
    source's gold, the precision and the precision with issues on invalid tests counted as false positives."""
    rows = [(n, *r) for n in sorted(sec.systems) for r in validity_rows(sec.systems[n])]
    if not rows:
        return ""
    out = ["<table class=\"metrics\"><thead><tr><th>system</th><th>scope</th><th>valid tests</th><th>validity</th>"
           "<th>precision</th><th>adjusted precision</th></tr></thead><tbody>"]
    for name, scope, valid, total, prec, adj in rows:
        out.append(f"<tr><td>{escape(name)}</td><td>{escape(scope)}</td><td class=\"num\">{valid} / {total}</td>"
                   f"<td class=\"num\">{valid / total:.1%}</td>"
                   f"<td class=\"num\">{'-' if prec is None else f'{prec:.2f}'}</td>"
                   f"<td class=\"num\">{'-' if adj is None else f'{adj:.2f}'}</td></tr>")
    out.append("</tbody></table>")
    return "\n".join(out)


def _groups_table(sec: Section) -> str:
    if not sec.groups:
        return ""
    systems = list(sec.counts)
    if len(systems) == 1:
        head = "<th>group</th><th>cases</th><th>failing</th><th>failure rate</th>"
        body = []
        for g in _sorted_groups(sec.groups):
            c = sec.groups[g].get(systems[0], Counts())
            body.append(f"<tr><td>{escape(g)}</td><td class=\"num\">{c.cases}</td><td class=\"num\">{c.failed}</td>"
                        f"<td class=\"num\">{_rate(c)}</td></tr>")
    else:
        head = "<th>group</th>" + "".join(f"<th>{escape(s)}: failing / cases</th>" for s in systems)
        body = []
        for g in _sorted_groups(sec.groups):
            cells = []
            for s in systems:
                got = sec.groups[g].get(s)
                cells.append(f"<td class=\"num\">{got.failed} / {got.cases} ({_rate(got)})</td>" if got else
                             "<td class=\"num\">—</td>")
            body.append(f"<tr><td>{escape(g)}</td>{''.join(cells)}</tr>")
    return f"<table class=\"groups\"><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"


def _cases_block(sec: Section) -> str:
    cid = f"cases-{sec.key}"
    cases = sorted(sec.cases, key=lambda c: c.passed)  # failing first, otherwise in the order they ran
    total = sum(c.cases for c in sec.counts.values())
    failed = sum(c.failed for c in sec.counts.values())
    parts = ["<h3>Test cases</h3>",
             f"<p class=\"muted\">{len(cases)} of {total} cases in this report ({failed} failing overall)"
             + (f": at most {sec.max_cases} failing and {passing_limit(sec.max_cases)} passing cases per system"
                if sec.not_shown else "") + "</p>"]
    if sec.not_shown:
        parts.append("<p class=\"muted\">not shown: " + escape("; ".join(
            f"{s}: {f} failing, {p} passing" for s, (f, p) in sec.not_shown.items())) + "</p>")
    systems = sorted({c.system for c in cases})
    selects = []
    if len(systems) > 1:
        selects.append(_select("system", systems))
    selects.append(_select("group", _sorted_groups({c.group for c in cases})))
    outcomes = [o for o in ("fail", "pass") if any(c.outcome == o for c in cases)]
    selects.append(_select("outcome", outcomes, selected="fail" if "fail" in outcomes and len(outcomes) > 1 else ""))
    parts.append(_filters(cid, selects, "cases"))
    first_fail = next((i for i, c in enumerate(cases) if not c.passed), -1)
    parts.append(f"<div id=\"{_attr(cid)}\">" + "\n".join(
        render_case(c, sec.max_chars, show_system=len(systems) > 1, open_=i == first_fail)
        for i, c in enumerate(cases)) + "</div>")
    return "\n".join(parts)


def render_section(sec: Section) -> str:
    """One section: facts, tables, plots, systems, groups and the cases with their filters."""
    parts = [f"<section id=\"{_attr(sec.key)}\"><h2>{escape(sec.title)}</h2>"]
    if sec.facts:
        parts.append("<p class=\"facts\">" + " · ".join(
            f"<b>{escape(k)}</b> {escape(v)}" for k, v in sec.facts.items()) + "</p>")
    for name, md in sec.tables.items():
        parts.append(f"<h3>{escape(name)}</h3>{markdown_tables(md)}")
    if sec.plots:
        parts.append("<h3>Plots</h3>" + "".join(
            f"<img class=\"plot\" alt=\"{_attr(n)}\" title=\"{_attr(n)}\" src=\"{_attr(uri)}\">"
            for n, uri in sec.plots.items()))
    systems = _systems_table(sec)
    if systems:
        parts.append(f"<h3>Systems under test</h3>{systems}")
    validity = _validity_table(sec)
    if validity:
        parts.append("<h3>Validity of the generated tests</h3><p class=\"muted\">the share of tests whose generated "
                     "input keeps its source's gold, and the precision with issues on the other tests counted as "
                     f"false positives</p>{validity}")
    for note in sec.notes:
        parts.append(f"<p class=\"why\">{escape(note)}</p>")
    groups = _groups_table(sec)
    if groups:
        many = len(sec.groups) > MANY_GROUPS
        parts.append(f"<h3>Groups</h3><details{'' if many else ' open'}><summary>failures in each of the "
                     f"{len(sec.groups)} groups</summary>{groups}</details>")
    if sec.counts:
        parts.append(_cases_block(sec))
    parts.append("</section>")
    return "\n".join(parts)


def render_flip(flip: Flip, cmp: Comparison, *, open_: bool = False) -> str:
    """One flipped case: its texts with run A's outputs, then with run B's."""
    def run_block(which: str, label: str, view: CaseView) -> str:
        return (f"<div class=\"runhead\">run {which}: {escape(label)} "
                f"<span class=\"badge {view.outcome}\">{view.outcome}</span></div>"
                + render_case_body(view, cmp.max_chars, with_expected=False))

    return (f"<details class=\"case\" data-flip=\"{_attr(flip.direction)}\" data-group=\"{_attr(flip.group)}\" "
            f"data-id=\"{_attr(flip.id)}\"{' open' if open_ else ''}><summary>"
            f"<span class=\"badge {'fail' if flip.direction == PASS_TO_FAIL else 'pass'}\">"
            f"{escape(flip.direction)}</span><code>{escape(flip.id)}</code><span class=\"tag\">{escape(flip.group)}"
            f"</span> {escape(_first_line(case_text(flip.b) or case_text(flip.a)))}</summary>"
            f"<p class=\"expect\">expected: {escape(describe_expected(flip.b))}</p>"
            + run_block("A", cmp.a, flip.a) + run_block("B", cmp.b, flip.b) + "</details>")


def render_comparison(cmp: Comparison) -> str:
    """Two runs of one suite: how many cases kept or flipped their verdict, and the flipped cases."""
    fid = f"flips-{cmp.key}"
    counts = "".join(f"<tr><td>{escape(k)}</td><td class=\"num\">{v}</td></tr>" for k, v in cmp.counts.items())
    parts = [f"<section id=\"{_attr(cmp.key)}\"><h2>Comparison — {escape(cmp.suite)}: {escape(cmp.a)} (A) vs "
             f"{escape(cmp.b)} (B)</h2>",
             f"<table class=\"flips\"><thead><tr><th>A → B</th><th>cases</th></tr></thead><tbody>{counts}"
             "</tbody></table>"]
    if not cmp.flips:
        parts.append("<p class=\"muted\">no case changed its verdict between the two runs</p></section>")
        return "\n".join(parts)
    if cmp.not_shown:
        parts.append(f"<p class=\"muted\">{cmp.not_shown} more flipped cases not shown (at most the limit per "
                     "direction)</p>")
    directions = [d for d in (PASS_TO_FAIL, FAIL_TO_PASS) if any(f.direction == d for f in cmp.flips)]
    parts.append(_filters(fid, [_select("flip", directions),
                                _select("group", _sorted_groups({f.group for f in cmp.flips}))], "flipped cases"))
    parts.append(f"<div id=\"{_attr(fid)}\">" + "\n".join(
        render_flip(f, cmp, open_=i == 0) for i, f in enumerate(cmp.flips)) + "</div></section>")
    return "\n".join(parts)


def render(sections: Sequence[Section], *, title: str, subtitle: str, comparison_md: str | None = None,
           comparison_plots: dict[str, str] | None = None, comparisons: Sequence[Comparison] = (),
           notes: Sequence[str] = (), empty: str = "") -> str:
    """The page: the git comparison (``comparison_md``, ``comparison_plots``), the run comparisons, then
    the sections; ``empty`` is what the page says when there is nothing else."""
    nav = []
    body = [f"<p class=\"why\">{escape(n)}</p>" for n in notes]
    if comparison_md:
        nav.append("<a href=\"#comparison\">comparison</a>")
        plots = "".join(f"<img class=\"plot\" alt=\"{_attr(n)}\" src=\"{_attr(u)}\">"
                        for n, u in (comparison_plots or {}).items())
        body.append(f"<section id=\"comparison\"><h2>Comparison</h2>{markdown_tables(comparison_md)}{plots}</section>")
    for cmp in comparisons:
        nav.append(f"<a href=\"#{_attr(cmp.key)}\">flips: {escape(cmp.a)} → {escape(cmp.b)}</a>")
        body.append(render_comparison(cmp))
    for sec in sections:
        nav.append(f"<a href=\"#{_attr(sec.key)}\">{escape(sec.title)}</a>")
        body.append(render_section(sec))
    if not sections and not comparison_md and not comparisons:
        body.append(f"<p>{escape(empty or 'Nothing to report.')}</p>")
    return ("<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
            f"<link rel=\"icon\" href=\"data:,\"><title>{escape(title)}</title><style>{CSS}</style></head><body>"
            f"<header><h1>{escape(title)}</h1><p>{escape(subtitle)}</p></header><nav>{''.join(nav)}</nav>"
            f"<main>{''.join(body)}</main><script>{JS}</script></body></html>\n")
