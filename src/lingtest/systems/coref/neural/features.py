"""What the neural mention-ranking model reads from a document: candidate mentions, word vectors from
a (frozen or fine-tuned) transformer encoder over segments, and gold antecedent labels.

* **Candidates** (:func:`candidate_mentions`): the parser-based mention detector of the sieve
  resolver (:func:`lingtest.systems.coref.mentions.detect_mentions`: maximal noun phrases,
  coordinations, pronouns, named entities; relative pronouns left out, as OntoNotes-style corpora
  do not mark them), spans up to any width, sorted by (start, end).
* **Word vectors** (:func:`word_vectors`): words go to the tokenizer pre-split; the subwords of whole
  sentences are packed into segments of at most ``max_segment`` subwords (special tokens included);
  a sentence longer than a segment is split at word boundaries and a word longer than a segment
  keeps its first subwords. Segments are encoded independently (Joshi et al. 2019's independent
  variant) and a word's vector is the mean of its subword states. A word the tokenizer turns into
  no subword at all (a lone control or zero-width character) is encoded as the unknown token, so
  word positions never shift.
* **Gold labels** (:func:`gold_cluster_ids`): the gold cluster of each candidate (-1: none).
* **Alignment check** (:func:`check_gold_spans`, :func:`check_perturbed_alignment`): a training
  document whose gold spans fall outside its tokens, or a perturbed document whose spans no longer
  sit on the words they sat on in its clean original, is an :class:`~lingtest.errors.InputError`
  naming document and mention: trained on, such documents teach the model that random spans corefer.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from lingtest.data.model import Document
from lingtest.errors import InputError

Span = tuple[int, int]


@dataclass(frozen=True, slots=True)
class Candidates:
    """Candidate mentions of one document: spans sorted by (start, end) with head token and sentence."""

    spans: tuple[Span, ...]
    heads: tuple[int, ...]
    sentences: tuple[int, ...]

    def __len__(self) -> int:
        return len(self.spans)


def candidate_mentions(doc: Document) -> Candidates:
    """Parser-based candidate mentions of a parsed document (see the module notes)."""
    from lingtest.systems.coref.mentions import ParsedDoc, detect_mentions

    pd = ParsedDoc.from_document(doc)
    found = sorted((m.start, m.end, m.head, m.sent)
                   for m in detect_mentions(pd, None, keep_relative_pronouns=False) if not m.relative)
    return Candidates(spans=tuple((s, e) for s, e, _, _ in found), heads=tuple(h for _, _, h, _ in found),
                      sentences=tuple(si for _, _, _, si in found))


def gold_cluster_ids(doc: Document, spans: Sequence[Span]) -> list[int]:
    """For each span, the index of the gold cluster it is a mention of, -1 when none."""
    of: dict[Span, int] = {}
    for ci, c in enumerate(doc.clusters):
        for m in c.mentions:
            of.setdefault((m.start, m.end), ci)
    return [of.get((int(s), int(e)), -1) for s, e in spans]


def check_gold_spans(doc: Document, where: str = "document") -> None:
    """Every gold mention lies inside the document's tokens."""
    n = sum(len(s.tokens) for s in doc.sentences)
    for ci, c in enumerate(doc.clusters):
        for m in c.mentions:
            if not 0 <= m.start < m.end <= n:
                raise InputError(f"{where} {doc.key!r}: cluster {ci} mention [{m.start}, {m.end}) lies outside its "
                                 f"{n} tokens", field="clusters")


