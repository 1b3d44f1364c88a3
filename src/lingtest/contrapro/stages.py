"""Stage bodies of the ContraPro attacks (issue 12); paths from ``cfg.paths.contrapro``, knobs from
``cfg.contrapro``.

* ``generate_stage``: the prepared ContraPro examples with the metadata joined on
  (:func:`lingtest.contrapro.metadata.join_metadata`) -> ``<examples>``; every attack variant
  (``executor=ray``: runs of examples on a pool of generator actors, :func:`attacks_on_ray`) ->
  ``<attacked>/<attack>/<variant>.jsonl`` and ``<attacked>/summary.json`` (attacked and skipped
  counts, skip reasons); every set (clean and attacked) in the ContraCAT release layout ->
  ``<suites>/<attack>/<variant>/{en,de}.txt`` (+ ``index.tsv``; the clean set in ``<suites>/clean``);
  the test suite ``<cases>`` (one ``contrastive`` test case per scored example: a seeded sample of
  ``contrapro.sample`` examples per set, all with ``null``, plus the clean originals of every sampled
  attacked example) and the review sample ``<review>``.
* ``score_stage``: one contrastive system on the suite through the suite runner ->
  ``<metrics>/<system>.json`` (accuracy per set with its breakdowns, Δ to clean on the same
  examples per set and per attack) and ``<results>/<system>.jsonl``.
* ``report_stage``: tables and plots over ``contrapro.systems`` in the layout of the paper's
  Figures 4.1/4.3 (accuracy on clean ContraPro and the three attacks, one bar per system; a
  fine-tuned AFA model is one more system).
"""

from __future__ import annotations

import functools
import json
import logging
import random
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from lingtest.config import to_plain
from lingtest.contrapro.attack import AttackOutcome, run_attack
from lingtest.contrapro.cases import TECHNIQUE, make_cases
from lingtest.contrapro.evaluate import accuracy_report, attack_delta, original_id
from lingtest.data.io import read_jsonl, write_json, write_jsonl
from lingtest.data.model import ContrastiveExample, TestCase
from lingtest.errors import LingtestError
from lingtest.paths import configured_paths, project_root, repo_path
from lingtest.progress import progress

log = logging.getLogger(__name__)

CLEAN = "clean"
EXAMPLE_KIND = "contrastive"
ATTACKS = ("phrase", "possessive", "synonym")


# --------------------------------------------------------------------------------------------
# configuration helpers
# --------------------------------------------------------------------------------------------
def contrapro_config(cfg: Any) -> dict[str, Any]:
    return dict(to_plain(cfg.contrapro))


def contrapro_paths(cfg: Any) -> dict[str, Path]:
    return configured_paths(cfg.paths.contrapro)



def set_name(attack: str, variant: str) -> str:
    return CLEAN if attack == CLEAN else f"{attack}/{variant}"


# --------------------------------------------------------------------------------------------
# loading
# --------------------------------------------------------------------------------------------
def with_metadata(
    grouped: Sequence[ContrastiveExample], records: Sequence[ContrastiveExample]
) -> tuple[list[ContrastiveExample], int]:
    """Every grouped example in order, those matched by a metadata record with its fields joined on;
    the number matched."""
    from lingtest.contrapro.metadata import join_metadata

    joined = join_metadata(grouped, records)
    by_id = {ex.id: ex for ex in joined.examples}
    if joined.unmatched:
        log.warning("%d metadata records match no grouped example", len(joined.unmatched))
    return [by_id.get(ex.id, ex) for ex in grouped], len(by_id)


