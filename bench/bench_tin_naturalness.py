"""Calibrate TIN's naturalness filter: how far SynEval falls under natural, meaning-preserving edits of real
CoNLL-2003 sentences, against how far it falls under corruptions of the same sentences.

The filter keeps a mutant s' of s when ``naturalness(s') >= naturalness(s) - epsilon`` (SynEval: ``0.6 * min
+ 0.4 * mean`` of the causal LM's token probabilities, on the score grid; :func:`lingtest.tin.filters.
naturalness_pairs`, the same scorer, weights, grid and packing as ``tin_generate``). A threshold means
something when the edits it must let through pass it and the damage it must stop does not. Sentences: a
seeded sample of the parsed CoNLL-2003 **train** split (``--repro``, read only; ``tin.min_tokens`` ..
``tin.max_tokens`` words, gold entities from the corpus). Per sentence, at most one edit of each kind
(seeded per sentence):

natural edits (the "real" side; one family per transformation)

* ``synonym`` (token level): a verb or adjective outside the gold entities replaced by a single-word
  synonym from its first two WordNet senses, inflected to its tag, the synonym seen at least 3 times in
  the train split (a real word of the domain);
* ``deletion`` (phrase level: an NP replaced by a shorter one): a removable modifier deleted - an
  attributive adjective before a common noun (not after *a/an*, not coordinated or itself modified) or an
  adverb modifying a verb (not a negation, degree or wh- word);
* ``entity_swap`` (shuffle): two whole gold entities of one type and one role trade places
  (:func:`lingtest.tin.transformations.shuffle.slot_key` on the gold entities);
* ``question`` (structural): the structural transformation's question.

Each natural edit is judged by a reader (``--judgements``, JSONL rows ``{"id", "natural": true/false,
"note"}``; ``--dump`` writes the edits to judge): only edits judged natural count as real pairs (an
unnatural "natural" edit the LM rightly rejects would inflate epsilon).

corruptions

* ``duplicate``: a word duplicated in place; ``adjacent_swap``: two adjacent words swapped;
* ``random_word``: a verb or adjective replaced by a random word of the same tag from the train split;
* ``entity_split``: a word of a multi-word gold entity moved out of it, elsewhere in the sentence.

For each family, ``epsilon_95`` is the smallest epsilon on the grid that keeps at least 95% of its real
pairs; the table gives, at each family's epsilon, at the pooled one (all real pairs) and at the
configured values, the share of each family kept and of each corruption rejected.

    .venv/bin/python bench/bench_tin_naturalness.py [--sentences 150] [--repro /work/repro]
        [--judgements bench/results/tin_naturalness_judgements.jsonl] [--dump FILE] [overrides ...]

Writes ``bench/results/tin_naturalness.json``.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import random
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from lingtest.environment import cpu_model  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]

REAL = ("synonym", "deletion", "entity_swap", "question")
CORRUPT = ("duplicate", "adjacent_swap", "random_word", "entity_split")
#: the transformation each natural edit stands for
FAMILY_OF = {"synonym": "token", "deletion": "phrase", "entity_swap": "shuffle", "question": "structural"}
FILL_TAGS = frozenset({"JJ", "JJR", "JJS", "VB", "VBD", "VBG", "VBN", "VBP", "VBZ"})
SKIP_LEMMAS = frozenset({"be", "have", "do", "will", "would", "can", "could", "may", "might", "shall", "should",
                         "must", "say"})
KEEP_ADVERBS_OUT = frozenset({"not", "n't", "never", "no", "so", "as", "too", "how", "when", "where", "why",
                              "very", "only", "just", "even", "more", "most", "less", "least", "then", "there",
                              "here", "also", "however"})
ARTICLES_AN = frozenset({"a", "an"})
SHARE = 0.95



def alpha(word: str) -> bool:
    return word.isalpha()


# ---- the sentences ------------------------------------------------------------------------------------
def load_sentences(path: Path, *, min_tokens: int, max_tokens: int) -> list[tuple[str, Any, list[Any]]]:
    """``(id, parsed sentence, gold entities)`` of every parsed train sentence within the length limits."""
    from lingtest.data.io import read_jsonl
    from lingtest.data.model import Document, Entity

    out = []
    for doc in read_jsonl(path, Document.from_dict):
        offsets = doc.sentence_offsets()
        for k, (sent, off) in enumerate(zip(doc.sentences, offsets, strict=True)):
            n = len(sent.tokens)
            if not min_tokens <= n <= max_tokens or sent.words[0] == "-DOCSTART-" or sent.tree is None:
                continue
            if any(t.tag is None or t.head is None for t in sent.tokens):
                continue
            gold = [Entity(e.start - off, e.end - off, e.label) for e in doc.entities
                    if off <= e.start and e.end <= off + n]
            out.append((f"{doc.id}/{k}", sent, sorted(gold)))
    return out


def vocabulary(sentences: Sequence[tuple[str, Any, list[Any]]]) -> tuple[Counter[str], dict[str, list[str]]]:
    """Lower-cased word counts, and the words seen with each fill tag (sorted, for the random words)."""
    counts: Counter[str] = Counter()
    by_tag: dict[str, set[str]] = {}
    for _, sent, _ in sentences:
        for t in sent.tokens:
            counts[t.text.lower()] += 1
            if t.tag in FILL_TAGS and t.text.isalpha() and t.text.islower():
                by_tag.setdefault(str(t.tag), set()).add(t.text)
    return counts, {k: sorted(v) for k, v in by_tag.items()}


# ---- natural edits ------------------------------------------------------------------------------------
def in_entity(i: int, gold: Sequence[Any]) -> bool:
    return any(e.start <= i < e.end for e in gold)


def synonym_edit(sent: Any, gold: Sequence[Any], rng: random.Random, wn: Any, counts: Counter[str]
                 ) -> tuple[list[str], dict[str, Any]] | None:
    from lingtest.resources.candidates.inflect import inflect_like, match_case

    words = sent.words
    options = []
    for i, t in enumerate(sent.tokens):
        if t.tag not in FILL_TAGS or in_entity(i, gold) or not alpha(t.text) or (t.lemma or "").lower() in SKIP_LEMMAS:
            continue
        pos = "v" if t.tag.startswith("VB") else "a"
        lemma = (t.lemma or t.text).lower()
        syns = []
        for s in [x for x in wn.synsets(lemma, pos=pos) if x.pos() in ((pos,) if pos == "v" else ("a", "s"))][:2]:
            for lem in s.lemmas():
                name = lem.name().lower()
                if name == lemma or "_" in name or not name.isalpha():
                    continue
                form = inflect_like(name, t.tag, "VERB" if pos == "v" else "ADJ")
                if form and form.isalpha() and counts[form.lower()] >= 3 and form.lower() != t.text.lower():
                    syns.append(form)
        for f in sorted(set(syns)):
            options.append((i, f))
    if not options:
        return None
    i, f = rng.choice(options)
    new = list(words)
    new[i] = match_case(f, words[i])
    return new, {"position": i, "old": words[i], "new": new[i]}


def deletion_edit(sent: Any, gold: Sequence[Any], rng: random.Random) -> tuple[list[str], dict[str, Any]] | None:
    toks = sent.tokens
    words = sent.words
    options = []
    for i, t in enumerate(toks):
        if i == 0 or in_entity(i, gold) or not alpha(t.text) or t.text.lower() in KEEP_ADVERBS_OUT:
            continue
        h = t.head
        if h is None or h < 0:
            continue
        has_kids = any(u.head == i for u in toks)
        nxt = words[i + 1].lower() if i + 1 < len(words) else ""
        if t.tag == "JJ" and t.dep == "amod" and toks[h].tag in ("NN", "NNS") and h > i and not has_kids:
            if words[i - 1].lower() in ARTICLES_AN or nxt in ("and", "or", ",") or words[i - 1].lower() in ("and", ","):
                continue
            options.append(i)
        elif t.tag == "RB" and t.dep == "advmod" and (toks[h].tag or "").startswith("VB") and not has_kids:
            if nxt in (",",) or words[i - 1] in (",",):
                continue
            options.append(i)
    if not options:
        return None
    i = rng.choice(options)
    return words[:i] + words[i + 1:], {"position": i, "old": words[i]}


def entity_swap_edit(sent: Any, gold: Sequence[Any], rng: random.Random
                     ) -> tuple[list[str], dict[str, Any]] | None:
    from lingtest.tin.mutant import TinSource
    from lingtest.tin.transformations.shuffle import EntityShuffle

    source = TinSource.from_sentence("s", sent, gold)
    shuffle = EntityShuffle(max_exhaustive=2, samples=1, seed=0, whole_phrases=True)
    pairs = []
    for key, slots in shuffle.groups(source):
        for a in range(len(slots)):
            for b in range(a + 1, len(slots)):
                if sent.words[slots[a].start:slots[a].end] != sent.words[slots[b].start:slots[b].end]:
                    pairs.append((key, slots[a], slots[b]))
    if not pairs:
        return None
    key, x, y = rng.choice(pairs)
    from lingtest.tin.transformations.shuffle import apply_permutation

    words, _ = apply_permutation(sent.words, [x, y], [1, 0])
    return words, {"group": list(key), "entities": [[x.start, x.end], [y.start, y.end]]}


def question_edit(sent: Any, gold: Sequence[Any]) -> tuple[list[str], dict[str, Any]] | None:
    from lingtest.tin.mutant import TinSource
    from lingtest.tin.transformations.structural import interrogative

    m = interrogative(TinSource.from_sentence("s", sent, gold))
    return None if m is None else (m.tokens, {"rule": m.params["rule"]})


# ---- corruptions --------------------------------------------------------------------------------------
def duplicate_edit(words: list[str], rng: random.Random) -> list[str] | None:
    options = [i for i, w in enumerate(words) if alpha(w)]
    if not options:
        return None
    i = rng.choice(options)
    return words[: i + 1] + [words[i]] + words[i + 1:]


def adjacent_swap_edit(words: list[str], rng: random.Random) -> list[str] | None:
    options = [i for i in range(len(words) - 1) if alpha(words[i]) and alpha(words[i + 1])
               and words[i].lower() != words[i + 1].lower()]
    if not options:
        return None
    i = rng.choice(options)
    return words[:i] + [words[i + 1], words[i]] + words[i + 2:]


def random_word_edit(sent: Any, gold: Sequence[Any], rng: random.Random, by_tag: dict[str, list[str]]
                     ) -> list[str] | None:
    from lingtest.resources.candidates.inflect import match_case

    words = sent.words
    options = [i for i, t in enumerate(sent.tokens) if t.tag in FILL_TAGS and not in_entity(i, gold)
               and alpha(t.text) and t.tag in by_tag]
    if not options:
        return None
    i = rng.choice(options)
    pool = [w for w in by_tag[str(sent.tokens[i].tag)] if w.lower() != words[i].lower()]
    if not pool:
        return None
    new = list(words)
    new[i] = match_case(rng.choice(pool), words[i])
    return new


def entity_split_edit(words: list[str], gold: Sequence[Any], rng: random.Random) -> list[str] | None:
    multi = [e for e in gold if e.end - e.start >= 2]
    if not multi:
        return None
    e = rng.choice(multi)
    j = rng.choice([e.start, e.end - 1])
    rest = words[:j] + words[j + 1:]
    # a new position outside the entity's remaining words (not back where it was)
    lo, hi = e.start, e.end - 1  # the entity's remaining words occupy [lo, hi) in ``rest``
    options = [k for k in range(len(rest) + 1) if not lo <= k <= hi and k != j]
    if not options:
        return None
    k = rng.choice(options)
    return rest[:k] + [words[j]] + rest[k:]


# ---- thresholds ---------------------------------------------------------------------------------------
def epsilon_for(deltas: Sequence[float], share: float, decimals: int) -> float:
    """The smallest epsilon (rounded up to ``decimals``) with ``delta >= -epsilon`` for at least ``share`` of
    ``deltas``."""
    ordered = sorted(deltas)
    allowed = len(ordered) - math.ceil(share * len(ordered))  # how many may fall below
    eps = max(0.0, -ordered[allowed])
    scale = 10 ** decimals
    return math.ceil(round(eps * scale, 6)) / scale


def rates_at(eps: float, deltas: dict[str, list[float]]) -> dict[str, float | None]:
    """Per kind: the share kept (``delta >= -eps``)."""
    return {k: (round(sum(d >= -eps - 1e-12 for d in v) / len(v), 4) if v else None) for k, v in deltas.items()}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sentences", type=int, default=150)
    ap.add_argument("--repro", default="/work/repro")
    ap.add_argument("--judgements", default=str(ROOT / "bench" / "results" / "tin_naturalness_judgements.jsonl"))
    ap.add_argument("--dump", default=None, help="write the natural edits to judge (JSONL) and stop")
    ap.add_argument("--out", default=str(ROOT / "bench" / "results" / "tin_naturalness.json"))
    ap.add_argument("overrides", nargs="*")
    args = ap.parse_args()

    from omegaconf import OmegaConf

    from lingtest.config import compose
    from lingtest.data.io import write_json
    from lingtest.data.model import stable_id
    from lingtest.resources.candidates.wordnet import load_wordnet
    from lingtest.resources.lm import scorer_from_config
    from lingtest.resources.naturalness import naturalness_pairs
    from lingtest.resources.scores import ScoreGrid
    from lingtest.tin.config import TinConfig
    from lingtest.tin.text import detokenize

    cfg = compose(args.overrides)
    t = TinConfig.from_config(cfg)
    path = Path(args.repro) / "data" / "parsed" / "conll2003" / "train.jsonl"
    pool = load_sentences(path, min_tokens=max(t.min_tokens, 8), max_tokens=min(t.max_tokens, 40))
    counts, by_tag = vocabulary(pool)
    picked = sorted(random.Random(t.seed).sample(range(len(pool)), args.sentences))
    wn = load_wordnet()
    edits: list[dict[str, Any]] = []
    for k in picked:
        sid, sent, gold = pool[k]
        rng = random.Random(stable_id("naturalness", t.seed, sid))
        words = sent.words
        made: dict[str, tuple[list[str], dict[str, Any]] | None] = {
            "synonym": synonym_edit(sent, gold, rng, wn, counts),
            "deletion": deletion_edit(sent, gold, rng),
            "entity_swap": entity_swap_edit(sent, gold, rng),
            "question": question_edit(sent, gold),
        }
        for kind, w in (("duplicate", duplicate_edit(words, rng)), ("adjacent_swap", adjacent_swap_edit(words, rng)),
                        ("random_word", random_word_edit(sent, gold, rng, by_tag)),
                        ("entity_split", entity_split_edit(words, gold, rng))):
            made[kind] = None if w is None else (w, {})
        for kind, got in made.items():
            if got is None or got[0] == words:
                continue
            new, params = got
            edits.append({"id": stable_id(sid, kind, new)[:16], "sentence": sid, "kind": kind,
                          "source": detokenize(words), "edit": detokenize(new), "params": params})
    if args.dump:
        with open(args.dump, "w", encoding="utf-8") as fh:
            for e in edits:
                if e["kind"] in REAL:
                    fh.write(json.dumps({k: e[k] for k in ("id", "kind", "source", "edit")}) + "\n")
        print(f"{sum(e['kind'] in REAL for e in edits)} natural edits to judge -> {args.dump}")
        return

    judged: dict[str, bool] = {}
    jpath = Path(args.judgements)
    if jpath.is_file():
        for line in jpath.read_text(encoding="utf-8").splitlines():
            if line.strip():
                row = json.loads(line)
                judged[str(row["id"])] = bool(row["natural"])
    grid = ScoreGrid.from_config(cfg.resources)
    lm = scorer_from_config(cfg.resources)
    t0 = time.perf_counter()
    scores = naturalness_pairs(lm, [(e["source"], e["edit"]) for e in edits], weight_min=t.filters.weight_min,
                               weight_mean=t.filters.weight_mean, grid=grid, packed=t.filters.packed)
    seconds = time.perf_counter() - t0
    deltas: dict[str, list[float]] = {k: [] for k in (*REAL, *CORRUPT)}
    unjudged: Counter[str] = Counter()
    unnatural: Counter[str] = Counter()
    rows = []
    for edit, (src, nat) in zip(edits, scores, strict=True):
        d = round(nat - src, 10)
        edit.update(naturalness_source=src, naturalness=nat, delta=d)
        rows.append(edit)
        if edit["kind"] in REAL:
            verdict = judged.get(edit["id"])
            if verdict is None:
                unjudged[edit["kind"]] += 1
                continue
            edit["natural"] = verdict
            if not verdict:
                unnatural[edit["kind"]] += 1
                continue
        deltas[edit["kind"]].append(d)
    decimals = grid.decimals("prob")
    eps = {FAMILY_OF[k]: epsilon_for(deltas[k], SHARE, decimals) for k in REAL if deltas[k]}
    pooled = epsilon_for([d for k in REAL for d in deltas[k]], SHARE, decimals)
    configured = sorted({float(v) for c in t.transformations.values() for v in c.epsilon.values()})
    table = []
    candidates = [(f"epsilon_95 {fam}", v) for fam, v in eps.items()] + [("epsilon_95 pooled", pooled)]
    candidates += [(f"configured {v}", v) for v in configured]
    for name, v in candidates:
        kept = rates_at(v, deltas)
        rejected = {k: None if (share := kept[k]) is None else round(1 - share, 4) for k in CORRUPT}
        table.append({"threshold": name, "epsilon": v, "real_kept": {k: kept[k] for k in REAL},
                      "corrupted_rejected": rejected})
    summary = {k: {"n": len(v), "median_delta": (sorted(v)[len(v) // 2] if v else None),
                   "min_delta": min(v) if v else None} for k, v in deltas.items()}
    out = {"benchmark": "tin_naturalness", "sentences": args.sentences, "pool": len(pool), "share": SHARE,
           "lm": OmegaConf.to_container(cfg.resources.lm, resolve=True), "weights": [t.filters.weight_min,
                                                                                       t.filters.weight_mean],
           "judgements": str(jpath.relative_to(ROOT)) if jpath.is_relative_to(ROOT) else str(jpath),
           "judged_unnatural": dict(unnatural), "unjudged": dict(unjudged), "deltas": summary,
           "epsilon_95": eps, "epsilon_95_pooled": pooled, "table": table, "seconds_scoring": round(seconds, 2),
           "edits": rows,
           "machine": {"python": platform.python_version(), "cpu": cpu_model(), "cores": os.cpu_count()}}
    write_json(args.out, out)
    for row in table:
        print(json.dumps(row))
    print(f"-> {args.out}")


if __name__ == "__main__":
    main()