def check_perturbed_alignment(clean: Document, perturbed: Document, where: str = "perturbed document") -> None:
    """A perturbed document changes only words inside gold mentions (Chai et al.'s attacks), so its
    gold spans must sit where the clean ones do: the same clusters with as many mentions, every
    mention at least as long as its clean original, and the same words outside all mentions in the
    same order, and between mentions the same words. Raises :class:`InputError` naming the document
    and the first mention that moved."""
    check_gold_spans(perturbed, where)
    if len(clean.clusters) != len(perturbed.clusters):
        raise InputError(f"{where} {perturbed.key!r}: {len(perturbed.clusters)} clusters, the clean document has "
                         f"{len(clean.clusters)}", field="clusters")
    cw, pw = clean.words, perturbed.words
    pairs: list[tuple[Span, Span]] = []
    for ci, (a, b) in enumerate(zip(clean.clusters, perturbed.clusters, strict=True)):
        if len(a.mentions) != len(b.mentions):
            raise InputError(f"{where} {perturbed.key!r}: cluster {ci} has {len(b.mentions)} mentions, the clean one "
                             f"{len(a.mentions)}", field="clusters")
        for ma, mb in zip(a.mentions, b.mentions, strict=True):
            if len(mb) < len(ma):
                raise InputError(f"{where} {perturbed.key!r}: cluster {ci} mention [{mb.start}, {mb.end}) is shorter "
                                 f"than its clean original [{ma.start}, {ma.end})", field="clusters")
            pairs.append(((ma.start, ma.end), (mb.start, mb.end)))
    inside_c = {i for (s, e), _ in pairs for i in range(s, e)}
    inside_p = {i for _, (s, e) in pairs for i in range(s, e)}
    outside_c = [(i, cw[i]) for i in range(len(cw)) if i not in inside_c]
    outside_p = [(i, pw[i]) for i in range(len(pw)) if i not in inside_p]
    if len(outside_c) != len(outside_p) or any(x[1] != y[1] for x, y in zip(outside_c, outside_p, strict=False)):
        bad = next(((x, y) for x, y in zip(outside_c, outside_p, strict=False) if x[1] != y[1]), None)
        at = f" (clean token {bad[0][0]} {bad[0][1]!r} vs perturbed token {bad[1][0]} {bad[1][1]!r})" if bad else ""
        raise InputError(f"{where} {perturbed.key!r}: the words outside the gold mentions differ from the clean "
                         f"document's{at}: its mention spans do not match its tokens", field="clusters")
    # the number of tokens before each mention grows exactly by the growth of the mentions before it
    for (cs, _), (ps, _) in pairs:
        before_c = sum(1 for i in range(cs) if i not in inside_c)
        before_p = sum(1 for i in range(ps) if i not in inside_p)
        if before_c != before_p:
            raise InputError(f"{where} {perturbed.key!r}: mention [{ps}, ...) starts after {before_p} words outside "
                             f"mentions, its clean original after {before_c}: the span moved", field="clusters")


# --------------------------------------------------------------------------------------------
# word vectors from a transformer encoder
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Segments:
    """Subword segments of one document: ``input_ids`` per segment (with special tokens) and, for each
    subword position of each segment, the word it belongs to (-1: special token)."""

    input_ids: tuple[tuple[int, ...], ...]
    word_of: tuple[tuple[int, ...], ...]
    n_words: int
    truncated_words: int


def segment_document(doc: Document, tokenizer: Any, max_segment: int) -> Segments:
    """Pack the subwords of ``doc`` into segments (see the module notes)."""
    if max_segment < 3:
        raise InputError(f"max_segment must be at least 3 subwords, got {max_segment}", field="max_segment")
    cls_id, sep_id = tokenizer.cls_token_id, tokenizer.sep_token_id
    if cls_id is None or sep_id is None:  # e.g. RoBERTa-style tokenizers name them bos/eos
        cls_id, sep_id = tokenizer.bos_token_id, tokenizer.eos_token_id
    specials = [t for t in (cls_id, sep_id) if t is not None]
    room = max_segment - len(specials)
    unk = tokenizer.unk_token_id if tokenizer.unk_token_id is not None else 0
    segs: list[list[tuple[int, int]]] = [[]]
    truncated = 0
    w = 0
    for sent in doc.sentences:
        words = [t.text for t in sent.tokens]
        pieces = _word_pieces(tokenizer, words, unk)
        size = sum(min(len(p), room) for p in pieces)
        if segs[-1] and len(segs[-1]) + size > room:
            segs.append([])  # a sentence starts a new segment when it does not fit
        for p in pieces:
            if len(p) > room:
                p = p[:room]
                truncated += 1
            if len(segs[-1]) + len(p) > room:
                segs.append([])
            segs[-1].extend((sub, w) for sub in p)
            w += 1
    ids_out, words_out = [], []
    for seg in segs:
        if not seg:
            continue
        ids = [sub for sub, _ in seg]
        of = [wi for _, wi in seg]
        if cls_id is not None:
            ids, of = [cls_id, *ids], [-1, *of]
        if sep_id is not None:
            ids, of = [*ids, sep_id], [*of, -1]
        ids_out.append(tuple(ids))
        words_out.append(tuple(of))
    return Segments(tuple(ids_out), tuple(words_out), w, truncated)