def load_examples(cfg: Any, ccfg: Mapping[str, Any]) -> tuple[list[ContrastiveExample], int]:
    """The prepared grouped examples of ``contrapro.dataset`` with the ``contrapro.metadata`` JSON
    joined on (``null``: none)."""
    from lingtest.readers.options import configured

    dataset = str(ccfg["dataset"])
    folder = project_root() / str(cfg.paths.prepared) / dataset
    files = sorted(folder.glob("*.jsonl"))
    if not files:
        raise LingtestError(f"no prepared split under {folder}: run prepare@{dataset} first")
    grouped = [ex for f in files for ex in read_jsonl(f, ContrastiveExample.from_dict)]  # kind: dataset:format
    meta_path = ccfg.get("metadata")
    if not meta_path:
        return grouped, 0
    readers = to_plain(cfg.get("readers")) if cfg.get("readers") is not None else None
    records = list(configured("contrapro_json", readers)(repo_path(meta_path)))
    if any("ante distance" in ex.meta for ex in grouped):  # the official JSON was prepared: nothing to join
        return grouped, len(grouped)
    return with_metadata(grouped, records)


# --------------------------------------------------------------------------------------------
# attacks
# --------------------------------------------------------------------------------------------
def attack_functions(
    ccfg: Mapping[str, Any],
    *,
    tagger: Callable[[str], list[tuple[str, str]]] | None = None,
    lexicon: Any = None,
) -> list[tuple[str, str, Callable[[ContrastiveExample], Any]]]:
    """(attack, variant, example -> attacked example or Skip) for every configured variant, in
    config order. ``tagger``/``lexicon`` replace the configured spaCy tagger and German lexicon
    (tests); they are built only when an attack that needs them is configured."""
    from lingtest.contrapro import phrase, possessive, synonym

    out: list[tuple[str, str, Callable[[ContrastiveExample], Any]]] = []
    enabled = [str(a) for a in ccfg["attacks"]]
    unknown = sorted(set(enabled) - set(ATTACKS))
    if unknown:
        raise LingtestError(f"contrapro.attacks: unknown attack(s) {', '.join(unknown)}; known: {', '.join(ATTACKS)}")
    pcfg = ccfg["phrase"]
    variants = phrase.resolve_variants(list(pcfg["variants"]), pcfg.get("custom")) if "phrase" in enabled else []
    for v in variants:
        out.append((phrase.ATTACK, v.name, functools.partial(phrase.phrase_addition, variant=v)))
    scfg = ccfg["possessive"]
    possessors = (
        possessive.resolve_possessors(list(scfg["possessors"]), scfg.get("custom")) if "possessive" in enabled else []
    )
    if possessors:
        if tagger is None:
            tcfg = scfg["tagger"]
            if tcfg["parser"] != "spacy":
                raise LingtestError(
                    f"contrapro.possessive.tagger.parser: only spacy is supported, got {tcfg['parser']!r}"
                )
            tagger = possessive.spacy_tagger(str(tcfg["model"]))
        patterns = possessive.parse_patterns(list(scfg["pos_patterns"]))
        distances = [int(d) for d in scfg["distances"]]
        for p in possessors:
            out.append((
                possessive.ATTACK,
                p.name,
                functools.partial(possessive.possessive_extension, possessor=p, tagger=tagger, patterns=patterns,
                                  distances=distances),
            ))
    ycfg = ccfg["synonym"]
    if "synonym" in enabled:
        if lexicon is None:
            from lingtest.contrapro.lexicon import load_lexicon

            lx = ycfg["lexicon"]
            lexicon = load_lexicon(
                openthesaurus=lx.get("openthesaurus"), ding=lx.get("ding"), german_nouns=lx.get("german_nouns")
            )
        sources = list(ycfg["sources"])
        require = bool(ycfg["require_translation"])
        sdist = [int(d) for d in ycfg["distances"]]
        out.append((
            synonym.ATTACK,
            synonym.VARIANT,
            functools.partial(synonym.synonym_replacement, lexicon=lexicon, sources=sources,
                              require_translation=require, distances=sdist),
        ))
    return out


def run_attacks(
    examples: Sequence[ContrastiveExample],
    functions: Iterable[tuple[str, str, Callable[[ContrastiveExample], Any]]],
) -> list[AttackOutcome]:
    out = []
    for attack, variant, fn in functions:
        res = run_attack(progress(examples, f"{attack}/{variant}"), attack, variant, fn)
        log.info("%s/%s: %d attacked, %d skipped", attack, variant, len(res.examples), len(res.skipped))
        out.append(res)
    return out


