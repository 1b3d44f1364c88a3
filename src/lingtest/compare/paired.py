"""Two runs of ``lingtest run`` compared case by case: which cases flipped, and whether B fails
significantly more (or fewer) cases than A, per group and overall.

A run folder holds ``results.jsonl`` (one line per case: ``id``, ``group``, ``inputs``, ``prediction``,
``passed``, ...) and ``summary.json`` (suite and system identity, run options); see
:mod:`lingtest.harness.results`. Cases are matched by id. For every group and overall:

* ``pass_to_fail``: cases A passed and B failed; ``fail_to_pass``: the reverse;
* ``p_value``: the exact McNemar test, a two-sided binomial test of ``pass_to_fail`` among the
  discordant pairs against 1/2 (1.0 when no case flipped);
* ``p_holm``: the group p-values adjusted by Holm's step-down method across the groups (the family is
  the groups; the overall test is a single test and is not adjusted);
* ``ci_low``, ``ci_high``: a paired bootstrap interval of the failure-rate difference B - A (cases
  resampled with replacement within the group; a resample is drawn as a multinomial over the three
  per-case differences -1, 0, +1, which is the same distribution as resampling cases and costs O(1) per
  resample), percentile method, seeded per group so that a group's interval does not depend on the
  other groups.

Everything here is pure except :func:`load_run` (reads a folder).
"""

from __future__ import annotations

import json
import math
import zlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from lingtest.errors import InputError

RESULTS_FILE = "results.jsonl"
SUMMARY_FILE = "summary.json"
RESULTS_KIND = "suite-results"
OVERALL = "overall"
PASS_TO_FAIL = "pass_to_fail"
FAIL_TO_PASS = "fail_to_pass"


# ---------------------------------------------------------------------------------------------------
# run folders


@dataclass(frozen=True)
class CaseOutcome:
    """One line of ``results.jsonl``: what a comparison needs of it."""

    id: str
    group: str
    passed: bool
    inputs: Any = None
    prediction: Any = None


@dataclass
class Run:
    """A run folder: the results file's header, ``summary.json`` and the cases in file order."""

    path: str
    header: dict[str, Any]
    summary: dict[str, Any]
    cases: list[CaseOutcome]

    def _part(self, name: str) -> dict[str, Any]:
        """``summary.json``'s object ``name`` (empty when it has none)."""
        s = self.summary.get(name)
        return s if isinstance(s, dict) else {}

    def _suite(self) -> dict[str, Any]:
        return self._part("suite")

    def _system(self) -> dict[str, Any]:
        return self._part("system")

    @property
    def suite(self) -> str | None:
        return self.header.get("suite") or self._suite().get("name")

    @property
    def suite_version(self) -> str | None:
        return self.header.get("suite_version") or self._suite().get("version")

    @property
    def suite_sha256(self) -> str | None:
        return self.header.get("suite_sha256") or self._suite().get("sha256")

    @property
    def task(self) -> str | None:
        return self._suite().get("task")

    @property
    def system(self) -> str:
        """The system's name (its spec when the summary has no name)."""
        return str(self._system().get("name") or self.header.get("system") or self._system().get("spec") or "?")

    def identity(self) -> dict[str, Any]:
        """The run's identity: folder, suite, system, lingtest, run options, case counts."""
        sys_ = self._system()
        lt, run = self._part("lingtest"), self._part("run")
        return {"path": self.path, "suite": self.suite, "suite_version": self.suite_version,
                "suite_sha256": self.suite_sha256, "task": self.task,
                "system": sys_.get("spec") or self.header.get("system"), "system_name": self.system,
                "system_version": sys_.get("version"), "lingtest_version": lt.get("version"),
                "lingtest_commit": lt.get("commit"), "limit": run.get("limit"), "seed": run.get("seed"),
                "cases": len(self.cases), "failed": sum(not c.passed for c in self.cases)}


def is_run_dir(path: str | Path) -> bool:
    """A folder written by ``lingtest run``: it holds ``results.jsonl`` and ``summary.json``."""
    from lingtest.harness.results import is_run_folder

    return is_run_folder(path)


