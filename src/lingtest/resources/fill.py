"""Fill-in proposers: ranked replacement words for one position of a tokenised sentence.

One protocol shared by every technique that replaces a word in context (TIN's token-level mutants
and entity relabelling, CREST's candidates, the word-substitution baselines):

* :class:`FillProposer` - ``propose(tokens, position, k)`` returns at most ``k`` :class:`Fill`
  records (a replacement word and its score, higher is better), best first; ``propose_many``
  answers many ``(tokens, position)`` requests at once (batched). A fill is one word and never
  the original word. What ``score`` means (a raw masked-LM logit, a probability, a re-ranked
  LM probability) is the proposer's business and is named by its ``score_kind``; thresholds in
  ``conf/`` are in that unit. Scores are on the grid of ``resources.score_decimals`` for their kind
  (:class:`~lingtest.resources.scores.ScoreGrid`) and fills with equal scores come in the order of
  their words, so a threshold or a top-k taken on them does not depend on float noise.
* :class:`SubwordFillProposer` - optionally, ``propose_subwords(tokens, position, k)`` masks each
  word piece of ``tokens[position]`` in turn and returns the whole words obtained by replacing that
  piece (TIN's Algorithm 1 masks "each word/subword").

:class:`MaskedLMFillProposer` is the hub implementation: a masked LM (the TIN paper uses
``bert-large-cased``, ``k = 10``, raw logit ``> 9``) loaded through
:class:`lingtest.resources.lm.MaskedLMScorer` (its model, tokenizer, device and batch size). No
English masked LM ships offline; :class:`WordNetVectorsFillProposer` puts the offline proposer
(CREST's WordNet and word-vector candidates ranked by the causal LM, :mod:`lingtest.resources.candidates`)
behind the same protocol.

Built from a technique's ``fill`` section (``tin.fill``, ``s2lct.expansion.fill``) by
:func:`fill_component`: ``kind`` names a registered proposer (:data:`FILL_PROPOSERS`, or a technique's own
registry), whose ``Config`` declares the keys of the section it reads and whose ``from_config(config,
parts)`` builds it; ``parts`` is the technique's holder of shared models (:class:`FillParts`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, Protocol, runtime_checkable

from lingtest.config import Block
from lingtest.registry import Registry
from lingtest.resources.scores import ScoreGrid, stable_ranking

__all__ = ["Fill", "FillParts", "FillProposer", "FillProposerBase", "FillRequest", "MaskedLMFillConfig",
           "MaskedLMFillProposer", "MaskedLMOptions", "RankerOptions", "SubwordFill", "SubwordFillProposer",
           "WordNetVectorsFillConfig", "WordNetVectorsFillProposer", "check_request", "fill_component",
           "FILL_PROPOSERS"]

#: ``(tokens, position)``: replace ``tokens[position]``
FillRequest = tuple[Sequence[str], int]


@dataclass(frozen=True, slots=True)
class Fill:
    """A replacement ``word`` for the requested position and its ``score`` (higher is better, on the
    score grid of the proposer's ``score_kind``)."""

    word: str
    score: float


@dataclass(frozen=True, slots=True)
class SubwordFill:
    """The whole ``word`` obtained by replacing piece ``piece`` (0-based) of the original word."""

    word: str
    piece: int
    score: float


@runtime_checkable
class FillProposer(Protocol):
    name: str
    #: what ``Fill.score`` is, e.g. ``"logit"``, ``"prob"``
    score_kind: str

    def propose(self, tokens: Sequence[str], position: int, k: int) -> list[Fill]:
        """At most ``k`` fills for ``tokens[position]``, best first."""
        ...

    def propose_many(self, requests: Sequence[FillRequest], k: int) -> list[list[Fill]]:
        """:meth:`propose` for each request, in order (batched)."""
        ...


@runtime_checkable
class SubwordFillProposer(Protocol):
    def propose_subwords(self, requests: Sequence[FillRequest], k: int) -> list[list[SubwordFill]]:
        """For each request, whole words from replacing one word piece of ``tokens[position]`` at a
        time (at most ``k`` per piece), best first within a piece."""
        ...


def check_request(tokens: Sequence[str], position: int, k: int) -> None:
    if isinstance(tokens, str):
        raise TypeError("tokens must be a sequence of words, not a string")
    if not 0 <= position < len(tokens):
        raise IndexError(f"position {position} outside the {len(tokens)} tokens {list(tokens)!r}")
    if k < 1:
        raise ValueError(f"k must be positive, got {k}")


class FillParts(Protocol):
    """What a fill proposer's ``from_config`` may take from the technique that builds it (TIN:
    :class:`lingtest.tin.components.Parts`)."""

    @property
    def parser(self) -> Any:
        """The configured parser (``cfg.parser``, behind the parse cache)."""
        ...

    def lm_scorer(self, dtype: str | None) -> Any:
        """A causal-LM scorer of ``resources.lm`` computing in ``dtype`` (null: ``resources.lm.dtype``)."""
        ...

    @property
    def score_grid(self) -> ScoreGrid:
        """The decimals model scores are rounded to (``resources.score_decimals``)."""
        ...


def fill_component(registry: Registry, section: Any, where: str, *, shared: Sequence[str]) -> tuple[Any, Any]:
    """The proposer class that ``section.kind`` names in ``registry`` and its validated ``Config``.

    ``section``: a technique's fill section at ``where`` (e.g. ``tin.fill``). Its keys are ``kind``, the
    ``shared`` keys the technique reads itself, and those of the registered proposers' ``Config``s (each
    ``Config``'s fields are keys of the section; every proposer's keys stay in conf/, so that switching
    ``kind`` is one override). Any other key is a :class:`~lingtest.errors.ConfigError` naming it, as is a
    missing, unknown or mistyped key of the chosen proposer's ``Config``."""
    from lingtest.config import to_plain, validate
    from lingtest.errors import ConfigError

    data = to_plain(section)
    if not isinstance(data, Mapping):
        raise ConfigError(f"{where} must be a mapping")
    kind = data.get("kind")
    if not isinstance(kind, str) or kind not in registry:
        raise ConfigError(f"{where}.kind: unknown {registry.kind} {kind!r}; known: {', '.join(registry.names())}")
    keys_of = {name: list(registry.get(name).Config.model_fields) for name in registry.names()}
    known = ["kind", *shared]
    unknown = [k for k in data if k not in known and not any(k in keys for keys in keys_of.values())]
    if unknown:
        per = "; ".join(f"{name}: {', '.join(keys)}" for name, keys in keys_of.items())
        raise ConfigError(f"{where}: unknown key(s) {', '.join(map(str, unknown))}; known: {', '.join(known)}, "
                          f"and the keys of each {registry.kind} ({per})")
    cls = registry.get(kind)
    fields = cls.Config.model_fields
    try:
        config = validate(cls.Config, {k: v for k, v in data.items() if k in fields}, where)
    except ConfigError as exc:
        raise ConfigError(f"{exc} ({registry.kind} {kind!r})") from None
    return cls, config


class FillProposerBase:
    """``propose`` in terms of ``propose_many``."""

    name: str = "fill"
    score_kind: str = "score"

    def propose(self, tokens: Sequence[str], position: int, k: int) -> list[Fill]:
        return self.propose_many([(tokens, position)], k)[0]

    def propose_many(self, requests: Sequence[FillRequest], k: int) -> list[list[Fill]]:  # pragma: no cover
        raise NotImplementedError


# ------------------------------------------------------------------------------------------------
# masked LM (hub)
# ------------------------------------------------------------------------------------------------
ScoreKind = Literal["logit", "prob"]


class MaskedLMOptions(Block):
    """A fill section's ``masked_lm``: the model (a hub id), its ``score`` unit, ``min_piece_chars`` (the
    subword pass) and device; see :class:`MaskedLMFillProposer`."""

    model: str
    score: ScoreKind
    min_piece_chars: int
    device: str


class MaskedLMFillConfig(Block):
    """The key of a fill section that ``masked_lm`` reads."""

    masked_lm: MaskedLMOptions


class MaskedLMFillProposer(FillProposerBase):
    """Fills from a masked LM: ``tokens[position]`` is replaced by the mask token and the ``k``
    highest-scoring whole-word vocabulary entries are returned (special tokens, ``##`` pieces,
    ``[unused]`` slots, entries without a letter or digit, and the original word are never proposed).

    ``scorer``: a :class:`~lingtest.resources.lm.MaskedLMScorer` (or anything with its ``model``,
    ``tokenizer``, ``device``, ``batch_size`` and ``max_length``); built lazily from ``model`` and
    ``device`` when not given (``model`` may be None only with a ``scorer``). Every option comes from a
    fill section's ``masked_lm`` (``tin.fill.masked_lm``, ``s2lct.expansion.fill.masked_lm``). ``score``:
    ``"logit"`` (the raw output logit, TIN's unit: ``> 9`` for mutants, ``>= 5.5`` for relabelling) or
    ``"prob"`` (softmax probability, CREST's unit). ``grid``: ``resources.score_decimals``; fills are
    ranked on it (logits on the ``logit`` grid; probabilities by their log-probability on the ``logprob``
    grid, reported as its probability on the ``prob`` grid), equal ones by their vocabulary entry's text,
    then id.
    ``min_piece_chars``: the subword pass masks only pieces with more than this many characters
    (``##`` not counted; the TIN code uses 2). Subwords need a WordPiece tokenizer (``##``
    continuations); with another tokenizer :meth:`propose_subwords` returns nothing.
    """

    name = "masked_lm"
    Config = MaskedLMFillConfig

    @classmethod
    def from_config(cls, config: MaskedLMFillConfig, parts: Any) -> MaskedLMFillProposer:
        """The model loads on first use."""
        m = config.masked_lm
        return cls(grid=parts.score_grid, score=m.score, min_piece_chars=m.min_piece_chars, model=m.model,
                   device=m.device)

    def __init__(self, scorer: Any = None, *, grid: ScoreGrid, score: ScoreKind, min_piece_chars: int,
                 model: str | None, device: str) -> None:
        if score not in ("logit", "prob"):
            raise ValueError(f"score must be 'logit' or 'prob', got {score!r}")
        if scorer is None and model is None:
            raise ValueError("give a masked-LM scorer or a model name")
        self._scorer = scorer
        self.grid = grid
        self.model = model
        self.device = device
        self.score_kind = score
        self.min_piece_chars = int(min_piece_chars)
        self._vocab_cache: tuple[Any, Any] | None = None

    @property
    def scorer(self) -> Any:
        if self._scorer is None:
            from lingtest.resources.lm import MaskedLMScorer

            assert self.model is not None  # __init__ requires a scorer or a model
            self._scorer = MaskedLMScorer(self.model, device=self.device)
        return self._scorer

    # -- vocabulary masks ------------------------------------------------------------------------
    def _masks(self) -> tuple[Any, Any]:
        """Boolean ``(whole, continuation)`` masks over the vocabulary of allowed fill ids."""
        if self._vocab_cache is None:
            import torch

            tok = self.scorer.tokenizer
            vocab = tok.get_vocab()
            size = max(len(vocab), int(getattr(self.scorer.model.config, "vocab_size", 0)))
            whole = torch.zeros(size, dtype=torch.bool)
            cont = torch.zeros(size, dtype=torch.bool)
            special = set(tok.all_special_ids)
            for piece, idx in vocab.items():
                if idx in special or piece.startswith("[unused") or idx >= size:
                    continue
                if piece.startswith("##"):
                    if any(ch.isalnum() for ch in piece[2:]):
                        cont[idx] = True
                elif any(ch.isalnum() for ch in piece):
                    whole[idx] = True
            self._vocab_cache = (whole, cont)
        return self._vocab_cache

    # -- the forward pass ------------------------------------------------------------------------
    def _scores_at(self, seqs: list[list[int]], positions: list[int]) -> Any:
        """``(n, vocab)`` float32 scores at ``positions[i]`` of ``seqs[i]``: raw logits, or log-probabilities
        when the score kind is ``"prob"`` (put on the grid by :meth:`_top`)."""
        import torch

        sc = self.scorer
        pad = sc.tokenizer.pad_token_id if sc.tokenizer.pad_token_id is not None else 0
        outs = []
        with torch.inference_mode():
            for start in range(0, len(seqs), sc.batch_size):
                chunk = seqs[start:start + sc.batch_size]
                width = max(len(s) for s in chunk)
                ids = torch.full((len(chunk), width), pad, dtype=torch.long)
                mask = torch.zeros((len(chunk), width), dtype=torch.long)
                for i, s in enumerate(chunk):
                    ids[i, :len(s)] = torch.tensor(s, dtype=torch.long)
                    mask[i, :len(s)] = 1
                logits = sc.model(input_ids=ids.to(sc.device), attention_mask=mask.to(sc.device)).logits
                pos = torch.tensor(positions[start:start + sc.batch_size], device=logits.device)
                rows = logits[torch.arange(len(chunk), device=logits.device), pos].float().cpu()
                outs.append(torch.log_softmax(rows, dim=-1) if self.score_kind == "prob" else rows)
        return torch.cat(outs, dim=0) if outs else torch.zeros((0, 0))

    def _encode_words(self, words: Sequence[str]) -> tuple[list[int], list[int | None]]:
        enc = self.scorer.tokenizer(list(words), is_split_into_words=True, truncation=True,
                                    max_length=self.scorer.max_length)
        return list(enc["input_ids"]), list(enc.word_ids())

    def _top(self, row: Any, allowed: Any, k: int) -> list[tuple[int, float]]:
        """The ``k`` best allowed ids of ``row`` with their scores, on the grid: ranked by the rounded
        logit (or log-probability), equal ones by the entry's text, then id; every entry tied with the
        ``k``-th is considered before the cut."""
        import torch

        kind = "logit" if self.score_kind == "logit" else "logprob"
        ok = allowed[: row.numel()]
        rounded = torch.from_numpy(self.grid.round_array(kind, row[: ok.numel()].double().numpy()))
        masked = torch.where(ok, rounded, torch.tensor(-math.inf, dtype=torch.float64))
        n = min(int(ok.sum()), k)
        if n <= 0:
            return []
        kth = torch.topk(masked, n).values[-1]
        ids = [int(i) for i in torch.nonzero(masked >= kth).flatten().tolist()]
        tokens = self.scorer.tokenizer.convert_ids_to_tokens(ids)
        values = [float(masked[i]) for i in ids]
        ranked = sorted(zip(ids, tokens, values, strict=True), key=lambda t: (-t[2], t[1], t[0]))[:k]
        return [(i, self._grid_score(v)) for i, _, v in ranked]

    def _grid_score(self, value: float) -> float:
        """The reported score of a rounded logit (itself) or log-probability (its probability on the
        ``prob`` grid)."""
        if self.score_kind == "logit":
            return value
        return self.grid.round("prob", math.exp(value))

    # -- whole words -----------------------------------------------------------------------------
    def propose_many(self, requests: Sequence[FillRequest], k: int) -> list[list[Fill]]:
        if not requests:
            return []
        tok = self.scorer.tokenizer
        whole, _ = self._masks()
        seqs, positions = [], []
        for tokens, position in requests:
            check_request(tokens, position, k)
            words = list(tokens[:position]) + [tok.mask_token] + list(tokens[position + 1:])
            ids, _ = self._encode_words(words)
            where = [i for i, x in enumerate(ids) if x == tok.mask_token_id]
            if len(where) != 1:
                raise ValueError(f"mask at position {position} was truncated away or duplicated in "
                                 f"{list(tokens)!r}")
            seqs.append(ids)
            positions.append(where[0])
        scores = self._scores_at(seqs, positions)
        out: list[list[Fill]] = []
        for row, (tokens, position) in zip(scores, requests, strict=True):
            original = tokens[position]
            fills: list[Fill] = []
            for idx, val in self._top(row, whole, k + 1):
                word = tok.convert_ids_to_tokens(idx)
                if word == original:
                    continue
                fills.append(Fill(word, val))
            out.append(fills[:k])
        return out

    # -- word pieces -----------------------------------------------------------------------------
    def propose_subwords(self, requests: Sequence[FillRequest], k: int) -> list[list[SubwordFill]]:
        """Mask each WordPiece piece (more than ``min_piece_chars`` characters) of the word in turn;
        a first piece is replaced by a whole-word entry, a continuation by a ``##`` entry."""
        if not requests:
            return []
        tok = self.scorer.tokenizer
        whole, cont = self._masks()
        jobs: list[tuple[int, int, list[str]]] = []  # (request, piece index, pieces of the word)
        seqs, positions = [], []
        for r, (tokens, position) in enumerate(requests):
            check_request(tokens, position, k)
            ids, word_ids = self._encode_words(tokens)
            where = [i for i, w in enumerate(word_ids) if w == position]
            if len(where) < 2:
                continue
            pieces = tok.convert_ids_to_tokens([ids[i] for i in where])
            if not all(p.startswith("##") for p in pieces[1:]):
                continue  # not WordPiece
            for j, i in enumerate(where):
                if len(pieces[j].removeprefix("##")) <= self.min_piece_chars:
                    continue
                masked = list(ids)
                masked[i] = tok.mask_token_id
                jobs.append((r, j, pieces))
                seqs.append(masked)
                positions.append(i)
        out: list[list[SubwordFill]] = [[] for _ in requests]
        if not jobs:
            return out
        scores = self._scores_at(seqs, positions)
        for row, (r, j, pieces) in zip(scores, jobs, strict=True):
            original = requests[r][0][requests[r][1]]
            allowed = cont if j > 0 else whole
            got = 0
            for idx, val in self._top(row, allowed, k + 1):
                new = list(pieces)
                new[j] = tok.convert_ids_to_tokens(idx)
                word = new[0] + "".join(p.removeprefix("##") for p in new[1:])
                if word == original or got >= k:
                    continue
                out[r].append(SubwordFill(word, j, val))
                got += 1
        return out


# ------------------------------------------------------------------------------------------------
# offline: CREST's candidate proposers ranked by the causal LM
# ------------------------------------------------------------------------------------------------
class RankerOptions(Block):
    """A fill section's ``ranker``: the :class:`~lingtest.resources.candidates.rank.LMRanker` options, the
    ranking LM's compute precision (``dtype``; null: ``resources.lm.dtype``); the LM's torch threads are
    ``resources.lm.threads``."""

    threshold: float
    include_original: bool
    filter_sources: tuple[str, ...]
    window: int | None
    left_window: int | None
    shared_prefix: bool
    dtype: str | None


class WordNetVectorsFillConfig(Block):
    """The keys of a fill section that ``wordnet_vectors`` reads: the options of the ``wordnet`` and
    ``vectors`` candidate proposers (:data:`lingtest.resources.candidates.PROPOSERS`, which check them), in
    that precedence order, and the ranker's."""

    wordnet: dict[str, Any]
    vectors: dict[str, Any]
    ranker: RankerOptions


class WordNetVectorsFillProposer(FillProposerBase):
    """CREST's candidates behind this protocol: ``parser`` annotates the sentence (UPOS, PTB tag,
    lemma; pass a :class:`~lingtest.parsing.cache.CachedParser`), each of ``proposers`` (CREST
    :class:`~lingtest.resources.candidates.base.Proposer` objects, e.g. ``wordnet`` and ``vectors``, in
    precedence order) proposes for the position, the lists are merged
    (:func:`~lingtest.resources.candidates.base.merge_candidates`), candidates of more than one word are
    dropped, and ``ranker`` (:class:`~lingtest.resources.candidates.rank.LMRanker`) scores them all in one
    call: ``score`` is the ranker's probability of the candidate among the position's candidates.
    Candidates the ranker leaves unscored (sources outside its ``filter_sources``) are not proposed,
    so list every proposer's source there. Like CREST, only content words (NOUN, VERB, ADJ, ADV)
    get candidates: proper nouns (most entity words) get none.
    """

    name = "wordnet_vectors"
    score_kind = "prob"
    Config = WordNetVectorsFillConfig

    @classmethod
    def from_config(cls, config: WordNetVectorsFillConfig, parts: FillParts) -> WordNetVectorsFillProposer:
        """Builds the ranking LM, the candidate proposers and ``parts.parser``, in that order."""
        from lingtest.resources.candidates import get_proposer
        from lingtest.resources.candidates.rank import LMRanker
        rc = config.ranker
        grid = parts.score_grid
        ranker = LMRanker(parts.lm_scorer(rc.dtype or None), grid=grid, threshold=rc.threshold,
                          include_original=rc.include_original, filter_sources=list(rc.filter_sources),
                          window=rc.window, left_window=rc.left_window, shared_prefix=rc.shared_prefix)
        proposers = [get_proposer("wordnet", grid, **config.wordnet), get_proposer("vectors", grid, **config.vectors)]
        return cls(parts.parser, proposers, ranker)

    def __init__(self, parser: Any, proposers: Sequence[Any], ranker: Any) -> None:
        if not proposers:
            raise ValueError("give at least one candidate proposer")
        self.parser = parser
        self.proposers = list(proposers)
        self.ranker = ranker

    def propose_many(self, requests: Sequence[FillRequest], k: int) -> list[list[Fill]]:
        from lingtest.resources.candidates.base import merge_candidates

        if not requests:
            return []
        for tokens, position in requests:
            check_request(tokens, position, k)
        uniq: dict[tuple[str, ...], int] = {}
        for tokens, _ in requests:
            uniq.setdefault(tuple(tokens), len(uniq))
        parsed = self.parser.parse([list(t) for t in uniq])
        items = []
        for tokens, position in requests:
            sentence = parsed[uniq[tuple(tokens)]]
            lists = [p.propose(sentence, [position]).get(position, []) for p in self.proposers]
            cands = [c for c in merge_candidates(tokens[position], lists) if len(c.words) == 1]
            items.append((sentence, {position: cands} if cands else {}))
        ranked = self.ranker.rank_many(items)
        out: list[list[Fill]] = []
        for (_, position), res in zip(requests, ranked, strict=True):
            # the ranker's probabilities are on the grid; equal ones by word, then the proposers' order
            fills = [Fill(c.text, float(c.prob)) for c in res.get(position, []) if c.prob is not None]
            out.append(stable_ranking(fills, lambda f: f.score, lambda f: f.word)[:k])
        return out


#: fill-in proposers by name (the ``fill.kind`` of a technique's config)
FILL_PROPOSERS: Registry = Registry("fill proposer")
FILL_PROPOSERS.register("masked_lm", MaskedLMFillProposer)
FILL_PROPOSERS.register("wordnet_vectors", WordNetVectorsFillProposer)