def attack_worker(cfg: Any) -> Callable[[list[ContrastiveExample]], list[AttackOutcome]]:
    """Every configured attack variant, built once (spaCy tagger, German lexicon): a run of examples -> one
    outcome per variant. What each Ray generator actor runs (:mod:`lingtest.execution.ray_generate`;
    ``cfg`` as plain dicts); every example is attacked on its own, so any partition gives the local
    outcomes once merged (:func:`~lingtest.contrapro.attack.merge_outcomes`)."""
    from lingtest.execution.ray_generate import as_config

    functions = attack_functions(contrapro_config(as_config(cfg)))
    return lambda examples: [run_attack(examples, a, v, fn) for a, v, fn in functions]


def attacks_on_ray(cfg: Any, examples: Sequence[ContrastiveExample], options: dict[str, Any]) -> list[AttackOutcome]:
    """:func:`run_attacks` of the configured attacks on a pool of generator actors (``executor.generation``),
    the examples cut into one consecutive run per actor; the same outcomes, in the same order."""
    from lingtest.contrapro.attack import merge_outcomes
    from lingtest.execution.ray_generate import map_chunks, pool_actors, split_evenly

    runs = split_evenly(examples, pool_actors(options, "generation"))
    results, _ = map_chunks(attack_worker, cfg, runs, options=options, part="generation",
                            desc=f"ContraPro attacks on Ray ({len(examples)} examples)")
    out = merge_outcomes(results)
    for res in out:
        log.info("%s/%s: %d attacked, %d skipped", res.attack, res.variant, len(res.examples), len(res.skipped))
    return out


# --------------------------------------------------------------------------------------------
# the scored sample
# --------------------------------------------------------------------------------------------
def sample_ids(pool: Iterable[str], n: int | None, seed: int, key: str) -> list[str]:
    """``n`` ids of ``pool`` (all with ``None``), drawn with a generator seeded by ``seed`` and ``key``
    (so that sets with the same pool, e.g. the variants of one attack, get the same originals), in
    sorted order."""
    ids = sorted(set(pool))
    if n is None or n >= len(ids):
        return ids
    if n < 0:
        raise LingtestError(f"contrapro.sample must be >= 0 or null, got {n}")
    return sorted(random.Random(f"{seed}:{key}").sample(ids, n))


def select_for_scoring(
    clean: Sequence[ContrastiveExample], outcomes: Sequence[AttackOutcome], n: int | None, seed: int
) -> tuple[list[ContrastiveExample], dict[str, list[ContrastiveExample]]]:
    """The clean examples to score (a sample of ``n`` plus the originals of every sampled attacked
    example, in corpus order) and, per set, its sampled attacked examples (drawn among the originals
    the set applies to, one draw per attack)."""
    picked: dict[str, list[ContrastiveExample]] = {}
    needed: set[str] = set(sample_ids((ex.id for ex in clean), n, seed, CLEAN))
    for out in outcomes:
        changed = [ex for ex in out.examples if ex.meta.get("attack", {}).get("changed", True)]
        chosen = set(sample_ids((original_id(ex) for ex in changed), n, seed, out.attack))
        picked[set_name(out.attack, out.variant)] = [ex for ex in changed if original_id(ex) in chosen]
        needed |= chosen
    return [ex for ex in clean if ex.id in needed], picked


