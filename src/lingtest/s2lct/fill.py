"""Filling S2LCT's masks: the causal LM's own next words, or a (word, PTB tag) lexicon ranked in context by a
causal LM (both offline), or a masked LM (hub), all behind the shared
:class:`~lingtest.resources.fill.FillProposer` protocol.

A request is ``(tokens, position)`` where ``tokens[position]`` is a mask placeholder ``{TAG}``
(:func:`mask_token`); the other masks of the sentence are left out of the request's tokens.

* :class:`TaggedLexicon`: word counts per PTB tag from tagged corpora (gold trees or parsed
  corpora), lower-cased when ``lowercase``, the ``max_per_tag`` most frequent words seen at least
  ``min_count`` times per tag.
* :class:`LexiconLMFillProposer` (``lexicon_lm``): the ``max_candidates`` most frequent lexicon words
  for the mask's tag that pass ``prefilter`` (S2LCT: alphanumeric and SentiWordNet-neutral, checked
  before the LM to save work) and are not already in the sentence, scored by the causal LM as
  ``left context + word + the next window words`` (the left context's probability is shared, so
  only the differences matter: ``score_kind`` ``"logprob"``), rounded to the ``logprob`` decimals of
  ``resources.score_decimals``, best first (equal scores alphabetically).
* :class:`MaskedLMFill` (``masked_lm``): the shared masked-LM proposer at the placeholder
  (the reference uses ``roberta-base``).
* :class:`LMNextFillProposer` (``lm_next``): the causal LM's own next words in context. It

  1. takes its candidates: for a tag the expander's :class:`Collocations` restrict (an adjective before a noun),
     the words seen right before the word after the mask in the suite's corpus; else the causal LM's
     ``candidates`` most probable next *words* after the left context (:class:`CausalNextWords`: the most
     probable tokens that start a word, each continued greedily while the most probable next token continues
     the word, ``max_pieces`` tokens at most) and the ``lexicon_candidates`` most frequent words of the tag;
  2. lower-cases them in a sentence without capitals (:func:`cased_like`), keeps those the mask's tag allows:
     alphanumeric (one character: a word the lexicon knows), passing ``prefilter`` and, with a
     ``tag_filter`` lexicon, a word the lexicon knows must have been seen with the tag (unknown words pass),
     then, with the expander's tagger (:class:`TagsInContext`), those tagged with the mask's tag in the
     request's sentence;
  3. scores them as ``left context + word + the next window words`` (the shared left context left out; window
     0: the word alone) and, with ``rescore``, scores the best ``rescore`` again by their gain
     (:func:`insertion_gain`: ``left + word + the next rescore_window words`` against the same without the word),
     rounded to the ``logprob`` decimals, best first, equal scores by word.

  Its keys are ``s2lct.expansion.fill.lm_next`` (:class:`LMNextOptions`).

All three are registered in :data:`lingtest.s2lct.components.FILL_PROPOSERS` and built from
``s2lct.expansion.fill`` by their ``from_config`` (``Config``: the keys of that section each reads).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from lingtest.config import Block
from lingtest.resources.fill import (
    Fill,
    FillProposerBase,
    FillRequest,
    MaskedLMFillConfig,
    MaskedLMFillProposer,
    check_request,
)
from lingtest.resources.scores import ScoreGrid, stable_ranking

__all__ = ["WORD_MARKERS", "CausalNextWords", "Collocations", "LMNextFillConfig", "LMNextFillProposer", "LMNextOptions",
           "LexiconLMFillConfig", "LexiconLMFillProposer", "LexiconOptions", "MaskedLMFill", "NextTokens",
           "NextWordSource", "TagsInContext", "TaggedLexicon", "WordPieces", "cased_like", "mask_tag", "mask_token",
           "piece_role", "request_texts", "tagged_in_context"]

_MASK_RE = re.compile(r"^\{([^{}\s]+)\}$")


def mask_token(tag: str) -> str:
    return "{" + tag + "}"


def mask_tag(token: str) -> str | None:
    """The tag of a placeholder ``{TAG}``, else ``None``."""
    m = _MASK_RE.match(token)
    return m.group(1) if m else None


class TaggedLexicon:
    """Words per PTB tag, most frequent first (ties: alphabetical)."""

    def __init__(self, pairs: Iterable[tuple[str, str]], *, min_count: int, max_per_tag: int | None,
                 lowercase: bool) -> None:
        counts: dict[str, Counter[str]] = {}
        for word, tag in pairs:
            if not word or not tag:
                continue
            w = word.lower() if lowercase else word
            counts.setdefault(tag, Counter())[w] += 1
        self.lowercase = bool(lowercase)
        self.words: dict[str, list[str]] = {}
        self.tags_of: dict[str, set[str]] = {}  # word -> the tags it was seen with (min_count times, no cap)
        for tag, c in counts.items():
            ranked = sorted((w for w, n in c.items() if n >= int(min_count)), key=lambda w: (-c[w], w))
            self.words[tag] = ranked[:max_per_tag] if max_per_tag is not None else ranked
            for w in ranked:
                self.tags_of.setdefault(w, set()).add(tag)

    def candidates(self, tag: str) -> list[str]:
        return list(self.words.get(tag, ()))

    def knows(self, word: str) -> bool:
        """Whether the lexicon has seen ``word`` (``min_count`` times with some tag)."""
        return (word.lower() if self.lowercase else word) in self.tags_of

    def allows(self, word: str, tag: str) -> bool:
        """Whether ``word`` may have ``tag``: a word the lexicon knows (seen ``min_count`` times with some
        tag) only with a tag it was seen with; an unknown word with any."""
        seen = self.tags_of.get(word.lower() if self.lowercase else word)
        return seen is None or tag in seen

    def __len__(self) -> int:
        return sum(len(v) for v in self.words.values())


class Collocations:
    """How often a word of a tag comes right before a word in a tagged corpus (words lower-cased): ``counts`` maps
    ``(tag, the next word)`` to the counts of the words of that tag seen right before it. :meth:`before` restricts
    the tags of ``min_count`` (tag -> the fewest times a pair must have been seen); other tags are free."""

    def __init__(self, counts: Mapping[tuple[str, str], Mapping[str, int]], min_count: Mapping[str, int]) -> None:
        self.counts = {k: dict(v) for k, v in counts.items()}
        self.min_count = {t: int(n) for t, n in min_count.items()}

    @classmethod
    def count(cls, sentences: Iterable[tuple[Sequence[str], Sequence[str]]], min_count: Mapping[str, int],
              top: int | None) -> Collocations:
        """The pairs of ``sentences`` (``(words, PTB tags)``) whose first word has a tag of ``min_count`` and is one
        of the ``top`` words of its tag seen most often in such pairs (null: any; ties alphabetical). A word keeps
        the spelling it has most often (ties: the first in sorted order), so proper adjectives keep their
        capital."""
        counts: dict[tuple[str, str], Counter[str]] = {}
        spellings: dict[str, Counter[str]] = {}
        for words, tags in sentences:
            for i in range(len(words) - 1):
                if tags[i] in min_count:
                    w = words[i].lower()
                    counts.setdefault((tags[i], words[i + 1].lower()), Counter())[w] += 1
                    spellings.setdefault(w, Counter())[words[i]] += 1
        if top is not None:
            totals: dict[str, Counter[str]] = {}
            for (tag, _), c in counts.items():
                totals.setdefault(tag, Counter()).update(c)
            keep = {t: set(sorted(c, key=lambda w: (-c[w], w))[: int(top)]) for t, c in totals.items()}
            counts = {k: Counter({w: n for w, n in c.items() if w in keep[k[0]]}) for k, c in counts.items()}
        spelled = {w: sorted(c, key=lambda v: (-c[v], v))[0] for w, c in spellings.items()}
        return cls({k: {spelled[w]: n for w, n in c.items()} for k, c in counts.items() if c}, min_count)

    def restricts(self, tag: str) -> bool:
        """Whether a fill of ``tag`` must have been seen before the word after its mask."""
        return tag in self.min_count

    def before(self, tag: str, word: str | None) -> list[str]:
        """The words of ``tag`` seen right before ``word`` at least ``min_count[tag]`` times, most often first
        (ties alphabetical); none after the sentence's last word (``word`` ``None``)."""
        if word is None:
            return []
        c = self.counts.get((tag, word.lower()), {})
        n = self.min_count.get(tag, 1)
        return sorted((w for w, k in c.items() if k >= n), key=lambda w: (-c[w], w))

    def filtered(self, keep: Callable[[str, str], bool]) -> Collocations:
        """The same counts with only the words ``keep(word, tag)`` allows."""
        counts = {k: {w: n for w, n in v.items() if keep(w, k[0])} for k, v in self.counts.items()}
        return Collocations({k: v for k, v in counts.items() if v}, self.min_count)