def load_run(path: str | Path) -> Run:
    """Read a run folder (:func:`lingtest.harness.results.read_run_folder`); errors name the file, line
    and field."""
    from lingtest.harness.results import read_run_folder

    header, summary, records = read_run_folder(path)
    cases = [CaseOutcome(r["id"], r["group"], r["passed"], r.get("inputs"), r.get("prediction")) for r in records]
    return Run(str(Path(path)), header, summary, cases)


def suite_mismatch(a: Run, b: Run) -> str | None:
    """Why two runs are not runs of the same suite (different sha256 or version), or None."""
    if a.suite_sha256 == b.suite_sha256 and a.suite_version == b.suite_version:
        return None

    def who(r: Run) -> str:
        return f"{r.suite} {r.suite_version or '(no version)'} (sha256 {str(r.suite_sha256)[:12]})"

    what = "different suites" if a.suite_sha256 != b.suite_sha256 else "different versions of a suite"
    return f"the runs are of {what}: A ran {who(a)}, B ran {who(b)}"


# ---------------------------------------------------------------------------------------------------
# statistics


def mcnemar_exact(pass_to_fail: int, fail_to_pass: int) -> float:
    """The exact McNemar p-value: a two-sided binomial test of ``pass_to_fail`` successes in
    ``pass_to_fail + fail_to_pass`` discordant pairs with p = 1/2 (1.0 without discordant pairs)."""
    if pass_to_fail < 0 or fail_to_pass < 0:
        raise ValueError("counts must be >= 0")
    n = pass_to_fail + fail_to_pass
    if n == 0:
        return 1.0
    from scipy.stats import binomtest

    return float(min(1.0, binomtest(pass_to_fail, n, 0.5, alternative="two-sided").pvalue))


def bootstrap_interval(cases: int, pass_to_fail: int, fail_to_pass: int, *, resamples: int, seed: int | Sequence[int],
                       level: float = 0.95) -> tuple[float, float] | None:
    """Paired bootstrap percentile interval of the failure-rate difference B - A over ``cases`` paired
    cases of which ``pass_to_fail`` have difference +1 and ``fail_to_pass`` -1 (None for no case).

    Resampling ``cases`` cases with replacement only matters through how many of each difference it
    draws, so a resample is one multinomial draw over (+1, -1, 0)."""
    if cases <= 0:
        return None
    if pass_to_fail + fail_to_pass > cases:
        raise ValueError("more flipped cases than cases")
    if resamples < 1:
        raise ValueError("resamples must be >= 1")
    import numpy as np

    rng = np.random.default_rng(seed)
    probs = [pass_to_fail / cases, fail_to_pass / cases]
    probs.append(max(0.0, 1.0 - probs[0] - probs[1]))
    draws = rng.multinomial(cases, probs, size=resamples)
    diffs = (draws[:, 0] - draws[:, 1]) / cases
    tail = (1.0 - level) / 2
    low, high = np.quantile(diffs, [tail, 1.0 - tail])
    return float(low), float(high)


def holm(pvalues: Sequence[float]) -> list[float]:
    """Holm's step-down adjusted p-values (same order as given)."""
    m = len(pvalues)
    order = sorted(range(m), key=lambda i: pvalues[i])
    adjusted = [1.0] * m
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * pvalues[i]))
        adjusted[i] = running
    return adjusted


def group_seed(seed: int, group: str) -> list[int]:
    """The bootstrap seed of one group: the user's seed and a stable hash of the group's name."""
    return [int(seed), zlib.crc32(group.encode("utf-8"))]


# ---------------------------------------------------------------------------------------------------
# the comparison