# --------------------------------------------------------------------------------------------
# stage: generate
# --------------------------------------------------------------------------------------------
def generate_stage(cfg: Any, tracker: Any) -> dict[str, Any]:
    from lingtest.contrapro.export import export_set, set_folder
    from lingtest.contrapro.review import write_review

    paths = contrapro_paths(cfg)
    ccfg = contrapro_config(cfg)
    seed = int(ccfg["seed"])
    clean, matched = load_examples(cfg, ccfg)
    write_jsonl(paths["examples"], clean, kind=EXAMPLE_KIND,
                meta={"dataset": ccfg["dataset"], "with_metadata": matched})
    from lingtest.execution import executor_options

    ex = executor_options(cfg)
    if ex["name"] == "ray":  # runs of examples on a pool of generator actors: the same attacked sets
        outcomes = attacks_on_ray(cfg, clean, ex)
    else:
        outcomes = run_attacks(clean, attack_functions(ccfg))
    sep = str(ccfg["export"]["separator"])
    export_set(paths["suites"] / CLEAN, clean, sep)
    summary: dict[str, Any] = {"examples": len(clean), "with_metadata": matched, "sets": {}}
    for out in outcomes:
        name = set_name(out.attack, out.variant)
        write_jsonl(paths["attacked"] / out.attack / f"{out.variant}.jsonl", out.examples, kind=EXAMPLE_KIND,
                    meta={"attack": out.attack, "variant": out.variant})
        export_set(set_folder(paths["suites"], out.attack, out.variant), out.examples, sep)
        summary["sets"][name] = out.summary()
    write_json(paths["attacked"] / "summary.json", summary)

    sample = ccfg["sample"]
    scored_clean, picked = select_for_scoring(clean, outcomes, None if sample is None else int(sample), seed)
    cases = make_cases(scored_clean) + [c for exs in picked.values() for c in make_cases(exs)]
    write_jsonl(paths["cases"], cases, kind="testcase",
                meta={"technique": TECHNIQUE, "sample": sample, "seed": seed})

    rcfg = ccfg["review"]
    pool = [ex for out in outcomes if out.attack in rcfg["attacks"] for ex in out.examples
            if ex.meta.get("attack", {}).get("changed", True)]
    originals = {ex.id: ex for ex in clean}
    reviewed = write_review(paths["review"], pool, originals, n=int(rcfg["n"]), seed=int(rcfg["seed"]))
    summary.update({"cases": len(cases), "review": reviewed})
    tracker.log_metrics({"examples": float(len(clean)), "with_metadata": float(matched),
                         "cases": float(len(cases)), "review": float(reviewed),
                         **{f"attacked.{k}": float(v["attacked"]) for k, v in summary["sets"].items()}})
    tracker.log_artifact(str(paths["attacked"] / "summary.json"))
    return summary


# --------------------------------------------------------------------------------------------
# stage: score
# --------------------------------------------------------------------------------------------
def load_cases(path: Path) -> list[TestCase]:
    if not path.exists():
        raise LingtestError(f"{path} not found: run contrapro_generate first")
    return list(read_jsonl(path, TestCase.from_dict, kind="testcase"))


def case_example(case: TestCase) -> ContrastiveExample:
    """The example a case scores, with the metadata the breakdowns read (from ``case.meta``) and its
    original's id."""
    ex = ContrastiveExample.from_dict(case.source)
    m = case.meta
    meta: dict[str, Any] = {"ref_pronoun": m.get("ref_pronoun")}
    if "ante_distance" in m:
        meta["ante distance"] = m["ante_distance"]
    if "intrasegmental" in m:
        meta["intrasegmental"] = m["intrasegmental"]
    if case.provenance.transformation != CLEAN:
        meta["attack"] = {"original_id": case.provenance.seed_id}
    return ContrastiveExample(ex.id, ex.src, ex.ref, ex.contrastive, ex.src_context, ex.ref_context, meta)


