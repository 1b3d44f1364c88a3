"""Mention-overlap statistics (Moosavi & Strube 2017; Chai et al. 2021, Sec. 3 and 4).

* :func:`mention_overlap`: the share of test mentions (instances) whose string also occurs as a
  gold mention string anywhere in the training set (paper on CoNLL-2012: 56.7% clean, 34.3%
  after perturbing the test set).
* :func:`changed_mention_share`: the share of mentions with at least one modified word (paper:
  24% lexical, 46% orthographic).
* With ``changed`` given, :func:`mention_overlap` also counts how many *modified* test mentions
  match a training mention -- the overlap that adversarial training introduces (paper: ~10%).
* :func:`compute_overlap`: every statistic of the ``adversarial_overlap`` stage from loaded sets.

Mention strings are the mention's tokens joined by single spaces, case-sensitive unless
``lowercase`` is set (``adversarial.overlap.lowercase``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from lingtest.adversarial.apply import Change, adversarial_training_set
from lingtest.adversarial.perturbations import groups
from lingtest.adversarial.sets import CLEAN
from lingtest.data.model import Document, Mention


def mention_string(doc: Document, m: Mention, lowercase: bool, words: Sequence[str] | None = None) -> str:
    w = words if words is not None else doc.words
    s = " ".join(w[m.start:m.end])
    return s.lower() if lowercase else s


def mention_strings(docs: Iterable[Document], *, lowercase: bool) -> set[str]:
    """All distinct gold mention strings of ``docs``."""
    out: set[str] = set()
    for d in docs:
        words = d.words
        for c in d.clusters:
            for m in c.mentions:
                out.add(mention_string(d, m, lowercase, words))
    return out


@dataclass(frozen=True, slots=True)
class OverlapStats:
    mentions: int
    overlapping: int
    changed: int = 0
    changed_overlapping: int = 0

    @property
    def share(self) -> float:
        return self.overlapping / self.mentions if self.mentions else 0.0

    @property
    def changed_share(self) -> float:
        """Share of all test mentions that were modified *and* still match a train mention."""
        return self.changed_overlapping / self.mentions if self.mentions else 0.0

    def to_dict(self) -> dict[str, float | int]:
        return {**asdict(self), "share": self.share, "changed_overlap_share": self.changed_share}


def changed_token_map(changes: Iterable[Change]) -> dict[str, set[int]]:
    """Document key -> token indices, in the *perturbed* document, produced by a change."""
    out: dict[str, set[int]] = {}
    for c in changes:
        out.setdefault(c.doc, set()).update(range(c.new_token, c.new_token + len(c.new)))
    return out


def _is_changed(m: Mention, changed: set[int]) -> bool:
    return any(i in changed for i in range(m.start, m.end))


def mention_overlap(train: Iterable[Document], test: Iterable[Document], *, lowercase: bool,
                    changed: Mapping[str, set[int]] | None = None,
                    train_strings: set[str] | None = None) -> OverlapStats:
    """How many test mention instances have a string that is a train mention string.

    ``changed`` (from :func:`changed_token_map`) marks modified tokens of the test documents;
    ``train_strings`` may be passed to reuse a precomputed :func:`mention_strings` set.
    """
    strings = train_strings if train_strings is not None else mention_strings(train, lowercase=lowercase)
    n = hit = ch = ch_hit = 0
    for d in test:
        words = d.words
        cset = changed.get(d.key, set()) if changed is not None else set()
        for c in d.clusters:
            for m in c.mentions:
                n += 1
                found = mention_string(d, m, lowercase, words) in strings
                hit += found
                if cset and _is_changed(m, cset):
                    ch += 1
                    ch_hit += found
    return OverlapStats(mentions=n, overlapping=hit, changed=ch, changed_overlapping=ch_hit)


def changed_mention_share(docs: Iterable[Document], changes: Iterable[Change]) -> tuple[int, int, float]:
    """(modified mentions, all mentions, share) of perturbed ``docs`` given their change log."""
    cmap = changed_token_map(changes)
    n = k = 0
    for d in docs:
        cset = cmap.get(d.key, set())
        for c in d.clusters:
            for m in c.mentions:
                n += 1
                k += _is_changed(m, cset)
    return k, n, (k / n if n else 0.0)


def compute_overlap(train: Mapping[str, list[Document]], test: Mapping[str, list[Document]],
                    test_changes: Mapping[str, list[Change]], *, lowercase: bool,
                    at_ratio: float, seed: int) -> dict[str, Any]:
    """All overlap statistics from loaded sets (``train``/``test``: set name -> documents, both
    with ``clean``; ``test_changes``: set name -> change log of the test split). ``lowercase`` and
    ``at_ratio``: ``adversarial.overlap.lowercase`` and ``.adversarial_train_ratio``; ``seed``: ``adversarial.seed``."""
    clean_train = train[CLEAN]
    clean_strings = mention_strings(clean_train, lowercase=lowercase)
    out: dict[str, Any] = {"lowercase": lowercase, "sets": {}, "groups": {}, "adversarial_training": {}}
    for s, docs in test.items():
        changes = test_changes.get(s, [])
        cmap = changed_token_map(changes)
        st = mention_overlap([], docs, lowercase=lowercase, changed=cmap, train_strings=clean_strings)
        entry: dict[str, Any] = {"test_vs_clean_train": st.to_dict()}
        if s != CLEAN:
            k, n, share = changed_mention_share(docs, changes)
            entry["changed_mentions"] = {"changed": k, "mentions": n, "share": share}
            entry["changed_words"] = len(changes)
            if s in train:
                entry["test_vs_perturbed_train"] = mention_overlap(train[s], docs, lowercase=lowercase,
                                                                   changed=cmap).to_dict()
        out["sets"][s] = entry
    for g, members in groups().items():
        present = [s for s in members if s in out["sets"]]
        if present:
            out["groups"][g] = {
                "sets": present,
                "changed_mention_share": (sum(out["sets"][s]["changed_mentions"]["share"] for s in present)
                                          / len(present)),
                "overlap_share": sum(out["sets"][s]["test_vs_clean_train"]["share"] for s in present) / len(present),
            }
    perturbed = [s for s in test if s != CLEAN]
    if perturbed:
        out["all_perturbed_overlap_share"] = (
            sum(out["sets"][s]["test_vs_clean_train"]["share"] for s in perturbed) / len(perturbed))
    # adversarial training: ratio of train documents replaced by their perturbed versions
    for s, tdocs in train.items():
        if s == CLEAN:
            continue
        at_train = adversarial_training_set(clean_train, tdocs, at_ratio, seed)
        at_strings = mention_strings(at_train, lowercase=lowercase)
        row = {}
        for t, docs in test.items():
            cmap = changed_token_map(test_changes.get(t, []))
            row[t] = mention_overlap([], docs, lowercase=lowercase, changed=cmap, train_strings=at_strings).to_dict()
        out["adversarial_training"][s] = {"ratio": at_ratio, "test_sets": row}
    return out