@dataclass(frozen=True)
class GroupComparison:
    """One group (or ``overall``) of a paired comparison."""

    group: str
    cases: int
    failed_a: int
    failed_b: int
    pass_to_fail: int
    fail_to_pass: int
    p_value: float
    ci_low: float | None
    ci_high: float | None
    p_holm: float | None = None

    @property
    def rate_a(self) -> float | None:
        return self.failed_a / self.cases if self.cases else None

    @property
    def rate_b(self) -> float | None:
        return self.failed_b / self.cases if self.cases else None

    @property
    def diff(self) -> float | None:
        """Failure rate of B minus failure rate of A."""
        return (self.failed_b - self.failed_a) / self.cases if self.cases else None

    @property
    def p_effective(self) -> float:
        """The p-value a decision uses: Holm-adjusted for a group, as is for overall."""
        return self.p_holm if self.p_holm is not None else self.p_value

    def significant(self, alpha: float) -> bool:
        return self.p_effective < alpha

    def regressed(self, alpha: float) -> bool:
        """B fails significantly more of these cases than A."""
        return self.pass_to_fail > self.fail_to_pass and self.significant(alpha)

    def improved(self, alpha: float) -> bool:
        """B fails significantly fewer of these cases than A."""
        return self.fail_to_pass > self.pass_to_fail and self.significant(alpha)

    def to_dict(self) -> dict[str, Any]:
        return {"group": self.group, "cases": self.cases, "failed_a": self.failed_a, "failed_b": self.failed_b,
                "failure_rate_a": self.rate_a, "failure_rate_b": self.rate_b, "pass_to_fail": self.pass_to_fail,
                "fail_to_pass": self.fail_to_pass, "p_value": self.p_value, "p_holm": self.p_holm,
                "ci_low": self.ci_low, "ci_high": self.ci_high}


@dataclass(frozen=True)
class Flip:
    """A case whose verdict differs between the runs."""

    id: str
    group: str
    direction: str  # PASS_TO_FAIL or FAIL_TO_PASS
    text: str
    prediction_a: str
    prediction_b: str

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "group": self.group, "direction": self.direction, "text": self.text,
                "prediction_a": self.prediction_a, "prediction_b": self.prediction_b}


@dataclass
class PairedComparison:
    """Runs A and B compared on the cases both ran."""

    a: dict[str, Any]
    b: dict[str, Any]
    groups: list[GroupComparison]
    overall: GroupComparison
    flips: list[Flip]
    only_a: int = 0
    only_b: int = 0
    resamples: int = 0
    seed: int = 0
    mismatch: str | None = None

    def regressions(self, alpha: float) -> list[GroupComparison]:
        """Overall (unadjusted) and the groups (Holm-adjusted) where B fails significantly more."""
        return [g for g in [self.overall, *self.groups] if g.regressed(alpha)]

    def to_dict(self, *, flips: int | None = None, alpha: float | None = None) -> dict[str, Any]:
        """The JSON form; ``flips``: at most this many flips of each direction (None: all)."""
        out: dict[str, Any] = {
            "a": self.a, "b": self.b,
            "matched": self.overall.cases, "only_a": self.only_a, "only_b": self.only_b,
            "bootstrap": {"resamples": self.resamples, "seed": self.seed, "level": 0.95},
            "correction": "holm across groups; overall unadjusted",
            "groups": [g.to_dict() for g in self.groups],
            "overall": self.overall.to_dict(),
            "flips": [f.to_dict() for f in limit_flips(self.flips, flips)],
        }
        if self.mismatch:
            out["forced"] = self.mismatch
        if alpha is not None:
            out["alpha"] = alpha
            out["regressions"] = [g.group for g in self.regressions(alpha)]
        return out


def limit_flips(flips: Sequence[Flip], n: int | None) -> list[Flip]:
    """The first ``n`` flips of each direction (all when ``n`` is None)."""
    if n is None:
        return list(flips)
    out = [f for f in flips if f.direction == PASS_TO_FAIL][:max(0, n)]
    return out + [f for f in flips if f.direction == FAIL_TO_PASS][:max(0, n)]


def group_order(a: Sequence[CaseOutcome], b: Sequence[CaseOutcome]) -> list[str]:
    """Groups in the order the suite runs them: first occurrence in A's results, then B's."""
    return list(dict.fromkeys([c.group for c in a] + [c.group for c in b]))


def compare_groups(pairs: Sequence[tuple[str, bool, bool]], order: Sequence[str], *, resamples: int,
                   seed: int) -> tuple[list[GroupComparison], GroupComparison]:
    """Per group and overall, from ``(group, passed_a, passed_b)`` per matched case."""
    counts: dict[str, list[int]] = {g: [0, 0, 0, 0, 0] for g in order}
    for group, pa, pb in pairs:
        c = counts.setdefault(group, [0, 0, 0, 0, 0])
        c[0] += 1
        c[1] += int(not pa)
        c[2] += int(not pb)
        c[3] += int(pa and not pb)
        c[4] += int(pb and not pa)

    def one(name: str, c: Sequence[int]) -> GroupComparison:
        ci = bootstrap_interval(c[0], c[3], c[4], resamples=resamples, seed=group_seed(seed, name))
        return GroupComparison(name, c[0], c[1], c[2], c[3], c[4], mcnemar_exact(c[3], c[4]),
                               ci[0] if ci else None, ci[1] if ci else None)

    groups = [one(g, c) for g, c in counts.items() if c[0] > 0]
    adjusted = holm([g.p_value for g in groups])
    groups = [replace(g, p_holm=p) for g, p in zip(groups, adjusted, strict=True)]
    total = [sum(c[i] for c in counts.values()) for i in range(5)]
    return groups, one(OVERALL, total)