def grade(cases: Sequence[TestCase], scores: Sequence[Sequence[float]]) -> dict[str, Any]:
    """Accuracy per set (with breakdowns), Δ to clean per set and per attack (all its variants
    pooled), from the cases and one score list per case."""
    by_set: dict[str, tuple[list[ContrastiveExample], list[Sequence[float]]]] = {}
    for case, s in zip(cases, scores, strict=True):
        exs, ss = by_set.setdefault(case.provenance.transformation, ([], []))
        exs.append(case_example(case))
        ss.append(s)
    if CLEAN not in by_set:
        raise LingtestError("the suite has no clean cases")
    clean_ex, clean_s = by_set[CLEAN]
    sets = {name: accuracy_report(exs, ss) for name, (exs, ss) in by_set.items()}
    deltas = {name: attack_delta(clean_ex, clean_s, exs, ss) for name, (exs, ss) in by_set.items() if name != CLEAN}
    attacks: dict[str, Any] = {}
    for attack in dict.fromkeys(n.split("/", 1)[0] for n in deltas):
        exs = [e for n, (es, _) in by_set.items() if n.startswith(attack + "/") for e in es]
        ss = [s for n, (_, sc) in by_set.items() if n.startswith(attack + "/") for s in sc]
        attacks[attack] = attack_delta(clean_ex, clean_s, exs, ss)
    return {"sets": sets, "deltas": deltas, "attacks": attacks}


def score_stage(cfg: Any, tracker: Any, item: str) -> dict[str, Any]:
    from lingtest.suite.run import score_system
    from lingtest.systems.contrastive import TASK
    from lingtest.systems.factory import build_system

    paths = contrapro_paths(cfg)
    cases = load_cases(paths["cases"])

    def flatten(result: Mapping[str, Any]) -> dict[str, float]:
        flat = {f"accuracy.{k}": v["overall"]["accuracy"] for k, v in result["sets"].items()
                if v["overall"]["accuracy"] is not None}
        flat.update({f"delta.{k}": v["delta"] for k, v in result["deltas"].items() if v["delta"] is not None})
        return flat

    return score_system(build_system(cfg, TASK, item), item, cases, technique=TECHNIQUE,
                        grade=lambda outputs: grade(cases, outputs), flatten=flatten,
                        metrics_path=paths["metrics"] / f"{item}.json",
                        results_path=paths["results"] / f"{item}.jsonl", tracker=tracker)


# --------------------------------------------------------------------------------------------
# stage: report
# --------------------------------------------------------------------------------------------
def report_stage(cfg: Any, tracker: Any) -> str:
    from lingtest.contrapro.report import attack_table, breakdown_table, plot_attacks
    from lingtest.data.io import atomic_open

    paths = contrapro_paths(cfg)
    ccfg = contrapro_config(cfg)
    results: dict[str, Any] = {}
    for name in ccfg["systems"]:
        p = paths["metrics"] / f"{name}.json"
        if not p.exists():
            raise LingtestError(f"{p} not found: run contrapro_score@{name} first (dvc repro)")
        results[name] = json.loads(p.read_text(encoding="utf-8"))
    parts = ["# ContraPro attacks\n"]
    for name, res in results.items():
        parts.append(f"\n## {name}\n\nclean accuracy and breakdowns:\n\n")
        parts.append(breakdown_table(res["sets"][CLEAN]))
        parts.append("\nper attack (all variants pooled), then per variant; Δ on the same examples:\n\n")
        parts.append(attack_table(res["attacks"]))
        parts.append("\n" + attack_table(res["deltas"]))
    text = "".join(parts)
    with atomic_open(paths["report"] / "report.md") as fh:
        fh.write(text)
    plot_attacks(results, paths["report"] / "attacks.png", paths["report"] / "variants.png")
    for f in ("report.md", "attacks.png", "variants.png"):
        tracker.log_artifact(str(paths["report"] / f))
    return text