def _request_tag(tokens: Sequence[str], position: int) -> str:
    tag = mask_tag(tokens[position])
    if tag is None:
        raise ValueError(f"tokens[{position}] = {tokens[position]!r} is not a mask placeholder {{TAG}}")
    return tag


class LexiconOptions(Block):
    """``s2lct.expansion.fill.lexicon``: the prepared corpora whose (word, PTB tag) pairs make the
    :class:`TaggedLexicon`, its ``min_count`` and ``max_per_tag`` (null: no limit), and ``lowercase``
    (the words lower-cased before they are counted)."""

    corpora: tuple[str, ...]
    min_count: int
    max_per_tag: int | None
    lowercase: bool


class LexiconLMFillConfig(Block):
    """The keys of ``s2lct.expansion.fill`` that ``lexicon_lm`` reads: the lexicon, the words after the mask
    the LM scores (``lm_window``; null: the whole sentence) and the lexicon words per mask it ranks
    (``lm_candidates``; null: all)."""

    lexicon: LexiconOptions
    lm_window: int | None
    lm_candidates: int | None


class LexiconLMFillProposer(FillProposerBase):
    name = "lexicon_lm"
    score_kind = "logprob"
    Config = LexiconLMFillConfig

    @classmethod
    def from_config(cls, config: LexiconLMFillConfig, parts: Any) -> LexiconLMFillProposer:
        """``parts`` (:class:`lingtest.s2lct.components.FillParts`): the tagged words of the lexicon's
        corpora, the causal LM of ``resources.lm``, the score grid and S2LCT's prefilter."""
        lc = config.lexicon
        lexicon = TaggedLexicon(parts.tagged_words(lc.corpora), min_count=lc.min_count, max_per_tag=lc.max_per_tag,
                                lowercase=lc.lowercase)
        return cls(lexicon, parts.lm_scorer(None), grid=parts.score_grid, window=config.lm_window,
                   max_candidates=config.lm_candidates, prefilter=parts.prefilter)

    def __init__(self, lexicon: TaggedLexicon, scorer: Any, *, grid: ScoreGrid, window: int | None,
                 max_candidates: int | None, prefilter: Callable[[str, str], bool] | None = None) -> None:
        self.lexicon = lexicon
        self.scorer = scorer
        self.grid = grid
        self.window = None if window is None else int(window)
        self.max_candidates = None if max_candidates is None else int(max_candidates)
        self.prefilter = prefilter
        self.texts_scored = 0

    def _candidates(self, tag: str, original: Sequence[str]) -> list[str]:
        """The most frequent ``max_candidates`` words of the tag that pass ``prefilter`` and are not
        in the sentence already."""
        out = []
        present = {w.lower() for w in original}
        for w in self.lexicon.candidates(tag):
            if w in present or (self.prefilter is not None and not self.prefilter(w, tag)):
                continue
            out.append(w)
            if self.max_candidates is not None and len(out) >= self.max_candidates:
                break
        return out

    def propose_many(self, requests: Sequence[FillRequest], k: int) -> list[list[Fill]]:
        groups: list[list[str]] = []
        cands: list[list[str]] = []
        for tokens, position in requests:
            check_request(tokens, position, k)
            tag = _request_tag(tokens, position)
            words = self._candidates(tag, tokens)
            left = " ".join(tokens[:position])
            right_toks = list(tokens[position + 1:])
            if self.window is not None:
                right_toks = right_toks[: self.window]
            right = (" " + " ".join(right_toks)) if right_toks else ""
            prefix = (left + " ") if left else ""
            groups.append([prefix + w + right for w in words])
            cands.append(words)
        scores = self.scorer.score_grouped(groups, relative=True) if any(groups) else [[] for _ in groups]
        self.texts_scored += sum(len(g) for g in groups)
        out: list[list[Fill]] = []
        for words, sc in zip(cands, scores, strict=True):
            fills = [Fill(w, self.grid.round("logprob", s)) for w, s in zip(words, sc, strict=True)]
            out.append(stable_ranking(fills, lambda f: f.score, lambda f: f.word)[:k])
        return out


