"""What the three ContraPro attacks share: the record of what an attack changed, the result of
attacking one example (an attacked example or the reason it was skipped), and word-level text edits.

An attacked example keeps the original's fields except those the attack changed; its id is
``<original id>@<attack>/<variant>`` and ``meta["attack"]`` records the attack, the variant, the
original id and every change (which field, the text before and after), so that a reviewer and the
report can show exactly what moved.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, TypeVar

from lingtest.data.model import ContrastiveExample
from lingtest.errors import ConfigError

#: the text fields of an example, by the name an attack record uses for them
FIELDS = ("src_context", "src", "ref_context", "ref", "contrastive")

_TOKEN = re.compile(r"\w+(?:-\w+)*|[^\w\s]")

V = TypeVar("V")


@dataclass(frozen=True, slots=True)
class Change:
    """One edited text: ``where`` is an example field (``contrastive[1]`` for a variant)."""

    where: str
    old: str
    new: str

    def to_dict(self) -> dict[str, str]:
        return {"where": self.where, "old": self.old, "new": self.new}


@dataclass(frozen=True, slots=True)
class Skip:
    """An example an attack does not apply to, and why."""

    example_id: str
    reason: str


@dataclass
class AttackOutcome:
    """Attacked examples of one variant (in input order) and the skipped ones by reason."""

    attack: str
    variant: str
    examples: list[ContrastiveExample] = field(default_factory=list)
    skipped: list[Skip] = field(default_factory=list)

    def skip_reasons(self) -> dict[str, int]:
        return dict(Counter(_reason_class(s.reason) for s in self.skipped).most_common())

    def summary(self) -> dict[str, Any]:
        return {
            "attack": self.attack,
            "variant": self.variant,
            "attacked": len(self.examples),
            "skipped": len(self.skipped),
            "skip_reasons": self.skip_reasons(),
        }


def resolve_named(names: Sequence[str], release: Mapping[str, V], custom: Mapping[str, Mapping[str, Any]] | None,
                  build: Callable[[str, Mapping[str, Any]], V], what: str) -> list[V]:
    """The attack variants named in ``names``, in that order: one the config defines under ``custom``
    (built by ``build(name, entry)``; it overrides a release entry of that name) or one of the
    public ``release``. An unknown name is a :class:`ConfigError` listing what there is."""
    own = {k: build(k, v) for k, v in (custom or {}).items()}
    out = []
    for n in names:
        if n in own:
            out.append(own[n])
        elif n in release:
            out.append(release[n])
        else:
            raise ConfigError(f"unknown {what} {n!r}; release {what}s: {', '.join(release)}"
                              + (f"; custom: {', '.join(own)}" if own else ""))
    return out


def _reason_class(reason: str) -> str:
    """The reason without the example-specific part after ``:``."""
    return reason.split(":", 1)[0]


def attacked_id(original_id: str, attack: str, variant: str) -> str:
    return f"{original_id}@{attack}/{variant}"


def finish(
    original: ContrastiveExample,
    attacked: ContrastiveExample,
    attack: str,
    variant: str,
    changes: Sequence[Change],
    **details: Any,
) -> ContrastiveExample:
    """``attacked`` with its id and ``meta["attack"]`` set (the record of what changed)."""
    record = {
        "name": attack,
        "variant": variant,
        "original_id": original.id,
        "changes": [c.to_dict() for c in changes],
        **details,
    }
    meta = {**attacked.meta, "attack": record}
    return replace(attacked, id=attacked_id(original.id, attack, variant), meta=meta)


def edit_example(
    original: ContrastiveExample, texts: dict[str, str], attack: str, variant: str, **details: Any
) -> ContrastiveExample:
    """``original`` with the fields in ``texts`` replaced (:func:`with_texts`), its id and attack
    record set (:func:`finish`): how every attack that only edits texts applies its edit."""
    new, changes = with_texts(original, texts)
    return finish(original, new, attack, variant, changes, **details)


def run_attack(
    examples: Iterable[ContrastiveExample],
    attack: str,
    variant: str,
    fn: Callable[[ContrastiveExample], ContrastiveExample | Skip],
) -> AttackOutcome:
    """Apply ``fn`` (one example -> attacked example or :class:`Skip`) to every example."""
    out = AttackOutcome(attack, variant)
    for ex in examples:
        res = fn(ex)
        if isinstance(res, Skip):
            out.skipped.append(res)
        else:
            out.examples.append(res)
    return out


def merge_outcomes(parts: Sequence[Sequence[AttackOutcome]]) -> list[AttackOutcome]:
    """The outcomes of consecutive runs of examples (each run: one outcome per variant, variants in the
    same order) as one outcome per variant: attacked and skipped examples in run order, so in input
    order, as if every example had been attacked in one run."""
    merged: list[AttackOutcome] = []
    for run in parts:
        if not merged:
            merged = [AttackOutcome(o.attack, o.variant) for o in run]
        if [(o.attack, o.variant) for o in run] != [(m.attack, m.variant) for m in merged]:
            raise ValueError("runs of examples attacked with different variants cannot be merged")
        for m, o in zip(merged, run, strict=True):
            m.examples.extend(o.examples)
            m.skipped.extend(o.skipped)
    return merged


# -- word-level text edits -------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Token:
    text: str
    start: int
    end: int


def tokens(text: str) -> list[Token]:
    """Words (with inner hyphens) and single punctuation characters, with character offsets."""
    return [Token(m.group(), m.start(), m.end()) for m in _TOKEN.finditer(text)]


def words(text: str) -> list[str]:
    return [t.text for t in tokens(text) if t.text[0].isalnum() or t.text[0] == "_"]


def splice(text: str, edits: Sequence[tuple[int, int, str]]) -> str:
    """``text`` with the character spans ``(start, end)`` replaced (spans must not overlap)."""
    out, pos = [], 0
    for start, end, new in sorted(edits):
        if start < pos:
            raise ValueError(f"overlapping edits at {start}")
        out.append(text[pos:start])
        out.append(new)
        pos = end
    out.append(text[pos:])
    return "".join(out)


def find_phrase(
    text: str, phrase_words: Sequence[str], *, ignore_case: bool = True
) -> tuple[int, int] | None:
    """Token index span ``[i, j)`` of the first occurrence of ``phrase_words`` as consecutive word
    tokens of ``text``; ``None`` when absent."""
    toks = tokens(text)
    n = len(phrase_words)
    if n == 0:
        return None
    norm = (lambda s: s.lower()) if ignore_case else (lambda s: s)
    target = [norm(w) for w in phrase_words]
    for i in range(len(toks) - n + 1):
        if [norm(t.text) for t in toks[i : i + n]] == target:
            return i, i + n
    return None


def example_texts(ex: ContrastiveExample) -> dict[str, str]:
    """Field name -> text, variants as ``contrastive[i]``."""
    out = {"src_context": ex.src_context, "src": ex.src, "ref_context": ex.ref_context, "ref": ex.ref}
    out.update({f"contrastive[{i}]": c for i, c in enumerate(ex.contrastive)})
    return out


def with_texts(ex: ContrastiveExample, texts: dict[str, str]) -> tuple[ContrastiveExample, list[Change]]:
    """``ex`` with the fields in ``texts`` replaced, and the changes (fields whose text differs)."""
    old = example_texts(ex)
    changes = [Change(k, old[k], v) for k, v in texts.items() if old[k] != v]
    contrastive = list(ex.contrastive)
    for i in range(len(contrastive)):
        contrastive[i] = texts.get(f"contrastive[{i}]", contrastive[i])
    new = replace(
        ex,
        src_context=texts.get("src_context", ex.src_context),
        src=texts.get("src", ex.src),
        ref_context=texts.get("ref_context", ex.ref_context),
        ref=texts.get("ref", ex.ref),
        contrastive=contrastive,
        meta=dict(ex.meta),
    )
    return new, changes


def german_sides(ex: ContrastiveExample, distance: int) -> list[str]:
    """The German fields holding the antecedent: the context at distance 1, every candidate (the
    reference and its variants) at distance 0."""
    if distance == 1:
        return ["ref_context"]
    return ["ref", *(f"contrastive[{i}]" for i in range(len(ex.contrastive)))]


def english_side(distance: int) -> str:
    return "src_context" if distance == 1 else "src"
