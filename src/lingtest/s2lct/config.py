"""S2LCT's configuration (``conf/s2lct/default.yaml``, ``cfg.s2lct``), typed: every key a field, no
defaults here (they live in conf/), unknown keys rejected. Validated once when an S2LCT stage starts (and
once in each expansion worker, :func:`lingtest.s2lct.components.expansion_worker`).

The blocks that already have a typed class are those classes: the capability specs
(:class:`~lingtest.s2lct.spec.SuiteSpec`), the fill proposers' keys (their ``Config``), the classifier
trainer (:class:`~lingtest.s2lct.training.TrainClassifierConfig`) and the training data
(:class:`~lingtest.s2lct.training.ClassifierData`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Literal

from pydantic import Field

from lingtest.config import Block, Section
from lingtest.errors import ConfigError
from lingtest.resources.fill import MaskedLMFillConfig
from lingtest.s2lct.fill import LexiconLMFillConfig, LMNextFillConfig
from lingtest.s2lct.grammar import Insertion
from lingtest.s2lct.spec import SuiteSpec
from lingtest.s2lct.training import ClassifierData, TrainClassifierConfig


class Seeds(Block):
    adverbs_as_adjectives: bool
    max_sents: int | None
    max_cases: int | None
    others_per_seed: int


class Reference(Block):
    """The prepared split whose trees make the reference CFG."""

    corpus: str
    split: str


class Fill(LexiconLMFillConfig, MaskedLMFillConfig, LMNextFillConfig):
    """``s2lct.expansion.fill``: ``kind`` (a proposer of :data:`lingtest.s2lct.components.FILL_PROPOSERS`),
    ``top_k`` (candidates per mask, read by the expander) and the keys of every registered proposer: this
    block *is* each proposer's ``Config`` (its bases), so all of them are checked and switching ``kind``
    is one override. A new proposer adds its ``Config`` to the bases and its name to ``kind``."""

    kind: Literal["lexicon_lm", "lm_next", "masked_lm"]
    top_k: int


class Validate(Block):
    """``s2lct.expansion.validate``: fillings tried and kept per masked sentence, the prefilter's
    ``alphanumeric``, and the acceptance rules of :class:`lingtest.s2lct.expand.Acceptance`: ``boundary_repeat``
    (a fill may equal a word next to its mask), ``sentence_repeat`` (a fill may be a word the sentence has
    elsewhere), ``production`` (the re-parse must realise the chosen production), ``min_naturalness_drop``
    (null: not checked) and ``min_insertion_logprob`` (per mask tag: the least insertion log-probability of a
    one-word insertion of that tag; ``{}``: none checked)."""

    max_tries: int
    keep: int
    alphanumeric: bool
    refuse: list[str]           # names of s2lct.lexicons whose words no fill may be
    boundary_repeat: bool
    sentence_repeat: bool       # whether a fill may be a word the sentence already has elsewhere
    production: bool
    min_naturalness_drop: float | None
    min_insertion_logprob: dict[str, float]   # mask tag -> least total log-prob of the expansion minus the seed's


class InsertionRule(Block):
    """One entry of ``s2lct.expansion.insertions`` (:class:`lingtest.s2lct.grammar.Insertion`): one word of a
    ``tag`` inserted into a phrase labelled ``lhs``, right after a sibling in ``after`` and before one in
    ``before`` (``^`` / ``$``: the phrase's edge). The word keys name lexicons of ``s2lct.lexicons``."""

    lhs: list[str]
    tag: list[str]
    after: list[str]
    before: list[str]
    final: bool                 # the sibling after the mask must end the phrase (an NP's head noun)
    attested: int | None        # the fill must fill such a slot in the reference treebank this many times (null: any)
    collocated: int | None      # the fill must come right before the next word this many times in the suite's corpus
    main_clause: bool           # the phrase must belong to the sentence's main clause (not a subordinate one)
    after_words: str | None     # a lexicon: the word right before the mask must be one of its words (null: any)
    not_after: list[str]        # lexicons: the word right before the mask is none of their words
    not_before_tags: list[str]  # PTB tags: the word right after the mask has none of them
    clause_refuse: list[str]    # lexicons: none of their words comes before the mask in its clause
    wh_front: str | None        # a lexicon: none of its words opens the mask's clause before it (null: not checked)

    def lexicon_names(self) -> list[str]:
        """The lexicons the rule names."""
        return [*([self.after_words] if self.after_words else []), *self.not_after, *self.clause_refuse,
                *([self.wh_front] if self.wh_front else [])]

    def rule(self, lexicons: Mapping[str, Sequence[str]]) -> Insertion:
        """The typed rule, its lexicons' words from ``lexicons`` (a name it lacks is a ConfigError)."""
        missing = [n for n in self.lexicon_names() if n not in lexicons]
        if missing:
            raise ConfigError(f"s2lct.expansion.insertions names {', '.join(missing)}, not a lexicon of "
                              f"s2lct.lexicons; known: {', '.join(sorted(lexicons))}")

        def words(names: Sequence[str]) -> list[str]:
            return [w for n in names for w in lexicons[n]]

        return Insertion.of(self.lhs, self.tag, self.after, self.before, final=self.final, attested=self.attested,
                            collocated=self.collocated, main_clause=self.main_clause,
                            after_words=None if self.after_words is None else words([self.after_words]),
                            not_after=words(self.not_after), not_before_tags=self.not_before_tags,
                            clause_refuse=words(self.clause_refuse),
                            wh_front=words([self.wh_front] if self.wh_front else []))


class Expansion(Block):
    enabled: bool
    reference: Reference
    top_masks: int
    max_masks: int
    max_seeds: int | None
    max_masked: int | None
    insertions: list[InsertionRule] | None   # null: every masked sentence of Algorithm 1
    collocation_words: int | None            # a collocated fill: one of this many words of its tag seen most in pairs

    def insertion_rules(self, lexicons: Mapping[str, Sequence[str]]) -> list[Insertion] | None:
        """The typed rules of ``insertions`` (``None``: no restriction), their word keys read in ``lexicons``
        (``s2lct.lexicons``)."""
        return None if self.insertions is None else [r.rule(lexicons) for r in self.insertions]
    fill: Fill
    validation: Validate = Field(alias="validate")  # `validate` in the YAML (a pydantic BaseModel attribute)


class NeutralBand(Block):
    low: float
    high: float


class Evaluate(Block):
    """The run options of the ``s2lct-label`` expectation (:func:`lingtest.s2lct.evaluate.predicted_label`)."""

    neutral_band: NeutralBand
    hate_threshold: float

    def options(self) -> dict[str, object]:
        return self.model_dump()


class Diversity(Block):
    trials: int
    sizes: dict[str, list[int]]  # suite -> sample sizes


class Training(Block):
    trainer: TrainClassifierConfig
    classifiers: dict[str, ClassifierData]

    def classifier(self, name: str) -> ClassifierData:
        if name not in self.classifiers:
            raise ConfigError(f"s2lct.training.classifiers.{name} is not configured; configured: "
                              f"{', '.join(sorted(self.classifiers)) or '(none)'}")
        return self.classifiers[name]


class CoverageSystem(Block):
    """A system measured by ``s2lct_coverage``: the suite it is tested on and the training data its neuron
    bounds come from."""

    suite: str
    bounds: ClassifierData


class Coverage(Block):
    systems: dict[str, CoverageSystem]      # our fine-tuned classifiers (s2lct_coverage@<system>)
    hub_systems: dict[str, CoverageSystem]  # hub classifiers (s2lct_coverage_hub@<system>)
    modules: str
    bounds_max_texts: int | None
    sizes: list[int]
    trials: int
    batch_size: int

    def entry(self, item: str) -> tuple[str, CoverageSystem]:
        """``(section, entry)`` of system ``item`` in ``systems`` or ``hub_systems``; a name in both or in
        neither is a ConfigError."""
        found = [(where, section[item]) for where, section in (("systems", self.systems),
                                                               ("hub_systems", self.hub_systems)) if item in section]
        if len(found) != 1:
            known = sorted({*self.systems, *self.hub_systems})
            why = "is in both systems and hub_systems" if found else "is not configured"
            raise ConfigError(f"s2lct.coverage: {item} {why}; configured: {', '.join(known) or '(none)'}")
        return found[0]


class S2lctConfig(Section):
    section = "s2lct"

    seed: int
    systems: dict[str, str]          # classification system -> the suite it is tested on
    lexicons: dict[str, list[str]]
    seeds: Seeds
    expansion: Expansion
    evaluate: Evaluate
    diversity: Diversity
    suites: dict[str, SuiteSpec]
    training: Training
    coverage: Coverage

    def suite(self, name: str) -> SuiteSpec:
        if name not in self.suites:
            raise ConfigError(f"unknown S2LCT suite {name!r}; configured: {', '.join(self.suites)}")
        return self.suites[name]

    def system_suite(self, system: str) -> str:
        """The suite classification system ``system`` is tested on."""
        if system not in self.systems:
            raise ConfigError(f"{system!r} is not in s2lct.systems ({', '.join(self.systems)})")
        return self.systems[system]