class MaskedLMFill(FillProposerBase):
    """The shared masked-LM proposer at a ``{TAG}`` placeholder; ``prefilter`` as above."""

    name = "masked_lm"
    score_kind = "prob"
    Config = MaskedLMFillConfig

    @classmethod
    def from_config(cls, config: MaskedLMFillConfig, parts: Any) -> MaskedLMFill:
        """The shared masked-LM proposer of ``masked_lm`` (loaded on first use), S2LCT's prefilter."""
        return cls(MaskedLMFillProposer.from_config(config, parts), prefilter=parts.prefilter)

    def __init__(self, proposer: Any, *, prefilter: Callable[[str, str], bool] | None = None) -> None:
        self.proposer = proposer
        self.prefilter = prefilter

    def propose_many(self, requests: Sequence[FillRequest], k: int) -> list[list[Fill]]:
        tags = [_request_tag(t, p) for t, p in requests]
        got = self.proposer.propose_many(requests, k)
        out = []
        for tag, fills in zip(tags, got, strict=True):
            out.append([f for f in fills if self.prefilter is None or self.prefilter(f.word, tag)])
        return out


# ---- lm_next: the causal LM's own next words ---------------------------------------------------------
#: the marks a tokenizer puts before a word's first piece: SentencePiece's ``▁``, byte-level BPE's ``Ġ``
WORD_MARKERS = ("\u2581", "\u0120")


def piece_role(piece: str) -> str | None:
    """What a vocabulary piece can be in a whole alphanumeric word: ``"start"`` (a word mark, then letters or
    digits: a word after a space), ``"bare"`` (letters or digits alone: a word's continuation, or the first
    word of a text), else ``None`` (punctuation, spaces, bytes, special tokens)."""
    if piece[:1] in WORD_MARKERS:
        return "start" if piece[1:].isalnum() else None
    return "bare" if piece.isalnum() else None