def compare_runs(a: Run, b: Run, *, resamples: int = 10_000, seed: int = 0, force: bool = False) -> PairedComparison:
    """Compare two runs on the cases both ran (matched by id; the group is A's). Raises
    :class:`InputError` when the runs are of different suites (unless ``force``) or share no case."""
    mismatch = suite_mismatch(a, b)
    if mismatch and not force:
        raise InputError(f"{mismatch}; --force compares the cases they share by id")
    by_id = {c.id: c for c in b.cases}
    matched = [(ca, by_id[ca.id]) for ca in a.cases if ca.id in by_id]
    if not matched:
        raise InputError(f"runs {a.path} and {b.path} share no case id")
    order = group_order(a.cases, b.cases)
    groups, overall = compare_groups([(ca.group, ca.passed, cb.passed) for ca, cb in matched], order,
                                     resamples=resamples, seed=seed)
    rank = {g: i for i, g in enumerate(order)}
    flips = [_flip(ca, cb) for ca, cb in matched if ca.passed != cb.passed]
    flips.sort(key=lambda f: (f.direction != PASS_TO_FAIL, rank.get(f.group, len(rank))))  # stable: case order
    ids_a = {c.id for c in a.cases}
    return PairedComparison(a.identity(), b.identity(), groups, overall, flips,
                            only_a=len(a.cases) - len(matched), only_b=sum(1 for c in b.cases if c.id not in ids_a),
                            resamples=resamples, seed=seed, mismatch=mismatch)


def _flip(ca: CaseOutcome, cb: CaseOutcome) -> Flip:
    direction = PASS_TO_FAIL if ca.passed else FAIL_TO_PASS
    return Flip(ca.id, ca.group, direction, case_text(ca.inputs), short_prediction(ca.prediction, ca.inputs),
                short_prediction(cb.prediction, cb.inputs))


# ---------------------------------------------------------------------------------------------------
# readable forms of inputs and predictions


