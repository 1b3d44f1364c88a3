"""S2LCT on your own sentences: the capability test cases of a configured suite (``s2lct.suites``) seeded
from the sentences you give instead of SST or HateXplain.

>>> import lingtest.s2lct as s2lct                                                    # doctest: +SKIP
>>> cases = s2lct.generate(["This is a terrible movie.", "What a wonderful film!"],
...                        labels=["negative", "positive"], seed=1)                  # doctest: +SKIP
>>> [c.source["text"] for c in cases if c.meta["capability"] == "LC4"]             # doctest: +SKIP
['This is not a terrible movie .']
>>> s2lct.generate_suite(sentences, labels=labels).run(my_model).summary()         # doctest: +SKIP

:func:`generate` runs what the ``s2lct_generate`` stage runs (:func:`lingtest.s2lct.stages.generate_stage`),
with the same components built from the same configuration (:mod:`lingtest.s2lct.components`): each
sentence is tokenised (spaCy's rule-based English tokenizer) and parsed by the configured parser
(``parser``: tags and a constituency tree), lower-cased when the suite's search says so
(``s2lct.suites.<suite>.search.lowercase``), and becomes a searchable sentence with its gold label; the
capability rules are searched (SentiWordNet, the configured lexicons and HateCheck's, as
:func:`~lingtest.s2lct.components.knowledge` gives them), their templates combined with the seeded caps of
``s2lct.seeds``, and the found sentences expanded (Algorithm 1: the reference grammar, the configured
fill proposer and its LM, the parser's tags) in the stage's chunks. The cases are the records of
``data/suites/s2lct/<suite>.jsonl``: seed cases, then expansion cases, each in capability order. A
sentence's id is ``input-<index>`` (its cases' ``provenance.seed_id``); a case's text is the sentence's
tokens joined by single spaces, as in the pipeline's suites; a sentence whose tokens repeat an earlier
one's is searched once.

:func:`suite` (``lingtest.s2lct.generate_suite``) wraps the cases as a :class:`~lingtest.harness.loading.Suite`
(the suite's whole label set in its header), ready for ``Suite.run``.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from lingtest.data.model import Document, Sentence, TestCase
from lingtest.errors import ConfigError, InputError, MissingResourceError
from lingtest.s2lct.config import S2lctConfig
from lingtest.s2lct.predicates import And, HasAttr, Knowledge, Not, Or, Predicate, PredicateError, parse_predicate
from lingtest.s2lct.seeds import Found, GenCase, unique_found
from lingtest.s2lct.spec import SuiteSpec

if TYPE_CHECKING:
    from lingtest.harness.loading import Suite

__all__ = ["TASKS", "generate", "suite", "suite_of_task"]

log = logging.getLogger(__name__)

#: task name -> the configured suite whose capability specs it uses (a suite's own name works too)
TASKS: dict[str, str] = {"sentiment": "sst", "hate_speech": "hatexplain"}
#: a user sentence's id (its index in the list given)
INPUT_ID = "input-{}"


# ---- checking the arguments ----------------------------------------------------------------------------
def suite_of_task(task: str, config: S2lctConfig) -> str:
    """The configured suite of ``task``: a name of :data:`TASKS` (``-`` and ``_`` alike, any case) or the
    name of a suite of ``s2lct.suites``."""
    if isinstance(task, str):
        if task in config.suites:
            return task
        key = task.strip().lower().replace("-", "_")
        if key in TASKS and TASKS[key] in config.suites:
            return TASKS[key]
    known = [t for t, s in TASKS.items() if s in config.suites] + list(config.suites)
    raise InputError(f"unknown task {task!r}; tasks and configured S2LCT suites: {', '.join(known)}", field="task")


def checked_sentences(sentences: Any) -> list[str]:
    """``sentences`` as a list of non-blank strings (an error names the first bad index)."""
    if isinstance(sentences, str) or not isinstance(sentences, Sequence):
        raise InputError(f"expected a list of sentences, got {type(sentences).__name__}", field="sentences")
    if not sentences:
        raise InputError("no sentences given", field="sentences")
    for i, s in enumerate(sentences):
        if not isinstance(s, str):
            raise InputError(f"expected a string, got {type(s).__name__}", field=f"sentences[{i}]")
        if not s.strip():
            raise InputError("the sentence is empty", field=f"sentences[{i}]")
    return list(sentences)


def checked_labels(labels: Any, n: int, spec: SuiteSpec, suite: str) -> list[str | None]:
    """One gold label per sentence, each in the suite's label set or ``None`` (unknown); ``labels`` None:
    every label unknown. An error names the index and the value."""
    if labels is None:
        return [None] * n
    if isinstance(labels, str) or not isinstance(labels, Sequence):
        raise InputError(f"expected a list of labels (one per sentence), got {type(labels).__name__}",
                         field="labels")
    if len(labels) != n:
        raise InputError(f"{len(labels)} labels for {n} sentences: give one per sentence (None: unknown)",
                         field="labels")
    for i, lab in enumerate(labels):
        if lab is not None and (not isinstance(lab, str) or lab not in spec.labels):
            raise InputError(f"labels[{i}] = {lab!r} is not a label of the S2LCT suite {suite} "
                             f"({', '.join(spec.labels)})", field=f"labels[{i}]")
    return list(labels)


def checked_seed(seed: Any, config: S2lctConfig) -> S2lctConfig:
    """``config`` with ``seed`` (an int) as its seed (None: the configured one)."""
    if seed is None:
        return config
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise InputError(f"seed must be an integer, got {seed!r}", field="seed")
    return config.model_copy(update={"seed": seed})


def check_rules(suite: str, spec: SuiteSpec, k: Knowledge) -> None:
    """A :class:`ConfigError` naming the rule whose predicate uses a lexicon or word sentiment ``k`` lacks
    (HateCheck's lexicons come from its mirror, ``<paths.manifests>/hatecheck.json``)."""
    for cid, cap in spec.capabilities.items():
        for ri, rule in enumerate(cap.rules):
            searches = [rule.search] + [p.others.search for p in rule.combine or [] if p.others is not None]
            for s in searches:
                try:
                    parse_predicate(s).check(k)
                except PredicateError as exc:
                    hint = (" (HateCheck's slur and identity lexicons are read from the data mirror: `dvc repro "
                            "download@hatecheck`)") if "hatecheck_" in str(exc) else ""
                    raise ConfigError(f"s2lct.suites.{suite}.capabilities.{cid}.rules[{ri}]: {exc}{hint}") from None


def _tests_label(p: Predicate) -> bool:
    """Whether ``p`` reads the seed's label anywhere."""
    if isinstance(p, HasAttr):
        return p.attr == "label"
    if isinstance(p, And | Or):
        return any(_tests_label(q) for q in p.parts)
    if isinstance(p, Not):
        return _tests_label(p.part)
    return False


def rules_need_labels(spec: SuiteSpec) -> bool:
    """Whether every rule of the suite tests the seed's label (then unlabelled sentences match none)."""
    return all(_tests_label(parse_predicate(r.search)) for cap in spec.capabilities.values() for r in cap.rules)


def no_match_error(suite: str, spec: SuiteSpec, n: int, labelled: int) -> InputError:
    """The error of sentences no capability rule matches: the capabilities searched, and a hint when the
    rules need labels that were not given."""
    caps = "; ".join(f"{cid} ({cap.name})" for cid, cap in spec.capabilities.items())
    msg = f"none of the {n} sentences matches a capability of the S2LCT suite {suite} (searched {caps})"
    if labelled == 0 and rules_need_labels(spec):
        msg += f"; every rule tests the seed's label: pass labels= (one of {', '.join(spec.labels)} per sentence)"
    return InputError(msg, field="sentences")


# ---- the steps ----------------------------------------------------------------------------------------
def parsed_pool(sentences: Sequence[str], labels: Sequence[str | None], parser: Any, *,
                lowercase: bool) -> list[Found]:
    """The searchable sentences: each sentence tokenised, parsed (one parser call) and labelled; a sentence
    whose (lower-cased) tokens repeat an earlier one's is kept once (the first)."""
    from lingtest.readers.hatecheck import tokenize

    tokens = [tokenize(s) for s in sentences]
    parsed = parser.parse([[t.text for t in toks] for toks in tokens])
    if len(parsed) != len(sentences):
        raise RuntimeError(f"the parser returned {len(parsed)} sentences for {len(sentences)}")
    docs = (Document(id=INPUT_ID.format(i), sentences=[Sentence(tokens=sent.tokens, tree=sent.tree)])
            for i, sent in enumerate(parsed))
    return unique_found(zip(docs, labels, strict=True), lowercase=lowercase, skip_unlabelled=False)


def expansions_of(items: Sequence[tuple[Found, list[Predicate]]], expander: Any, k: Knowledge, *,
                  progress: Callable[[int], None] | None = None) -> dict[str, list[Any]]:
    """The expansions of ``items`` (found sentences with the predicates their expansions keep), by sentence
    id, expanded in the generate stage's chunks (:data:`lingtest.s2lct.stages.EXPAND_CHUNK` sentences:
    the same proposer and tagger batches, so the same expansions); ``progress(n)`` after each chunk."""
    from lingtest.execution.ray_generate import chunked
    from lingtest.s2lct.expand import ExpansionStats
    from lingtest.s2lct.stages import EXPAND_CHUNK

    stats = ExpansionStats()
    out: dict[str, list[Any]] = {}
    for chunk in chunked(items, EXPAND_CHUNK):
        out.update(expander.expand(chunk, k, stats))
        if progress is not None:
            progress(len(chunk))
    log.info("S2LCT expansion of %d sentences: %s", len(items), stats.to_dict())
    return out


def _close(parser: Any) -> None:
    close = getattr(parser, "close", None)
    if callable(close):
        close()


# ---- the API ------------------------------------------------------------------------------------------
def generate(sentences: Sequence[str], *, task: str = "sentiment", labels: Sequence[str | None] | None = None,
             config: Any = None, seed: int | None = None, expand: bool = True,
             progress: bool | None = None) -> list[TestCase]:
    """S2LCT test cases of the suite of ``task`` seeded from ``sentences`` (see the module doc).

    ``task``: ``"sentiment"`` (the ``sst`` suite's capabilities), ``"hate_speech"`` (``hatexplain``) or a
    configured suite's name. ``labels``: each sentence's gold label in the suite's label set (sst:
    negative, neutral, positive; hatexplain: hate, non-hate), ``None`` for one not known; a rule that tests
    the seed's label (``hasattr(label, ...)``) matches only sentences with that label. ``config``: the
    composed configuration or Hydra overrides (:func:`lingtest.harness.running.configuration`; default: the
    project's). ``seed``: instead of ``s2lct.seed`` (it picks the sentences, cases, masked sentences and
    fills kept by the seeded caps). ``expand``: run the syntax expansion (the argument decides, not
    ``s2lct.expansion.enabled``). ``progress``: a progress bar over the expansion (default: when stderr
    is a terminal).

    An :class:`~lingtest.errors.InputError` names a bad sentence, task, label (its index and value) or
    seed, and is raised when no sentence matches any capability (naming the capabilities searched)."""
    from lingtest.execution.context import StageContext
    from lingtest.harness.running import Bar, configuration
    from lingtest.paths import project_root
    from lingtest.s2lct import components
    from lingtest.s2lct.expand import expansion_cases, expansion_targets
    from lingtest.s2lct.seeds import seed_cases
    from lingtest.s2lct.suite import in_capability_order, to_test_case

    texts = checked_sentences(sentences)
    if not isinstance(expand, bool):
        raise InputError(f"expand must be True or False, got {expand!r}", field="expand")
    cfg = configuration(config)
    s2 = checked_seed(seed, S2lctConfig.from_config(cfg))
    name = suite_of_task(task, s2)
    spec = s2.suite(name)
    gold = checked_labels(labels, len(texts), spec, name)
    labelled = sum(g is not None for g in gold)
    if labelled == 0 and rules_need_labels(spec):  # nothing can match: said before anything loads
        raise no_match_error(name, spec, len(texts), labelled)
    ctx = StageContext(components.GENERATE_STAGE, cfg, root=project_root())
    k = components.knowledge(ctx, s2)
    check_rules(name, spec, k)
    sc = s2.seeds
    parser = components.build_parser(cfg.parser)
    try:
        pool = parsed_pool(texts, gold, parser, lowercase=spec.search.lowercase)
        seeds, used = seed_cases(name, spec, pool, k, seed=s2.seed, max_sents=sc.max_sents, max_cases=sc.max_cases,
                                 others_per_seed=sc.others_per_seed)
        if not seeds:
            raise no_match_error(name, spec, len(texts), labelled)
        exps: list[GenCase] = []
        items = expansion_targets(spec, used, suite=name, seed=s2.seed, max_seeds=s2.expansion.max_seeds)
        if expand and items:
            try:
                pairs = components.collocations(s2, ((f.sentence.words, f.sentence.tags) for f in pool))
                expander = components.build_expander(ctx, s2, k, parser=parser, pairs=pairs)
            except MissingResourceError as exc:
                raise MissingResourceError(f"{exc} (expand=False: the seed cases alone)") from None
            with Bar(f"S2LCT {name}: expanding", progress) as bar:
                bar.set_total(len(items))
                exps = expansion_cases(spec, seeds, expansions_of(items, expander, k, progress=bar))
    finally:
        _close(parser)
    log.info("S2LCT %s on %d sentences: %d seed cases, %d expansion cases", name, len(texts), len(seeds), len(exps))
    return [to_test_case(g) for g in in_capability_order(spec, seeds, exps)]


def suite(sentences: Sequence[str], *, task: str = "sentiment", labels: Sequence[str | None] | None = None,
          config: Any = None, seed: int | None = None, expand: bool = True, progress: bool | None = None,
          name: str | None = None) -> Suite:
    """The cases of :func:`generate` (same arguments) as a :class:`~lingtest.harness.loading.Suite` named
    ``name`` (default ``s2lct-<suite>-own``), whose header records the technique, the suite, the seed and
    the suite's whole label set (a system's outputs are checked against it)."""
    from lingtest.harness.build import suite_from_cases
    from lingtest.harness.running import configuration

    cfg = configuration(config)  # composed once: generate() and the header read the same configuration
    s2 = checked_seed(seed, S2lctConfig.from_config(cfg))
    suite_name = suite_of_task(task, s2)
    cases = generate(sentences, task=suite_name, labels=labels, config=cfg, seed=s2.seed, expand=expand,
                     progress=progress)
    header: Mapping[str, Any] = {"technique": "s2lct", "suite": suite_name, "seed": s2.seed,
                                 "labels": list(s2.suite(suite_name).labels)}
    return suite_from_cases(cases, name=name or f"s2lct-{suite_name}-own", header=header)