@dataclass(frozen=True)
class WordPieces:
    """A tokenizer's vocabulary by :func:`piece_role`: ``pieces`` (the piece of each id), ``starts`` and
    ``bare`` (boolean lists over the ids)."""

    pieces: list[str]
    starts: list[bool]
    bare: list[bool]

    @classmethod
    def from_pieces(cls, pieces: Sequence[str]) -> WordPieces:
        roles = [piece_role(p) for p in pieces]
        return cls(list(pieces), [r == "start" for r in roles], [r == "bare" for r in roles])

    @classmethod
    def from_tokenizer(cls, tokenizer: Any, size: int) -> WordPieces:
        """The pieces of ids ``0 .. size - 1`` (``size``: the model's output vocabulary, which can be larger
        than the tokenizer's: the extra ids are no piece)."""
        n = min(int(size), len(tokenizer))
        pieces = [str(p) if p is not None else "" for p in tokenizer.convert_ids_to_tokens(list(range(n)))]
        return cls.from_pieces(pieces + [""] * (int(size) - n))

    def word(self, ids: Sequence[int]) -> str:
        """The word of a start piece and its continuations (the word mark dropped)."""
        text = "".join(self.pieces[i] for i in ids)
        return text[1:] if text[:1] in WORD_MARKERS else text


class NextWordSource(Protocol):
    def next_words(self, contexts: Sequence[str], n: int) -> list[list[tuple[str, float]]]:
        """For each left context, at most ``n`` whole next words with the log-probability of their first
        token, most probable first."""
        ...


