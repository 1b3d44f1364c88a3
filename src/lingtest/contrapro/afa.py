"""Antecedent-free augmentation (AFA; the paper's section 4.7): find English ``it`` whose antecedent,
by a coreference system, is outside the current and the previous sentence, and write two training
sets in the concatenation layout (``previous <SEP> current`` on both sides, one pair per line):

* ``baseline``: the candidates only (the English pair and its German reference);
* ``augmented``: each candidate and two copies whose German pronoun is set to the other two genders
  (the English side unchanged).

The paper ran a coreference tool over OpenSubtitles documents. Offline there is no parallel corpus in
the mirror, so the pool is ContraPro's own examples (one sentence of context + the main sentence; the
German copies are ContraPro's contrastive variants, which are exactly the other-gender pronouns), and
the window the system sees is those two sentences: an ``it`` of the main sentence is selected when the
system puts it in a cluster (it is coreferential) none of whose mentions in the window is a noun phrase
- its chain holds only pronouns here, so its antecedent lies further back. ``include_unclustered``
also takes an ``it`` the system leaves alone (then pleonastic ``it`` gets in too). Examples scored by
the ContraPro suite are excluded from the pool, so a model fine-tuned on it is never evaluated on its
own training examples.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lingtest.contrapro.attack import tokens
from lingtest.data.io import atomic_open
from lingtest.data.model import Cluster, ContrastiveExample, Document, Sentence, Token
from lingtest.readers.candidate_lines import concat_line

#: English pronouns: a cluster of only these (in the window) has no nominal antecedent there
PRONOUNS = frozenset(
    "it its itself he him his himself she her hers herself they them their theirs themselves this that "
    "these those one i me my mine myself you your yours yourself we us our ours ourselves".split()
)
IT = frozenset({"it"})


def window_document(ex: ContrastiveExample) -> Document:
    """The English context (when present) and main sentence as a two-sentence document, tokenised
    into words and punctuation; ``meta.main`` is the index of the main sentence."""
    sents = []
    for text in (ex.src_context, ex.src):
        toks = [Token(t.text) for t in tokens(text)]
        if toks:
            sents.append(Sentence(toks))
    return Document(id=ex.id, sentences=sents, meta={"main": len(sents) - 1})


@dataclass(frozen=True)
class Selection:
    """An AFA candidate: the example, the token index of ``it`` in the window document and the
    cluster the system put it in (``None``: unclustered)."""

    example: ContrastiveExample
    it_index: int
    cluster: list[list[int]] | None

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.example.id, "it_index": self.it_index, "cluster": self.cluster,
                "ante_distance": self.example.meta.get("ante distance")}


def select(examples: Sequence[ContrastiveExample], docs: Sequence[Document],
           clusters: Sequence[Sequence[Cluster]], *, include_unclustered: bool) -> list[Selection]:
    """The AFA candidates (see the module docstring): per example the first qualifying ``it`` of the
    main sentence."""
    out: list[Selection] = []
    for ex, doc, cl in zip(examples, docs, clusters, strict=True):
        if not doc.sentences:
            continue
        offsets = doc.sentence_offsets()
        main = int(doc.meta.get("main", len(doc.sentences) - 1))
        start = offsets[main]
        words = doc.words
        for i in range(start, start + len(doc.sentences[main])):
            if words[i].lower() not in IT:
                continue
            owner = next((c for c in cl if any(m.start == i and m.end == i + 1 for m in c.mentions)), None)
            if owner is None:
                if include_unclustered:
                    out.append(Selection(ex, i, None))
                    break
                continue
            nominal = [m for m in owner.mentions
                       if not all(w.lower() in PRONOUNS for w in words[m.start:m.end])]
            if not nominal:
                out.append(Selection(ex, i, [[m.start, m.end] for m in owner.mentions]))
                break
    return out


def by_gold_distance(selected: Sequence[Selection]) -> dict[str, int]:
    """The selected candidates counted by ContraPro's gold antecedent distance (``0``..``3``, ``>3``,
    ``unknown``), keys sorted."""
    dist: dict[str, int] = {}
    for s in selected:
        d = s.example.meta.get("ante distance")
        key = "unknown" if not isinstance(d, int) else (">3" if d > 3 else str(d))
        dist[key] = dist.get(key, 0) + 1
    return dict(sorted(dist.items()))


def write_selected(path: str | Path, selected: Sequence[Selection]) -> None:
    """The selected candidates, one JSON record a line."""
    with atomic_open(path) as fh:
        for s in selected:
            fh.write(json.dumps(s.to_dict(), ensure_ascii=False) + "\n")


def training_pairs(selected: Sequence[Selection], *, augmented: bool, sep: str) -> list[tuple[str, str]]:
    """(English, German) lines in the concatenation layout: the candidate, and with ``augmented`` its
    other-gender copies right after it."""
    out: list[tuple[str, str]] = []
    for s in selected:
        ex = s.example
        src = concat_line(ex.src_context, ex.src, sep)
        targets = [ex.ref, *ex.contrastive] if augmented else [ex.ref]
        out.extend((src, concat_line(ex.ref_context, t, sep)) for t in targets)
    return out


def write_pairs(folder: str | Path, pairs: Sequence[tuple[str, str]]) -> int:
    """``en.txt`` and ``de.txt``, one line per pair."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    with atomic_open(folder / "en.txt") as en, atomic_open(folder / "de.txt") as de:
        for s, t in pairs:
            en.write(s + "\n")
            de.write(t + "\n")
    return len(pairs)


def read_pairs(folder: str | Path) -> list[tuple[str, str]]:
    from lingtest.errors import InputError
    from lingtest.readers.textio import read_lines

    folder = Path(folder)
    en = [ln.rstrip("\r\n") for ln in read_lines(folder / "en.txt")]
    de = [ln.rstrip("\r\n") for ln in read_lines(folder / "de.txt")]
    if len(en) != len(de):
        raise InputError(f"{len(de)} lines but en.txt has {len(en)}", path=folder / "de.txt",
                         line=min(len(en), len(de)) + 1)
    return list(zip(en, de, strict=True))
