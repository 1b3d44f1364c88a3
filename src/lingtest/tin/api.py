"""TIN for a user's own NER system and sentences, graded against gold with the user's label mapping.

* :func:`label_mapper` - how a system's labels map onto the gold scheme (``ner_label_maps.target``,
  CoNLL-2003's): a scheme of ``ner_label_maps.schemes``, a mapping, or a YAML/JSON file of one;
* :func:`generate` - TIN's test cases for the user's sentences, the follow-ups made from the system's
  own predictions N(s) exactly as the ``tin_generate`` stage makes them (the transformations, filters,
  embedder and language model configured under ``tin``; sources parsed by the configured parser);
* :func:`generate_for_sources` - the same for sources given as records (a release's fixed part: ids,
  tokens, gold), so that a user's run makes the follow-ups of their own system;
* :func:`grade` - the cases and the system's outputs per case (what :class:`~lingtest.harness.results.Results`
  holds) graded against the gold the cases carry: per case whether N(s) and N(s') are right and whether
  an issue is erroneous (the paper's precision, Eq. 6), and a summary (precision, hits, error categories,
  source F1) made by :func:`lingtest.tin.flow.summarize_checked`.

A system is anything :func:`lingtest.systems.spec.resolve_system` takes for the ``ner`` task (a function
``batch of token lists -> [[start, end, label], ...] per sentence``, a ``package.module:function``, an
http(s) URL, a predictions file, a configured name, a system object); it is batched and cached like
every system, and its outputs are checked (:mod:`lingtest.harness.outputs`) before anything is cached.

For example (``tagger`` a function NER system in OntoNotes labels)::

    from lingtest import load_suite
    from lingtest.data.io import write_jsonl
    from lingtest.tin import generate, grade

    def tagger(batch):  # token lists in, [[start, end, label], ...] per sentence out
        names = {"John": "PERSON", "Mary": "PERSON", "Rome": "GPE"}
        return [[[i, i + 1, names[w]] for i, w in enumerate(toks) if w in names] for toks in batch]

    cases = generate(["John met Mary in Rome ."], tagger, gold=[[[0, 1, "PER"], [2, 3, "PER"], [4, 5, "LOC"]]])
    write_jsonl("tin.jsonl", cases, kind="testcase", meta={"technique": "tin"})
    results = load_suite("tin.jsonl").run(tagger)
    grade(cases, results, "ontonotes")["summary"]["precision"]
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from lingtest.data.model import Entity, TestCase
from lingtest.errors import InputError
from lingtest.systems.ner import TASK
from lingtest.tin.grading import EntityMapper, labels_mapper
from lingtest.tin.mutant import MR1, MR2

__all__ = ["generate", "generate_for_sources", "grade", "label_mapper"]

#: the two sides of a case a TIN relation predicts
SIDES = ("source", "followup")


# ---- labels ---------------------------------------------------------------------------------------------
def label_mapper(labels: Any, cfg: Any = None) -> EntityMapper:
    """The grading map of a system's labels onto the gold scheme: ``labels`` is a scheme name of
    ``ner_label_maps.schemes`` (``"conll"``, ``"ontonotes"``), a mapping ``{system label: gold label or
    None}`` (``None``: not a gold-scheme entity, dropped), the path of a YAML/JSON file holding such a
    mapping, or an :class:`~lingtest.tin.grading.EntityMapper` (returned as it is). ``cfg``: the composed
    configuration or a list of Hydra overrides (``None``: none), for ``systems.ner_label_maps``. A label the
    system emits that the mapping lacks is an error when it is met. An unknown scheme, a missing or
    malformed file or a bad entry is an :class:`~lingtest.errors.InputError` naming the file and field."""
    if callable(getattr(labels, "map_entities", None)):
        return labels  # type: ignore[no-any-return]
    return labels_mapper(labels, _configuration(cfg).systems.ner_label_maps)


# ---- generation -----------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class SourceRecord:
    """A source sentence to test: its id, words and gold entities (gold-scheme labels; ``None``: none)."""

    id: str
    tokens: list[str]
    gold: list[Entity] | None


def generate(sentences: Sequence[str] | Sequence[Sequence[str]], system: Any, *, config: Any = None,
             gold: Sequence[Sequence[Sequence[Any]] | None] | None = None, ids: Sequence[str] | None = None,
             seed: int | None = None, progress: bool | None = None) -> list[TestCase]:
    """TIN's test cases for ``sentences`` and ``system``, as the ``tin_generate`` stage makes them.

    ``sentences``: strings (split on whitespace, as TIN reads a file of unlabelled sentences) or token
    lists; ``system``: anything :func:`~lingtest.systems.spec.resolve_system` takes for NER (its own
    predictions choose what the transformations change); ``config``: the composed configuration or a list
    of Hydra overrides (``None``: none): the ``tin`` section (transformations, filters, embedder,
    ``batch_sources``), the parser, ``resources`` (the language model) and ``systems``; ``gold``: per
    sentence its gold entities as ``[[start, end, label], ...]`` token spans (labels of
    ``ner_label_maps.target``; ``None`` for a sentence without), recorded in the cases' ``meta.gold`` and
    ``meta.followup_gold``; ``ids``: per sentence its id (default: derived from its words); ``seed``:
    instead of ``tin.seed`` (and of every transformation's ``seed``, which the configuration ties to it);
    ``progress``: a progress bar while the system predicts (default: when stderr is a terminal).

    The cases are in source order, then transformation order; each is a
    :class:`~lingtest.data.model.TestCase` like those of ``data/suites/tin/*.jsonl`` (``meta.system``: the
    system's name). The length limits of ``tin.min_tokens``/``max_tokens`` (the pipeline's sampling) are
    not applied: every sentence given is a source."""
    from lingtest.systems.ner.labels import LabelMaps

    cfg = _seeded(_configuration(config), seed)
    target = LabelMaps.from_config(cfg.systems.ner_label_maps).target
    return _generate(read_sentences(sentences, gold, ids, target), system, cfg, progress=progress)


def generate_for_sources(sources: list[dict[str, Any]], system: Any, cfg: Any, *, seed: int) -> list[TestCase]:
    """:func:`generate` for sources given as records ``{"id": str, "tokens": [str, ...], "gold":
    [[start, end, label], ...] or None}`` (a release's source sentences and gold): the follow-ups of
    ``system``'s predictions. ``cfg``: the composed configuration (or Hydra overrides); ``seed``: the
    generation seed (``tin.seed`` and the transformations' seeds)."""
    from lingtest.systems.ner.labels import LabelMaps

    composed = _seeded(_configuration(cfg), seed)
    target = LabelMaps.from_config(composed.systems.ner_label_maps).target
    return _generate(read_source_records(sources, target), system, composed, progress=None)


def _configuration(config: Any) -> Any:
    from lingtest.harness.running import configuration

    return configuration(config)


def _seeded(cfg: Any, seed: int | None) -> Any:
    """``cfg`` with ``tin.seed`` and every transformation's ``seed`` set to ``seed`` (a copy; ``cfg`` itself
    when ``seed`` is ``None``)."""
    if seed is None:
        return cfg
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise InputError(f"seed must be an integer, got {seed!r}", field="seed")
    from omegaconf import open_dict

    out = copy.deepcopy(cfg)
    with open_dict(out):
        out.tin.seed = seed
        for entry in out.tin.transformations.values():
            if "seed" in entry:
                entry.seed = seed
    return out


def read_sentences(sentences: Any, gold: Any, ids: Any, target: Sequence[str]) -> list[SourceRecord]:
    """The sources of :func:`generate`'s arguments (errors name ``sentences[i]``, ``gold[i]``, ``ids[i]``)."""
    if isinstance(sentences, str) or not isinstance(sentences, Sequence):
        raise InputError("sentences must be a list of strings or of token lists", field="sentences")
    n = len(sentences)
    for name, value in (("gold", gold), ("ids", ids)):
        if value is not None and (isinstance(value, str) or not isinstance(value, Sequence) or len(value) != n):
            raise InputError(f"{name} must be a list with one entry per sentence ({n})", field=name)
    words = [_words(s, f"sentences[{i}]") for i, s in enumerate(sentences)]
    golds = [None if gold is None or gold[i] is None else read_gold(gold[i], len(w), target, f"gold[{i}]")
             for i, w in enumerate(words)]
    if ids is None:
        names = [f"s{_content_id(w)}" for w in words]
        where = "sentences"
    else:
        names = [_id(v, f"ids[{i}]") for i, v in enumerate(ids)]
        where = "ids"
    _unique(names, where)
    return [SourceRecord(i, w, g) for i, w, g in zip(names, words, golds, strict=True)]


def read_source_records(sources: Any, target: Sequence[str]) -> list[SourceRecord]:
    """The sources of :func:`generate_for_sources` (errors name ``sources[i].<key>``)."""
    if isinstance(sources, str) or not isinstance(sources, Sequence):
        raise InputError("sources must be a list of {id, tokens, gold} records", field="sources")
    out = []
    for i, rec in enumerate(sources):
        where = f"sources[{i}]"
        if not isinstance(rec, Mapping):
            raise InputError(f"a source is a record {{id, tokens, gold}}, got {type(rec).__name__}", field=where)
        for key in ("id", "tokens"):
            if key not in rec:
                raise InputError(f"a source has no {key!r}", field=f"{where}.{key}")
        words = rec["tokens"]
        if isinstance(words, str):
            raise InputError("tokens must be a list of words", field=f"{where}.tokens")
        words = _words(words, f"{where}.tokens")
        g = rec.get("gold")
        out.append(SourceRecord(_id(rec["id"], f"{where}.id"), words,
                                None if g is None else read_gold(g, len(words), target, f"{where}.gold")))
    _unique([s.id for s in out], "sources")
    return out


def _words(sentence: Any, where: str) -> list[str]:
    if isinstance(sentence, str):
        words = sentence.split()
    elif isinstance(sentence, Sequence) and all(isinstance(w, str) for w in sentence):
        words = list(sentence)
    else:
        raise InputError("a sentence is a string or a list of token strings", field=where)
    if not words:
        raise InputError("an empty sentence", field=where)
    for j, w in enumerate(words):
        if not w or w != w.strip() or any(ch.isspace() for ch in w):
            raise InputError(f"token {w!r} is empty or holds whitespace (TIN matches entity texts as words "
                             f"joined by spaces)", field=f"{where}[{j}]")
    return words


def _id(value: Any, where: str) -> str:
    if not isinstance(value, str) or not value:
        raise InputError(f"an id is a non-empty string, got {value!r}", field=where)
    return value


def _content_id(words: Sequence[str]) -> str:
    from lingtest.data.model import stable_id

    return stable_id("tin-source", list(words))


def _unique(names: Sequence[str], where: str) -> None:
    seen: dict[str, int] = {}
    for k, name in enumerate(names):
        if name in seen:
            what = "the same sentence (pass ids)" if where == "sentences" else f"the same id {name!r}"
            raise InputError(f"entries {seen[name]} and {k} have {what}", field=f"{where}[{k}]")
        seen[name] = k


def read_gold(value: Any, n_tokens: int, target: Sequence[str], where: str) -> list[Entity]:
    """Gold entities ``[[start, end, label], ...]`` of a sentence of ``n_tokens`` words: inside it, not
    overlapping, labels of ``target`` (errors name ``where[j]``)."""
    if isinstance(value, str) or not isinstance(value, Sequence):
        raise InputError("gold is a list of [start, end, label] entities", field=where)
    out = []
    for j, e in enumerate(value):
        if isinstance(e, Entity):
            e = e.to_list()
        ok = (isinstance(e, Sequence) and not isinstance(e, str) and len(e) == 3
              and all(isinstance(v, int) and not isinstance(v, bool) for v in e[:2]) and isinstance(e[2], str))
        if not ok:
            raise InputError(f"expected [start, end, label], got {e!r}", field=f"{where}[{j}]")
        start, end, label = int(e[0]), int(e[1]), str(e[2])
        if not 0 <= start < end <= n_tokens:
            raise InputError(f"span [{start}, {end}) is not inside the sentence's {n_tokens} tokens",
                             field=f"{where}[{j}]")
        if label not in target:
            raise InputError(f"label {label!r} is not a gold label ({', '.join(target)})", field=f"{where}[{j}]")
        out.append(Entity(start, end, label))
    taken = sorted(out, key=lambda x: (x.start, x.end))
    for a, b in zip(taken, taken[1:], strict=False):
        if b.start < a.end:
            raise InputError(f"gold entities {a.to_list()} and {b.to_list()} overlap", field=where)
    return sorted(out)


class _LazyEmbedder:
    """The span embedder of ``parts``, built on its first use (only the semantic filter uses it)."""

    def __init__(self, parts: Any) -> None:
        self.parts = parts

    def embed_spans(self, requests: Any) -> Any:
        return self.parts.embedder.embed_spans(requests)


def _cached_system(system: Any, cfg: Any, bar: Any) -> Any:
    """The cached NER system ``system`` names, a copy of it when it is one already (its runner is checked)."""
    from lingtest.systems.cache import CachedSystem
    from lingtest.systems.spec import resolve_system

    if isinstance(system, CachedSystem):
        resolve_system(system, TASK, cfg)  # checks the task
        cached = copy.copy(system)
        cached.progress = bar
        return cached
    return resolve_system(system, TASK, cfg, progress=bar).system


def _generate(sources: list[SourceRecord], system: Any, cfg: Any, *, progress: bool | None) -> list[TestCase]:
    """N(s) of every source (outputs checked), the sources parsed, then the configured transformations and
    filters in waves of ``tin.batch_sources`` (:func:`lingtest.tin.flow.generate_cases`)."""
    from lingtest.data.model import Document, Sentence, Token
    from lingtest.execution.context import StageContext
    from lingtest.execution.ray_generate import chunked
    from lingtest.harness.outputs import CheckedRunner, CheckedSystem, OutputCheck
    from lingtest.harness.running import Bar
    from lingtest.paths import project_root
    from lingtest.resources.scores import ScoreGrid
    from lingtest.systems.tasks import get_task
    from lingtest.tin.components import Parts, filter_config
    from lingtest.tin.config import TinConfig
    from lingtest.tin.flow import generate_cases, merge_generated
    from lingtest.tin.mutant import TinSource
    from lingtest.tin.sources import parse_sources

    config = TinConfig.from_config(cfg)
    task = get_task(TASK)
    with Bar("TIN: predicting", progress) as bar:
        cached = _cached_system(system, cfg, bar)
        name = str(cached.name)
        # a config error before anything runs
        filters = filter_config(config, name, ScoreGrid.from_config(cfg.resources))
        if not sources:
            return []
        owners: dict[str, list[tuple[str, str]]] = {}
        for s in sources:
            owners.setdefault(task.key(s.tokens), []).append((s.id, "source"))
        check = OutputCheck(task, owners)
        cached.runner = CheckedRunner(cached.runner, check, name)
        preds = CheckedSystem(cached, check, before=bar.set_total).predict([list(s.tokens) for s in sources])
    parts = Parts(StageContext("tin_generate", cfg, item=name, root=project_root()), config)
    docs = parse_sources([Document(s.id, [Sentence([Token(w) for w in s.tokens])]) for s in sources], parts.parser)
    tin = [TinSource.from_sentence(s.id, d.sentences[0], list(p), gold=s.gold)
           for s, d, p in zip(sources, docs, preds, strict=True)]
    transformations = parts.transformations()
    embedder = _LazyEmbedder(parts)
    waves = [generate_cases(wave, transformations, embedder=embedder, lm=parts.lm, config=filters, system=name,
                            packed=config.filters.packed)
             for wave in chunked(tin, config.batch_sources)]
    return merge_generated(waves).cases


# ---- grading --------------------------------------------------------------------------------------------
def grade(cases: Sequence[TestCase], outputs: Any, labels: Any, cfg: Any = None) -> dict[str, Any]:
    """Grade a system's outputs on TIN ``cases`` against the gold the cases carry (``meta.gold``,
    ``meta.followup_gold``).

    ``outputs``: the system's predictions per case: a :class:`~lingtest.harness.results.Results`, a list
    of its :class:`~lingtest.suite.run.CaseResult`\\ s or ``results.jsonl`` records (matched by id), a
    mapping case id -> output, or a list aligned with ``cases``; an output is a case result, a record, or
    the prediction itself ``{"source": [[start, end, label], ...], "followup": [...]}`` (entities or
    their JSON form). Cases without an output are not graded. ``labels``: the system's labels
    (:func:`label_mapper`); ``cfg``: the composed configuration or Hydra overrides (``None``: none).

    Each case's relation is checked again on its outputs (an issue is a case that fails it). Returns
    ``per_case``: case id -> ``source_correct`` and ``followup_correct`` (N(s), N(s') mapped to the gold
    scheme equal gold; ``None`` without gold), ``issue``, and ``erroneous`` (for an issue: N(s) or N(s')
    is wrong, the paper's Eq. 6; ``None`` for a passed case or without gold); and ``summary``: ``cases``,
    ``checked``, ``sources``, ``labelled``, ``issues`` (per transformation and ``overall``, as the
    ``tin_evaluate`` stage's metrics: issues, erroneous, precision, source-wrong issues, hits, error
    categories, cases checked) and, with gold on every source, ``wrong_sources``, ``source_f1`` and the
    overall ``precision``, ``hits``, ``hit_rate`` and ``error_categories``. The sources are those of the
    graded cases (a source whose mutants were all filtered out is not among them)."""
    from lingtest.suite.expectations import parse_expectation
    from lingtest.suite.run import CaseResult
    from lingtest.systems.tasks import get_task
    from lingtest.tin.flow import source_f1, source_wrong_map, summarize_checked
    from lingtest.tin.grading import grade_issue, prediction_correct
    from lingtest.tin.issues import issues_from_run
    from lingtest.tin.mutant import TinSource
    from lingtest.tin.suite import TECHNIQUE, case_gold

    lmap = label_mapper(labels, cfg)
    cases = list(cases)
    for c in cases:
        if c.technique != TECHNIQUE:
            raise InputError(f"not a TIN case (technique {c.technique!r})", field=f"{c.id}.technique")
    preds = outputs_by_case(cases, outputs)
    task = get_task(TASK)
    checked = [c for c in cases if c.id in preds]
    results = []
    for c in checked:
        exp = parse_expectation(c.expected, where=f"{c.id}.expected")
        verdict = exp.check(c, list(preds[c.id]), task, {})
        results.append(CaseResult(c.id, "", exp.name, bool(verdict.passed), {}, verdict.details))
    outs = [list(preds[c.id]) for c in checked]
    issues = issues_from_run(checked, results, outs)
    sources: dict[str, TinSource] = {}
    for c in checked:
        if c.provenance.seed_id not in sources:
            sources[c.provenance.seed_id] = TinSource(c.provenance.seed_id, list(c.source["tokens"]),
                                                      sorted(preds[c.id][0]), gold=case_gold(c)[0])
    src_list = list(sources.values())
    issue_summary, _ = summarize_checked(checked, issues, src_list, lmap)
    per_case: dict[str, dict[str, bool | None]] = {}
    for c, res in zip(checked, results, strict=True):
        gold, fu_gold = case_gold(c)
        src, fu = preds[c.id]
        src_ok = None if gold is None else prediction_correct(lmap.map_entities(src), gold)
        fu_ok = None if fu_gold is None else prediction_correct(lmap.map_entities(fu), fu_gold)
        erroneous = None
        if not res.passed and gold is not None:
            erroneous = grade_issue(src, fu, gold, fu_gold, lmap).erroneous
        per_case[c.id] = {"source_correct": src_ok, "followup_correct": fu_ok, "issue": not res.passed,
                          "erroneous": erroneous}
    labelled = bool(src_list) and all(s.gold is not None for s in src_list)
    summary: dict[str, Any] = {"cases": len(cases), "checked": len(checked), "sources": len(src_list),
                               "labelled": labelled, "issues": issue_summary}
    if labelled:
        overall = issue_summary["overall"]
        summary.update(wrong_sources=sum(source_wrong_map(src_list, lmap).values()),
                       source_f1=source_f1(src_list, lmap).to_dict(), precision=overall["precision"],
                       hits=overall["hits"], hit_rate=overall["hit_rate"],
                       validity=overall.get("validity"),
                       precision_validity_adjusted=overall.get("precision_validity_adjusted"),
                       error_categories=overall["error_categories"])
    return {"per_case": per_case, "summary": summary}


def outputs_by_case(cases: Sequence[TestCase], outputs: Any) -> dict[str, tuple[list[Entity], list[Entity]]]:
    """Case id -> (N(s), N(s')) of the cases ``outputs`` holds an output for (see :func:`grade`)."""
    by_id = {c.id: c for c in cases}
    items: dict[str, Any]
    if hasattr(outputs, "results") and hasattr(outputs, "cases"):  # a harness Results
        items = {r.case_id: r for r in outputs.results}
    elif isinstance(outputs, Mapping):
        items = dict(outputs)
    elif isinstance(outputs, Sequence) and not isinstance(outputs, str):
        keyed = [_item_id(o) for o in outputs]
        if outputs and all(k is not None for k in keyed):
            items = {}
            for k, o in zip(keyed, outputs, strict=True):
                if k in items:
                    raise InputError(f"two outputs for case {k}", field="outputs")
                items[str(k)] = o
        elif len(outputs) != len(cases):
            raise InputError(f"{len(outputs)} outputs for {len(cases)} cases (a list of outputs without case ids "
                             f"follows the cases)", field="outputs")
        else:
            items = {c.id: o for c, o in zip(cases, outputs, strict=True)}
    else:
        raise InputError(f"outputs must be Results, a mapping of case ids or a list, got {type(outputs).__name__}",
                         field="outputs")
    unknown = sorted(str(k) for k in items if k not in by_id)
    if unknown:
        raise InputError(f"outputs of cases that are not among the cases: {', '.join(unknown[:5])}"
                         f"{' ...' if len(unknown) > 5 else ''}", field="outputs")
    return {cid: _read_output(by_id[cid], item) for cid, item in items.items()}


def _item_id(item: Any) -> str | None:
    cid = getattr(item, "case_id", None)
    if cid is None and isinstance(item, Mapping):
        cid = item.get("case_id", item.get("id"))
    return None if cid is None else str(cid)


def _read_output(case: TestCase, item: Any) -> tuple[list[Entity], list[Entity]]:
    """(N(s), N(s')) of one case's output (a case result, a record or a prediction)."""
    from lingtest.systems.tasks import get_task

    where = f"outputs[{case.id}]"
    pred = item
    if hasattr(item, "predictions"):
        pred = item.predictions
    elif isinstance(item, Mapping) and "prediction" in item:
        pred = item["prediction"]
    elif isinstance(item, Mapping) and "predictions" in item:
        pred = item["predictions"]
    if isinstance(pred, Mapping):
        sides = [pred.get(side) for side in SIDES]
    elif isinstance(pred, Sequence) and not isinstance(pred, str) and len(pred) == 2:
        sides = list(pred)
    else:
        raise InputError("an output is {source: entities, followup: entities} (or a case result holding one)",
                         field=where)
    task = get_task(TASK)
    out = []
    for side, value, payload in zip(SIDES, sides, (case.source, case.followup or {}), strict=True):
        if value is None:
            raise InputError(f"no {side} prediction", field=f"{where}.{side}")
        if isinstance(value, Sequence) and all(isinstance(e, Entity) for e in value):
            ents = sorted(value)
        else:
            ents = task.decode_output(value, f"{where}.{side}")
        n = len(payload.get("tokens") or [])
        for j, e in enumerate(ents):
            if e.end > n:
                raise InputError(f"entity {e.to_list()} ends after the {side}'s {n} tokens",
                                 field=f"{where}.{side}[{j}]")
        out.append(ents)
    return out[0], out[1]


# ---- the generator a release of TIN's sources runs through ------------------------------------------------
class TinGenerator:
    """TIN as a registered generator (:mod:`lingtest.harness.generators`, entry point ``tin``): what
    ``lingtest run`` calls on a release of TIN's sources."""

    def generate(self, sources: Sequence[dict[str, Any]], system: Any, config: Any, *,
                 seed: int) -> list[TestCase]:
        return generate_for_sources(list(sources), system, config, seed=seed)

    def grade(self, cases: Sequence[TestCase], results: Sequence[Any], labels: Any,
              config: Any) -> dict[str, Any] | None:
        """The run graded against gold, or why not: without ``labels`` (the system's label scheme, a
        mapping or a file) a system's labels cannot be compared with gold."""
        from lingtest.harness.derive import expectation_name

        if not cases or not all(expectation_name(c.expected) in (MR1, MR2) and "alignment" in c.meta for c in cases):
            return None  # not TIN's mutants (no relation of TIN's, no token alignment): nothing to grade
        if labels is None:
            return {"graded": False, "reason": "the system declares no label scheme: give its labels "
                                               "(--labels conll, a mapping or a YAML/JSON file of one)"}
        graded = grade(cases, list(results), labels, config)
        return {"graded": True, "labels": labels if isinstance(labels, str) else "mapping",
                "summary": graded["summary"], "per_case": graded["per_case"]}


GENERATOR = TinGenerator()