class NextTokens:
    """The next-token distribution of a :class:`~lingtest.resources.lm.CausalLMScorer`'s model after a context
    (what :class:`CausalNextWords` reads): the context is BOS (when the scorer adds one) then its tokens,
    ``batch_size`` contexts per forward pass with the output head at their last position only; greedy
    continuations share their context in packed passes (:mod:`lingtest.resources.lm_packing`, as the scorer's
    ``score_grouped``)."""

    def __init__(self, scorer: Any) -> None:
        self.scorer = scorer

    def context_ids(self, context: str) -> list[int]:
        """BOS, then the context's tokens (an empty context: BOS alone; without BOS a ValueError)."""
        sc = self.scorer
        ids = list(sc.tokenizer(context, add_special_tokens=False)["input_ids"]) if context else []
        if sc.bos_id is not None:
            ids = [sc.bos_id, *ids]
        if not ids:
            raise ValueError("an empty context without a BOS token has no next-token distribution")
        return ids[-sc.max_length:]

    def _last_hidden(self, seqs: list[list[int]]) -> Any:
        """The last layer's hidden state at the last token of each sequence (one right-padded batch)."""
        import torch

        sc = self.scorer
        width = max(len(s) for s in seqs)
        ids = torch.full((len(seqs), width), sc.pad_id, dtype=torch.long)
        mask = torch.zeros((len(seqs), width), dtype=torch.long)
        for i, s in enumerate(seqs):
            ids[i, : len(s)] = torch.tensor(s, dtype=torch.long)
            mask[i, : len(s)] = 1
        out = sc.model.base_model(input_ids=ids.to(sc.device), attention_mask=mask.to(sc.device), use_cache=False)
        last = torch.tensor([len(s) - 1 for s in seqs], dtype=torch.long, device=sc.device)
        return out.last_hidden_state[torch.arange(len(seqs), device=sc.device), last]

    def _head_logits(self, hidden: Any) -> Any:
        """The output head's float32 logits of ``hidden`` (rows), soft-capped as the model's final logits are."""
        import torch

        model = self.scorer.model
        logits = model.get_output_embeddings()(hidden).float()
        cap = getattr(getattr(model, "config", None), "final_logit_softcapping", None)
        return torch.tanh(logits / cap) * cap if cap else logits

    def _head_argmax(self, hidden: Any) -> list[int]:
        """The id of the largest output-head logit of each hidden state, ``vocab_chunk`` columns at a time
        (soft-capping keeps the order); equal logits: the lower id."""
        import torch

        head = self.scorer.model.get_output_embeddings()
        if not isinstance(head, torch.nn.Linear):
            return [int(i) for i in self._head_logits(hidden).argmax(dim=-1).tolist()]
        W, b = head.weight, head.bias
        step = int(self.scorer.vocab_chunk)
        best_v = torch.full((hidden.shape[0],), -math.inf, device=hidden.device)
        best_i = torch.zeros(hidden.shape[0], dtype=torch.long, device=hidden.device)
        for v in range(0, W.shape[0], step):
            lg = torch.nn.functional.linear(hidden, W[v:v + step], None if b is None else b[v:v + step]).float()
            m, i = lg.max(dim=-1)
            better = m > best_v
            best_v = torch.where(better, m, best_v)
            best_i = torch.where(better, i + v, best_i)
        return [int(i) for i in best_i.tolist()]

    def _packable(self, seqs: list[list[int]]) -> bool:
        """Whether sequences can share a packed pass: an attention implementation that honours a custom 4D mask
        and every sequence within the model's sliding window."""
        cfg = getattr(self.scorer.model, "config", None)
        if getattr(cfg, "_attn_implementation", None) not in (None, "eager", "sdpa"):
            return False
        window = getattr(cfg, "sliding_window", None)
        return not (window and max(len(s) for s in seqs) > int(window))

    def top_next_tokens(self, contexts: Sequence[str], k: int, allowed: Any) -> list[list[tuple[int, float]]]:
        """The ``k`` most probable next tokens after each context (``(token id, log-probability)``, best first)
        among the ids where the boolean vocabulary mask ``allowed`` is true (``None``: every id)."""
        import torch

        sc = self.scorer
        encoded = [self.context_ids(c) for c in contexts]
        order = sorted(range(len(contexts)), key=lambda i: (len(encoded[i]), i))
        out: list[list[tuple[int, float]]] = [[] for _ in contexts]
        keep = None if allowed is None else torch.as_tensor(allowed, dtype=torch.bool)
        with torch.inference_mode():
            for s in range(0, len(order), int(sc.batch_size)):
                batch = order[s:s + int(sc.batch_size)]
                lp = torch.log_softmax(self._head_logits(self._last_hidden([encoded[i] for i in batch])), dim=-1).cpu()
                if keep is not None:
                    lp = lp.masked_fill(~keep[: lp.shape[-1]], -math.inf)
                vals, idx = torch.topk(lp, min(int(k), lp.shape[-1]), dim=-1)
                for row, i in enumerate(batch):
                    out[i] = [(int(t), float(v)) for t, v in zip(idx[row].tolist(), vals[row].tolist(), strict=True)
                              if math.isfinite(v)]
        return out

    def _argmax_next(self, jobs: list[tuple[list[int], list[list[int]]]]) -> list[list[int]]:
        """The most probable next token after ``context + c`` for every continuation ``c`` of each job
        ``(context ids, continuations)``: packable jobs share their context in packed passes, others go through
        right-padded batches."""
        import torch

        from lingtest.resources.lm_packing import pack_groups, packed_size, plan_passes

        sc = self.scorer
        out: list[list[int]] = [[] for _ in jobs]
        packed: list[tuple[int, list[list[int]], int]] = []
        for j, (ctx, conts) in enumerate(jobs):
            seqs = [[*ctx, *c, sc.pad_id] for c in conts]  # the pad: a target nobody reads
            if conts and self._packable(seqs):
                packed.append((j, seqs, len(ctx)))
            elif conts:
                full = [[*ctx, *c] for c in conts]
                bs = int(sc.batch_size)
                out[j] = self._head_argmax(torch.cat([self._last_hidden(full[s:s + bs])
                                                      for s in range(0, len(full), bs)]))
        passes = plan_passes([(len(seqs), packed_size(seqs, p)) for _, seqs, p in packed],
                             max_texts=int(sc.group_batch_size), max_tokens=int(sc.pack_tokens))
        dev = sc.device
        dtype = next(sc.model.parameters()).dtype
        for members in passes:
            batch = [packed[m] for m in members]
            pk = pack_groups([s for _, s, _ in batch], [p for _, _, p in batch], relative=True)
            res = sc.model.base_model(input_ids=torch.tensor([pk.ids], dtype=torch.long, device=dev),
                                      attention_mask=pk.additive_mask(dtype).to(dev),
                                      position_ids=torch.tensor([pk.positions], dtype=torch.long, device=dev),
                                      use_cache=False)
            last: dict[int, int] = {}
            for row, owner in zip(pk.head_rows, pk.owners, strict=True):  # a text's last row predicts the pad
                last[owner] = row
            rows = torch.tensor([last[r] for r in range(len(last))], dtype=torch.long, device=dev)
            ids = self._head_argmax(res.last_hidden_state[0][rows])
            r = 0
            for j, seqs, _ in batch:
                out[j] = ids[r:r + len(seqs)]
                r += len(seqs)
        return out

    def greedy_continuations(self, contexts: Sequence[str], starts: Sequence[Sequence[int]], extend: Any,
                             max_tokens: int) -> list[list[list[int]]]:
        """For each context and each of its start token ids: the start token, then the most probable next token
        (greedy) for as long as the boolean vocabulary mask ``extend`` allows it, ``max_tokens`` tokens at most."""
        import torch

        if len(starts) != len(contexts):
            raise ValueError(f"{len(starts)} lists of start tokens for {len(contexts)} contexts")
        if max_tokens < 1:
            raise ValueError(f"max_tokens must be positive, got {max_tokens}")
        ok = [bool(x) for x in torch.as_tensor(extend, dtype=torch.bool).tolist()]
        encoded = [self.context_ids(c) for c in contexts]
        words = [[[int(t)] for t in s] for s in starts]
        live = [list(ws) for ws in words]  # the continuations still growing
        with torch.inference_mode():
            for _ in range(max_tokens - 1):
                if not any(live):
                    break
                nxt = self._argmax_next([(encoded[i], live[i]) for i in range(len(contexts))])
                for i, conts in enumerate(live):
                    grown = []
                    for w, t in zip(conts, nxt[i], strict=True):
                        if 0 <= t < len(ok) and ok[t]:
                            w.append(t)
                            grown.append(w)
                    live[i] = grown
        return words


