"""A causal language model's own next words: what it would write after a left context.

* :class:`NextTokens`: the next-token distribution of a :class:`~lingtest.resources.lm.CausalLMScorer`'s model
  after each context (``top_next_tokens``) and greedy continuations of given first tokens
  (``greedy_continuations``), batched, packed where the model allows.
* :class:`WordPieces`: a tokenizer's vocabulary by what each piece can be in a whole word (:func:`piece_role`).
* :class:`CausalNextWords`: whole next words after each context: the most probable word-starting tokens, each
  continued greedily while the most probable next token continues the word.

Fill proposers build on it: S2LCT's ``lm_next`` masks (:mod:`lingtest.s2lct.fill`) and CREST's ``lm_next``
candidates (:class:`lingtest.resources.candidates.lm_next.LMNextProposer`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from lingtest.resources.device import attention_guard
from lingtest.resources.scores import ScoreGrid

__all__ = ["WORD_MARKERS", "CausalNextWords", "NextTokens", "NextWordSource", "WordPieces", "piece_role"]

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
        with torch.inference_mode(), attention_guard(self.scorer.device):
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
        with torch.inference_mode(), attention_guard(self.scorer.device):
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