def _word_pieces(tokenizer: Any, words: list[str], unk: int) -> list[list[int]]:
    """The subword ids of every word of a sentence (tokenised together, so BPE tokenizers see the word
    boundaries); a word without subwords becomes the unknown token."""
    if not words:
        return []
    enc = tokenizer(words, is_split_into_words=True, add_special_tokens=False)
    pieces: list[list[int]] = [[] for _ in words]
    for sub, wi in zip(enc["input_ids"], enc.word_ids(), strict=True):
        if wi is not None:
            pieces[wi].append(int(sub))
    return [p or [unk] for p in pieces]


def word_vectors(encoder: Any, segments: Segments, device: str, pad_id: int) -> Any:
    """``[n_words, hidden]`` tensor: the mean subword state of every word (gradients flow when the
    encoder is in training mode and grad is enabled)."""
    import torch

    if not segments.input_ids:
        hidden = int(encoder.config.hidden_size)
        return torch.zeros((0, hidden), device=device)
    longest = max(len(s) for s in segments.input_ids)
    ids = torch.full((len(segments.input_ids), longest), pad_id, dtype=torch.long)
    mask = torch.zeros_like(ids)
    for i, s in enumerate(segments.input_ids):
        ids[i, :len(s)] = torch.tensor(s, dtype=torch.long)
        mask[i, :len(s)] = 1
    states = encoder(input_ids=ids.to(device), attention_mask=mask.to(device)).last_hidden_state
    flat_words = torch.tensor([w for of in segments.word_of for w in of], dtype=torch.long)
    rows = torch.cat([states[i, :len(of)] for i, of in enumerate(segments.word_of)], dim=0)
    keep = flat_words >= 0
    index = flat_words[keep].to(device)
    rows = rows[keep.to(device)]
    sums = torch.zeros((segments.n_words, rows.shape[1]), device=device, dtype=rows.dtype)
    sums.index_add_(0, index, rows)
    counts = torch.zeros((segments.n_words,), device=device, dtype=rows.dtype)
    counts.index_add_(0, index, torch.ones_like(index, dtype=rows.dtype))
    return sums / counts.clamp(min=1.0).unsqueeze(1)


def load_encoder(name: str, device: str) -> tuple[Any, Any]:
    """``(encoder, tokenizer)``: ``offline-default`` is the packaged MiniLM, an existing folder is read
    locally, anything else is a Hugging Face hub id (downloaded on first use)."""
    from transformers import AutoModel, AutoTokenizer

    from lingtest.errors import MissingResourceError
    from lingtest.resources.embeddings import resolve_embedder_model

    where = resolve_embedder_model(name)
    from pathlib import Path

    local = Path(where).is_dir()
    try:
        tok = AutoTokenizer.from_pretrained(where, local_files_only=local)
        enc = AutoModel.from_pretrained(where, local_files_only=local)
    except OSError as exc:
        raise MissingResourceError(f"cannot load encoder {name!r} ({exc}); a hub id needs a network on first use, "
                                   "or give a local folder") from exc
    enc.to(device)
    return enc, tok