def _clip(text: str, n: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= n else text[: max(0, n - 1)].rstrip() + "…"


def input_text(value: Any, limit: int = 160) -> str:
    """One system input as text: a classification text; NER tokens joined; a coref document's first
    sentence(s); a contrastive query's source and candidates."""
    if value is None:
        return "-"
    if isinstance(value, str):
        return _clip(value, limit)
    if isinstance(value, list) and all(isinstance(t, str) for t in value):
        return _clip(" ".join(value), limit)
    if isinstance(value, Mapping):
        if isinstance(value.get("sentences"), list):
            words: list[str] = []
            for sent in value["sentences"]:
                if not isinstance(sent, list):
                    continue
                words.extend(str(w) for w in sent)
                if len(" ".join(words)) >= limit:
                    break
            return _clip(" ".join(words), limit)
        if isinstance(value.get("source"), str) and isinstance(value.get("candidates"), list):
            cands = " | ".join(str(c) for c in value["candidates"])
            return _clip(f"{value['source']} ⇒ {cands}", limit)
    return _clip(json.dumps(value, ensure_ascii=False), limit)


def _sides(by_side: Mapping[str, Any]) -> list[tuple[str, Any]]:
    """Sides in reading order: ``source`` first, then the others as given."""
    items = list(by_side.items())
    return sorted(items, key=lambda kv: kv[0] != "source")


def case_text(inputs: Any, limit: int = 160) -> str:
    """A case's inputs by side as text: one side's text, or ``source → followup`` (each side shortened
    to its share of ``limit``)."""
    if not isinstance(inputs, Mapping):
        return input_text(inputs, limit)
    sides = [v for _, v in _sides(inputs) if v is not None]
    if not sides:
        return "-"
    if len(sides) == 1:
        return input_text(sides[0], limit)
    texts = [input_text(v, max(20, limit // len(sides))) for v in sides]
    return " → ".join(texts)


def _side_prediction(pred: Any, inputs: Any) -> str:
    if pred is None:
        return "-"
    if isinstance(pred, Mapping) and "label" in pred:
        probs = pred.get("probs")
        p = probs.get(pred["label"]) if isinstance(probs, Mapping) else None
        return f"{pred['label']} {p:.2f}" if isinstance(p, int | float) else str(pred["label"])
    if isinstance(pred, list):
        if not pred:
            return "none"
        if all(isinstance(x, int | float) and not isinstance(x, bool) for x in pred):  # contrastive scores
            best = max(range(len(pred)), key=lambda i: pred[i])
            return f"#{best + 1}/{len(pred)} ({pred[best]:.2f})"
        if all(isinstance(x, list) and len(x) == 3 and isinstance(x[2], str) for x in pred):  # NER spans
            tokens = inputs if isinstance(inputs, list) else None
            out = []
            for start, end, label in pred:
                words = " ".join(str(t) for t in tokens[start:end]) if tokens and isinstance(start, int) else None
                out.append(f"{label} {words!r}" if words else f"{label}[{start}:{end}]")
            return _clip(", ".join(out), 60)
        if all(isinstance(x, list) for x in pred):  # coref clusters
            mentions = sum(len(c) for c in pred)
            return f"{len(pred)} cluster{'s' * (len(pred) != 1)} ({mentions} mentions)"
    return _clip(json.dumps(pred, ensure_ascii=False), 40)


def short_prediction(prediction: Any, inputs: Any = None) -> str:
    """A case's predictions by side in short form (``label p``, entities, cluster counts, the best
    candidate); ``source → followup`` for the two sides of a metamorphic case, ``side: ...; ...`` for
    other sides."""
    if not isinstance(prediction, Mapping):
        return _side_prediction(prediction, inputs)
    ins = inputs if isinstance(inputs, Mapping) else {}
    parts = [(side, _side_prediction(p, ins.get(side))) for side, p in _sides(prediction)]
    if len(parts) == 1:
        return parts[0][1]
    if [side for side, _ in parts] == ["source", "followup"]:
        return " → ".join(text for _, text in parts)
    return "; ".join(f"{side}: {text}" for side, text in parts)


# ---------------------------------------------------------------------------------------------------
# output


def pct(v: float | None, digits: int = 1) -> str:
    return "-" if v is None or (isinstance(v, float) and math.isnan(v)) else f"{100 * v:.{digits}f}"


def pvalue(p: float | None) -> str:
    if p is None:
        return "-"
    return "<0.001" if p < 0.001 else f"{p:.3f}"


def p_phrase(p: float) -> str:
    """``p = 0.016`` or ``p < 0.001``."""
    return "p < 0.001" if p < 0.001 else f"p = {p:.3f}"


def describe_run(ident: Mapping[str, Any]) -> str:
    """``system on suite version (N cases) [path]``."""
    sample = f", limit {ident['limit']} seed {ident['seed']}" if ident.get("limit") else ""
    return (f"{ident.get('system_name')} on {ident.get('suite')} {ident.get('suite_version') or ''}".rstrip()
            + f" ({ident.get('cases'):,} cases{sample}) [{ident.get('path')}]")


def to_rich(comp: PairedComparison, *, alpha: float) -> Any:
    """The per-group table (fixed column widths; groups in suite order, overall last)."""
    from rich import box
    from rich.markup import escape
    from rich.table import Table

    table = Table(box=box.SIMPLE_HEAD, pad_edge=False, padding=(0, 1), show_edge=False, collapse_padding=True,
                  title_justify="left", caption_justify="left",
                  title="failure rates in %, groups in suite order; B−A in points",
                  caption=f"CI: 95% paired bootstrap · p: exact McNemar · p Holm: adjusted across groups · "
                          f"* p < {alpha:g}")
    cols = [("group", 10, "left"), ("cases", 6, "right"), ("fail A", 6, "right"), ("fail B", 6, "right"),
            ("p→f", 5, "right"), ("f→p", 5, "right"), ("B−A", 6, "right"), ("95% CI", 16, "right"),
            ("p", 6, "right"), ("p Holm", 7, "right")]
    for name, width, justify in cols:
        table.add_column(name, width=width, justify=justify, no_wrap=name != "group",  # type: ignore[arg-type]
                         overflow="fold")
    rows = [*comp.groups, comp.overall]
    for g in rows:
        ci = "-" if g.ci_low is None else f"[{100 * g.ci_low:+.1f}, {100 * (g.ci_high or 0):+.1f}]"
        star = "*" if g.significant(alpha) else ""
        diff = "-" if g.diff is None else f"{100 * g.diff:+.1f}"
        p_holm = "" if g.group == OVERALL else pvalue(g.p_holm) + star
        p = pvalue(g.p_value) + (star if g.group == OVERALL else "")
        style = "bold" if g.group == OVERALL else ("red" if g.regressed(alpha) else None)
        table.add_row(escape(g.group), f"{g.cases:,}", pct(g.rate_a), pct(g.rate_b), f"{g.pass_to_fail:,}",
                      f"{g.fail_to_pass:,}", diff, ci, p, p_holm, style=style, end_section=g is comp.groups[-1])
    return table


def flips_table(flips: Sequence[Flip], title: str) -> Any:
    """Flipped cases with their texts and both predictions (fixed widths; texts wrap at spaces)."""
    from rich import box
    from rich.markup import escape
    from rich.table import Table

    table = Table(box=box.SIMPLE_HEAD, pad_edge=False, padding=(0, 1), show_edge=False, collapse_padding=True,
                  title=title, title_justify="left")
    table.add_column("group", width=8, overflow="fold")
    table.add_column("case", width=16, overflow="fold")
    table.add_column("text", width=40, overflow="fold")
    table.add_column("A", width=13, overflow="fold")
    table.add_column("B", width=13, overflow="fold")
    for f in flips:
        table.add_row(escape(f.group), escape(f.id), escape(_clip(f.text, 120)), escape(f.prediction_a),
                      escape(f.prediction_b))
    return table


def render(comp: PairedComparison, console: Any, *, alpha: float, show_flips: int) -> None:
    """Print the comparison: the two runs, the table, the overall verdict and the flips."""
    o = comp.overall
    console.print(f"A: {describe_run(comp.a)}", highlight=False, markup=False)
    console.print(f"B: {describe_run(comp.b)}", highlight=False, markup=False)
    if comp.mismatch:
        console.print(f"warning: {comp.mismatch} (compared anyway: --force)", highlight=False,
                      markup=False, style="yellow")
    unmatched = "" if not (comp.only_a or comp.only_b) else (
        f" ({comp.only_a:,} only in A, {comp.only_b:,} only in B: left out)")
    console.print(f"{o.cases:,} cases in both runs{unmatched}", highlight=False, markup=False)
    console.print(to_rich(comp, alpha=alpha))
    ci = "" if o.ci_low is None else f" [{100 * o.ci_low:+.1f}, {100 * (o.ci_high or 0):+.1f}]"
    verdict = ("B fails significantly more cases than A" if o.regressed(alpha) else
               "B fails significantly fewer cases than A" if o.improved(alpha) else "no significant difference overall")
    diff = "-" if o.diff is None else f"{100 * o.diff:+.1f}"
    console.print(f"overall: failure rate {pct(o.rate_a)}% → {pct(o.rate_b)}%, B − A = {diff} points{ci} "
                  f"(95% paired bootstrap, {comp.resamples:,} resamples, seed {comp.seed}); {o.pass_to_fail:,} "
                  f"pass→fail, {o.fail_to_pass:,} fail→pass, exact McNemar {p_phrase(o.p_value)}: {verdict} "
                  f"(α = {alpha:g})", soft_wrap=False, highlight=False, markup=False)
    if show_flips <= 0:
        return
    for direction, label in ((PASS_TO_FAIL, "pass → fail (A passed, B fails)"),
                             (FAIL_TO_PASS, "fail → pass (A failed, B passes)")):
        these = [f for f in comp.flips if f.direction == direction]
        if not these:
            continue
        shown = these[:show_flips]
        console.print()
        console.print(flips_table(shown, f"{label}: {len(shown)} of {len(these):,}"))