class CausalNextWords:
    """Whole next words from a causal LM's next-token distribution (``lm``: :class:`NextTokens`, or anything
    with its ``top_next_tokens`` and ``greedy_continuations``) and its vocabulary's ``pieces``: the ``n`` most
    probable tokens that start a word (after a non-empty context: a word-mark piece; at the start of a text: a bare
    piece), first-token log-probabilities rounded to ``grid``'s ``logprob`` decimals and taken best first,
    equal ones by piece (the cut at ``n`` on the grid, from twice as many tokens); a first token that is a
    word ``known`` knows is a whole word, any other is continued greedily while the most probable next token
    is a bare piece, ``max_pieces`` tokens at most (``known`` null: every first token is); a word reached
    twice is kept once (its first place)."""

    def __init__(self, lm: Any, pieces: WordPieces, *, grid: ScoreGrid, max_pieces: int,
                 known: Callable[[str], bool] | None) -> None:
        self.lm = lm
        self.pieces = pieces
        self.grid = grid
        self.max_pieces = int(max_pieces)
        self.known = known
        self.continued = 0  # first tokens continued greedily

    @classmethod
    def of_scorer(cls, scorer: Any, *, grid: ScoreGrid, max_pieces: int,
                  known: Callable[[str], bool] | None) -> CausalNextWords:
        """Next words from a causal-LM scorer's model (:class:`NextTokens`) and its tokenizer's pieces."""
        size = int(scorer.model.get_output_embeddings().weight.shape[0])
        return cls(NextTokens(scorer), WordPieces.from_tokenizer(scorer.tokenizer, size), grid=grid,
                   max_pieces=max_pieces, known=known)

    def _first_tokens(self, contexts: Sequence[str], n: int) -> list[list[tuple[int, float]]]:
        """The ``n`` best word-starting tokens after each context, on the grid (see the class)."""
        out: list[list[tuple[int, float]]] = [[] for _ in contexts]
        for at_start, allowed in ((False, self.pieces.starts), (True, self.pieces.bare)):
            idx = [i for i, c in enumerate(contexts) if (c == "") == at_start]
            if not idx:
                continue
            got = self.lm.top_next_tokens([contexts[i] for i in idx], 2 * n, allowed)
            for i, toks in zip(idx, got, strict=True):
                ranked = sorted(((t, self.grid.round("logprob", lp)) for t, lp in toks),
                                key=lambda p: (-p[1], self.pieces.pieces[p[0]], p[0]))
                out[i] = ranked[:n]
        return out

    def _whole(self, token: int) -> bool:
        """Whether a first token is taken as a whole word without asking the LM: a word ``known`` knows."""
        return self.known is not None and self.known(self.pieces.word([token]))

    def next_words(self, contexts: Sequence[str], n: int) -> list[list[tuple[str, float]]]:
        firsts = self._first_tokens(contexts, n)
        todo = [[t for t, _ in f if not self._whole(t)] for f in firsts]
        self.continued += sum(len(t) for t in todo)
        grown = (self.lm.greedy_continuations(contexts, todo, self.pieces.bare, self.max_pieces)
                 if any(todo) else [[] for _ in contexts])
        out: list[list[tuple[str, float]]] = []
        for first, more in zip(firsts, grown, strict=True):
            longer = {ids[0]: ids for ids in more}
            seen: dict[str, float] = {}
            for t, lp in first:
                seen.setdefault(self.pieces.word(longer.get(t, [t])), lp)
            out.append(list(seen.items()))
        return out


#: ``tag(list of word lists) -> list of tag lists`` (the expander's tagger, :data:`lingtest.s2lct.expand.Tagger`)
Tagger = Callable[[list[list[str]]], list[list[str]]]


@runtime_checkable
class TagsInContext(Protocol):
    """A proposer that keeps only the words whose tag in context is the mask's, with the tagger the expander
    gives it (``tagger``; ``None``: no such filter)."""

    tagger: Tagger | None


class LMNextOptions(Block):
    """``s2lct.expansion.fill.lm_next``: ``candidates`` (next words per mask taken from the LM),
    ``lexicon_candidates`` (the tag filter's most frequent words of the mask's tag added to them; 0: none),
    ``max_pieces`` (tokens a word is continued to), ``window`` (words after the mask the rescoring reads;
    null: the whole sentence; 0: the word alone), ``rescore`` (the best this many are scored again against the
    sentence without them; null: not), ``rescore_window`` (the words after the mask that second scoring reads;
    null: the whole sentence) and ``tag_filter`` (a lexicon a known word must have been seen in with the
    mask's tag; null: none)."""

    candidates: int
    lexicon_candidates: int
    max_pieces: int
    window: int | None
    rescore: int | None
    rescore_window: int | None
    tag_filter: LexiconOptions | None