# --------------------------------------------------------------------------------------------
# stage: afa (antecedent-free augmentation sets) and finetune (hub profile)
# --------------------------------------------------------------------------------------------
def afa_stage(cfg: Any, tracker: Any) -> dict[str, Any]:
    """AFA candidates by the configured coreference system over ContraPro's own windows (see
    :mod:`lingtest.contrapro.afa`) -> ``<afa>/{augmented,baseline}/{en,de}.txt``,
    ``<afa>/selected.jsonl`` and ``<afa>/summary.json``."""
    from lingtest.contrapro import afa
    from lingtest.systems.coref import TASK as COREF
    from lingtest.systems.factory import build_system

    paths = contrapro_paths(cfg)
    ccfg = contrapro_config(cfg)
    acfg = ccfg["afa"]
    if not paths["examples"].exists():
        raise LingtestError(f"{paths['examples']} not found: run contrapro_generate first")
    examples = list(read_jsonl(paths["examples"], ContrastiveExample.from_dict, kind=EXAMPLE_KIND))
    scored = {c.provenance.seed_id for c in load_cases(paths["cases"])}
    pool = [ex for ex in examples if ex.id not in scored]
    cap = acfg["max_examples"]
    if cap is not None:
        keep = set(sample_ids((ex.id for ex in pool), int(cap), int(ccfg["seed"]), "afa"))
        pool = [ex for ex in pool if ex.id in keep]
    docs = [afa.window_document(ex) for ex in pool]
    system = build_system(cfg, COREF, str(acfg["coref_system"]))
    clusters = system.predict(docs)
    selected = afa.select(pool, docs, clusters, include_unclustered=bool(acfg["include_unclustered"]))
    sep = str(ccfg["export"]["separator"])
    n_aug = afa.write_pairs(paths["afa"] / "augmented", afa.training_pairs(selected, augmented=True, sep=sep))
    n_base = afa.write_pairs(paths["afa"] / "baseline", afa.training_pairs(selected, augmented=False, sep=sep))
    from lingtest.data.io import atomic_open

    with atomic_open(paths["afa"] / "selected.jsonl") as fh:
        for s in selected:
            fh.write(json.dumps(s.to_dict(), ensure_ascii=False) + "\n")
    dist: dict[str, int] = {}
    for s in selected:
        d = s.example.meta.get("ante distance")
        key = "unknown" if not isinstance(d, int) else (">3" if d > 3 else str(d))
        dist[key] = dist.get(key, 0) + 1
    summary = {"pool": len(pool), "excluded_scored": sum(ex.id in scored for ex in examples),
               "coref_system": acfg["coref_system"], "selected": len(selected),
               "selected_by_gold_distance": dict(sorted(dist.items())),
               "augmented_pairs": n_aug, "baseline_pairs": n_base, "source": "contrapro contexts (offline)"}
    write_json(paths["afa"] / "summary.json", summary)
    tracker.log_metrics({k: float(v) for k, v in summary.items() if isinstance(v, int)})
    return summary


def finetune_stage(cfg: Any, tracker: Any, item: str) -> dict[str, Any]:
    """Fine-tune ``contrapro.afa.finetune.model`` on the AFA set ``item`` (``augmented`` or
    ``baseline``) -> ``<models>/<item>/`` (model, tokenizer, training.json). Hub profile only."""
    from transformers import AutoModelForSeq2SeqLM, AutoTokenizer

    from lingtest.contrapro.afa import read_pairs
    from lingtest.contrapro.finetune import FinetuneOptions, finetune
    from lingtest.resources.device import pick_device

    paths = contrapro_paths(cfg)
    fcfg = contrapro_config(cfg)["afa"]["finetune"]
    if item not in ("augmented", "baseline"):
        raise LingtestError(f"contrapro_finetune: unknown AFA set {item!r} (augmented | baseline)")
    pairs = read_pairs(paths["afa"] / item)
    opts = FinetuneOptions(**{k: fcfg[k] for k in ("epochs", "learning_rate", "batch_size", "max_length",
                                                   "seed", "weight_decay", "warmup_steps")})
    model = AutoModelForSeq2SeqLM.from_pretrained(str(fcfg["model"]))
    tok = AutoTokenizer.from_pretrained(str(fcfg["model"]))
    device = pick_device(str(cfg.resources.device))
    info = finetune(model, tok, pairs, opts, device=device,
                    on_step=lambda step, loss: tracker.log_metrics({"loss": loss}, step=step))
    out = paths["models"] / item
    out.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(str(out))
    tok.save_pretrained(str(out))
    info.update({"model": str(fcfg["model"]), "set": item, "device": device})
    write_json(out / "training.json", info)
    return info