class LMNextFillConfig(Block):
    """The keys of ``s2lct.expansion.fill`` that ``lm_next`` reads."""

    lm_next: LMNextOptions


def request_texts(tokens: Sequence[str], position: int, words: Sequence[str], window: int | None) -> list[str]:
    """``left context + word + the next window words`` for each word (``window`` null: the whole rest)."""
    right = list(tokens[position + 1:])
    if window is not None:
        right = right[:window]
    prefix = " ".join(tokens[:position])
    tail = (" " + " ".join(right)) if right else ""
    return [(prefix + " " if prefix else "") + w + tail for w in words]


def without_mask(tokens: Sequence[str], position: int, window: int | None) -> str:
    """The request's sentence without its mask: the left context and the next ``window`` words (null: all)."""
    right = list(tokens[position + 1:])
    return " ".join([*tokens[:position], *(right if window is None else right[:window])])


def insertion_gain(with_word: float, without: float, grid: ScoreGrid) -> float:
    """How much more (> 0) or less (< 0) probable the sentence is with the inserted word than without it: the
    difference of two summed log-probabilities (the word's own log-probability included), on the ``logprob``
    grid."""
    return grid.round("logprob", with_word - without)


def cased_like(tokens: Sequence[str], position: int, words: Sequence[str]) -> list[str]:
    """``words`` for the mask at ``position``: lower-cased (and then each kept once, first place) when the rest of
    the sentence has no capital letter (a lower-cased corpus such as S2LCT's HateXplain search), else as they
    are."""
    if any(ch.isupper() for i, t in enumerate(tokens) if i != position for ch in t):
        return list(words)
    return list(dict.fromkeys(w.lower() for w in words))


def tagged_in_context(tagger: Tagger, requests: Sequence[FillRequest], tags: Sequence[str],
                      cands: Sequence[Sequence[str]]) -> list[list[str]]:
    """The words of ``cands`` (per request) that ``tagger`` tags with the request's mask tag (``tags``) in the
    request's sentence (one tagger call for every request)."""
    sents = [[*t[:p], w, *t[p + 1:]] for (t, p), ws in zip(requests, cands, strict=True) for w in ws]
    got = iter(tagger(sents) if sents else [])
    out: list[list[str]] = []
    for (t, p), tag, ws in zip(requests, tags, cands, strict=True):
        keep = []
        for w in ws:
            wt = next(got)
            if len(wt) == len(t) and wt[p] == tag:
                keep.append(w)
        out.append(keep)
    return out


class LMNextFillProposer(FillProposerBase):
    name = "lm_next"
    score_kind = "logprob"
    Config = LMNextFillConfig

    @classmethod
    def from_config(cls, config: LMNextFillConfig, parts: Any) -> LMNextFillProposer:
        """``parts`` (:class:`lingtest.s2lct.components.FillParts`): the causal LM of ``resources.lm``, the
        score grid, the tagged words of the tag filter's corpora and S2LCT's prefilter."""
        o = config.lm_next
        scorer = parts.lm_scorer(None)
        grid = parts.score_grid
        lexicon = None
        if o.tag_filter is not None:
            tf = o.tag_filter
            lexicon = TaggedLexicon(parts.tagged_words(tf.corpora), min_count=tf.min_count,
                                    max_per_tag=tf.max_per_tag, lowercase=tf.lowercase)
        words = CausalNextWords.of_scorer(scorer, grid=grid, max_pieces=o.max_pieces,
                                          known=lexicon.knows if lexicon is not None else None)
        return cls(words, scorer, grid=grid, candidates=o.candidates, lexicon_candidates=o.lexicon_candidates,
                   window=o.window, rescore=o.rescore,
                   rescore_window=o.rescore_window, tag_lexicon=lexicon, prefilter=parts.prefilter, tagger=None)

    def __init__(self, words: NextWordSource, scorer: Any, *, grid: ScoreGrid, candidates: int, window: int | None,
                 tag_lexicon: TaggedLexicon | None, prefilter: Callable[[str, str], bool] | None,
                 tagger: Tagger | None, lexicon_candidates: int = 0, rescore: int | None = None,
                 rescore_window: int | None = None) -> None:
        self.words = words
        self.scorer = scorer
        self.grid = grid
        self.candidates = int(candidates)
        self.lexicon_candidates = int(lexicon_candidates)
        self.rescore = None if rescore is None else int(rescore)
        self.rescore_window = None if rescore_window is None else int(rescore_window)
        self.window = None if window is None else int(window)
        self.tag_lexicon = tag_lexicon
        self.prefilter = prefilter
        self.tagger = tagger  # the expander's tagger (set when it is built): the tag of each word in context
        self.collocations: Collocations | None = None  # set by the expander: pairs a fill must have been seen in
        self.texts_scored = 0
        self.texts_tagged = 0

    def allowed(self, word: str, tag: str) -> bool:
        """Whether ``word`` may fill a ``tag`` mask before the LM rescores it (step 2 of the module notes; a
        one-character word only when the tag lexicon knows it: ``a``, ``I``, not a stray ``s``)."""
        if not word.isalnum():
            return False
        if len(word) < 2 and (self.tag_lexicon is None or not self.tag_lexicon.knows(word)):
            return False
        if self.tag_lexicon is not None and not self.tag_lexicon.allows(word, tag):
            return False
        return self.prefilter is None or self.prefilter(word, tag)

    def _collocated(self, tokens: Sequence[str], position: int, tag: str) -> list[str] | None:
        """For a tag ``collocations`` restricts: the words seen right before the word after the mask (most often
        first, at most ``candidates``) that :meth:`allowed` keeps; ``None`` for other tags."""
        col = self.collocations
        if col is None or not col.restricts(tag):
            return None
        nxt = tokens[position + 1] if position + 1 < len(tokens) else None
        seen = [w for w in cased_like(tokens, position, col.before(tag, nxt)) if self.allowed(w, tag)]
        return seen[: self.candidates]

    def _with_lexicon(self, words: list[str], tag: str) -> list[str]:
        """``words``, then the ``lexicon_candidates`` most frequent words of ``tag`` in the tag lexicon that
        :meth:`allowed` keeps and ``words`` lacks (case-insensitive)."""
        if self.tag_lexicon is None or self.lexicon_candidates <= 0:
            return words
        have = {w.lower() for w in words}
        extra = [w for w in self.tag_lexicon.candidates(tag) if w.lower() not in have and self.allowed(w, tag)]
        return [*words, *extra[: self.lexicon_candidates]]

    def propose_many(self, requests: Sequence[FillRequest], k: int) -> list[list[Fill]]:
        tags: list[str] = []
        for tokens, position in requests:
            check_request(tokens, position, k)
            tag = mask_tag(tokens[position])
            if tag is None:
                raise ValueError(f"tokens[{position}] = {tokens[position]!r} is not a mask placeholder {{TAG}}")
            tags.append(tag)
        fixed = [self._collocated(t, p, tag) for (t, p), tag in zip(requests, tags, strict=True)]
        ask = [i for i, f in enumerate(fixed) if f is None]
        nexts = self.words.next_words([" ".join(requests[i][0][: requests[i][1]]) for i in ask],
                                      self.candidates) if ask else []
        cands = [f or [] for f in fixed]
        for i, ws in zip(ask, nexts, strict=True):
            (t, p), tag = requests[i], tags[i]
            cands[i] = self._with_lexicon([w for w in cased_like(t, p, [w for w, _ in ws]) if self.allowed(w, tag)],
                                          tag)
        if self.tagger is not None:
            self.texts_tagged += sum(len(c) for c in cands)
            cands = tagged_in_context(self.tagger, requests, tags, cands)
        ranked = self._ranked(requests, cands, self.window)
        if self.rescore is not None:
            ranked = self._gain_ranked(requests, [[f.word for f in r[: self.rescore]] for r in ranked],
                                       self.rescore_window)
        return [r[:k] for r in ranked]

    def _ranked(self, requests: Sequence[FillRequest], cands: Sequence[Sequence[str]],
                window: int | None) -> list[list[Fill]]:
        """Each request's words scored as ``left context + word + the next window words`` (the shared left context
        left out), on the grid, best first (equal scores by word)."""
        groups = [request_texts(t, p, ws, window) for (t, p), ws in zip(requests, cands, strict=True)]
        scores = self.scorer.score_grouped(groups, relative=True) if any(groups) else [[] for _ in groups]
        self.texts_scored += sum(len(g) for g in groups)
        out: list[list[Fill]] = []
        for words, sc in zip(cands, scores, strict=True):
            fills = [Fill(w, self.grid.round("logprob", s)) for w, s in zip(words, sc, strict=True)]
            out.append(stable_ranking(fills, lambda f: f.score, lambda f: f.word))
        return out

    def _gain_ranked(self, requests: Sequence[FillRequest], cands: Sequence[Sequence[str]],
                     window: int | None) -> list[list[Fill]]:
        """Each request's words scored by their gain (:func:`insertion_gain`): the log-probability of ``left context
        + word + the next window words`` minus that of ``left context + the next window words`` (null: the whole
        sentence), on the grid, best first (equal scores by word)."""
        groups = [[without_mask(t, p, window), *request_texts(t, p, ws, window)] if ws else []
                  for (t, p), ws in zip(requests, cands, strict=True)]
        scores = self.scorer.score_grouped(groups, relative=True) if any(groups) else [[] for _ in groups]
        self.texts_scored += sum(len(g) for g in groups)
        out: list[list[Fill]] = []
        for words, sc in zip(cands, scores, strict=True):
            fills = [Fill(w, insertion_gain(s, sc[0], self.grid)) for w, s in zip(words, sc[1:], strict=True)]
            out.append(stable_ranking(fills, lambda f: f.score, lambda f: f.word))
        return out
