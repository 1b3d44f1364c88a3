"""The ContraCAT template generator: template definitions + vocabulary + the German tables -> sets of
contrastive examples in the release layout (``en.txt``, ``de.txt``, ``genders.txt``: three lines per
example, the German candidates with the masculine, feminine and neuter pronoun in that order).

A definition (:class:`TemplateDef`, from a mapping; the release's are in
:mod:`lingtest.contracat.definitions`) has

* ``context``/``sentence``: ``{"en": ..., "de": ...}`` patterns. ``{X}`` is slot ``X`` in the side's
  language, ``{X.field}`` a field of its entry (``en``, ``de``, ``gender`` or an inline word's own
  fields), ``{TABLE:X}`` the German table entry (:data:`~lingtest.contracat.vocabulary.TABLES`:
  ``DEF_NOM``, ``IND_ACC``, ``PRO_ACC``...) for the gender of ``X``, and ``{PRO_NOM}``/``{PRO_ACC}``
  (no slot) the candidate pronoun that varies over m, f, n. Each part is capitalised.
* ``slots``: slot -> a vocabulary class, or an inline list of words (``{"en": ..., "de": ..., ...}``).
* ``loops``: the enumeration, outermost first: ``X`` (every entry of the slot's class, in vocabulary
  order), ``pair X Y`` (two entries of one class, ``X`` before ``Y`` in vocabulary order), ``after Y
  X`` (the entries of ``Y``'s class after ``X``'s, ``X`` bound by an outer loop: ``pair X Y`` with
  other loops between the two), ``swap X Y`` (the binding as is, then with the two exchanged: the
  order-agnostic variants).
* ``unequal``: slot pairs whose genders must differ (checked on the complete binding); two slots
  never hold the same entity.
* ``label``: ``gender X`` (the gold gender is that of the entity drawn for ``X``, wherever a swap put
  it), ``gender @X`` (that of the entity shown at ``X``'s place after the swaps), ``fixed g``
  (pleonastic and event ``it``: ``n``), ``prior X Y`` (no correct answer: the genders at the two
  positions after any swap, e.g. ``mf``) or ``none`` (a prior with no antecedent).
* ``half``: every slot draws only the entries at even positions (0, 2, 4, ...) of its class or list,
  except the slots listed in ``full``: the release's ``--half`` and ``--full`` (its overlap templates;
  the rule read off the released files, which it regenerates line for line).
* ``parts``: a list of overrides of the keys above, generated one after another (world knowledge:
  the animal attributes, then the food attributes).

``generate`` is a pure function: the same definitions and vocabulary give the same lines.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lingtest.contracat.vocabulary import GENDERS, TABLES, Entity, Vocabulary, Word
from lingtest.data.io import atomic_open
from lingtest.errors import ConfigError

SEP = "<SEP>"
_PLACEHOLDER = re.compile(r"\{([^{}]+)\}")
_KEYS = {"name", "context", "sentence", "slots", "loops", "unequal", "label", "half", "full", "parts"}


@dataclass(frozen=True)
class InlineWord:
    fields: tuple[tuple[str, str], ...]

    def get(self, name: str) -> str:
        return dict(self.fields)[name]


@dataclass(frozen=True)
class Part:
    context: Mapping[str, str]
    sentence: Mapping[str, str]
    slots: Mapping[str, Any]
    loops: tuple[str, ...]
    unequal: tuple[tuple[str, str], ...]
    label: str
    half: bool = False
    full: tuple[str, ...] = ()


@dataclass(frozen=True)
class TemplateDef:
    name: str
    parts: tuple[Part, ...]

    @classmethod
    def from_dict(cls, name: str, d: Mapping[str, Any]) -> TemplateDef:
        unknown = sorted(set(d) - _KEYS)
        if unknown:
            raise ConfigError(
                f"template {name!r}: unknown key(s) {', '.join(unknown)}; allowed: {', '.join(sorted(_KEYS))}"
            )
        base = {k: v for k, v in d.items() if k not in ("parts", "name")}
        overrides = list(d.get("parts") or [{}])
        parts = []
        for i, o in enumerate(overrides):
            bad = sorted(set(o) - (_KEYS - {"parts", "name"}))
            if bad:
                raise ConfigError(f"template {name!r} part {i}: unknown key(s) {', '.join(bad)}")
            m = {**base, **o}
            for key in ("context", "sentence", "slots", "loops", "label"):
                if key not in m:
                    raise ConfigError(f"template {name!r} part {i}: missing {key!r}")
            for side in ("context", "sentence"):
                if set(m[side]) != {"en", "de"}:
                    raise ConfigError(f"template {name!r}: {side} needs exactly 'en' and 'de'")
            parts.append(Part(dict(m["context"]), dict(m["sentence"]), dict(m["slots"]), tuple(m["loops"]),
                              tuple(tuple(p) for p in m.get("unequal", [])), str(m["label"]),
                              _flag(m.get("half", False), name, "half"), tuple(m.get("full", ()))))
        return cls(name, tuple(parts))


def _flag(value: Any, template: str, key: str) -> bool:
    if not isinstance(value, bool):
        raise ConfigError(f"template {template!r}: {key!r} must be true or false, got {value!r}")
    return value


@dataclass(frozen=True)
class TemplateExample:
    """One example: the English context and sentence, the German context and the three candidates
    (m, f, n), and the label (``m``/``f``/``n``; a prior's entity genders; ``""``)."""

    en_context: str
    en: str
    de_context: str
    de: tuple[str, str, str]
    label: str
    bindings: tuple[tuple[str, str], ...] = field(default=(), compare=False)
    #: 1 or 2: whether the antecedent is the first or second entity named in the English context
    #: (templates whose label is ``gender X`` with two entities in the context), else ``None``
    position: int | None = field(default=None, compare=False)
    #: the German noun and gender of the entity the label names (``gender X`` labels), else ``None``
    antecedent: tuple[str, str] | None = field(default=None, compare=False)

    def lines(self, sep: str = SEP) -> tuple[list[str], list[str], list[str]]:
        en = f"{self.en_context} {sep} {self.en}"
        return [en] * 3, [f"{self.de_context} {sep} {c}" for c in self.de], [self.label] * 3


Entry = Entity | Word | InlineWord


def _entries(slot: str, spec: Any, voc: Vocabulary, template: str) -> list[Entry]:
    if isinstance(spec, str):
        try:
            return list(voc.items(spec))
        except Exception as exc:
            raise ConfigError(f"template {template!r} slot {slot}: {exc}") from None
    if isinstance(spec, list | tuple):
        out: list[Entry] = []
        for w in spec:
            if not isinstance(w, Mapping) or "en" not in w or "de" not in w:
                raise ConfigError(f"template {template!r} slot {slot}: inline words need 'en' and 'de'")
            out.append(InlineWord(tuple((str(k), str(v)) for k, v in w.items())))
        return out
    raise ConfigError(f"template {template!r} slot {slot}: expected a vocabulary class or a list of words")


def _field(e: Entry, name: str) -> str:
    if isinstance(e, InlineWord):
        return e.get(name)
    return str(getattr(e, name))


def _gender(e: Entry) -> str:
    if isinstance(e, Entity):
        return e.gender
    if isinstance(e, InlineWord) and "gender" in dict(e.fields):
        return e.get("gender")
    raise ConfigError(f"{e} has no gender")


def _capitalise(text: str) -> str:
    return text[:1].upper() + text[1:] if text else text


def render(pattern: str, side: str, b: Mapping[str, Entry], pronoun: str | None = None) -> str:
    """Fill ``pattern`` (one side) from the bindings; ``pronoun``: the candidate gender."""

    def sub(m: re.Match[str]) -> str:
        key = m.group(1)
        if key in ("PRO_NOM", "PRO_ACC", "PRO_DAT"):
            if pronoun is None:
                raise ConfigError(f"{{{key}}} outside the German sentence")
            return TABLES[key][pronoun]
        if ":" in key:
            table, slot = key.split(":", 1)
            if table not in TABLES:
                raise ConfigError(f"unknown table {table!r}; known: {', '.join(TABLES)}")
            return TABLES[table][_gender(b[slot])]
        slot, _, fld = key.partition(".")
        if slot not in b:
            raise ConfigError(f"placeholder {{{key}}}: no slot {slot!r}")
        return _field(b[slot], fld or side)

    return _capitalise(_PLACEHOLDER.sub(sub, pattern))


def _bindings(part: Part, voc: Vocabulary, template: str) -> Iterator[tuple[dict[str, Entry], dict[str, Entry]]]:
    """(original bindings, bindings after the swaps) in loop order."""
    unknown = sorted(set(part.full) - set(part.slots))
    if unknown:
        raise ConfigError(f"template {template!r}: 'full' names unknown slot(s) {', '.join(unknown)}")
    entries = {s: _entries(s, spec, voc, template)[::2 if part.half and s not in part.full else 1]
               for s, spec in part.slots.items()}

    Swaps = list[tuple[str, str]]

    def rec(i: int, b: dict[str, Entry], swaps: Swaps) -> Iterator[tuple[dict[str, Entry], Swaps]]:
        if i == len(part.loops):
            yield dict(b), list(swaps)
            return
        words = part.loops[i].split()
        if len(words) == 1:
            for e in entries[words[0]]:
                b[words[0]] = e
                yield from rec(i + 1, b, swaps)
        elif words[0] == "pair" and len(words) == 3:
            x, y = words[1], words[2]
            pool = entries[x]
            for ia in range(len(pool)):
                for ib in range(ia + 1, len(pool)):
                    b[x], b[y] = pool[ia], pool[ib]
                    yield from rec(i + 1, b, swaps)
        elif words[0] == "after" and len(words) == 3:
            y, x = words[1], words[2]
            pool = entries[y]
            if x not in b:
                raise ConfigError(f"template {template!r}: loop {part.loops[i]!r} needs {x} bound by an outer loop")
            start = next((k for k, e in enumerate(pool) if e is b[x]), None)
            if start is None:
                raise ConfigError(f"template {template!r}: loop {part.loops[i]!r}: "
                                  f"{x} and {y} draw from different classes")
            for e in pool[start + 1:]:
                b[y] = e
                yield from rec(i + 1, b, swaps)
        elif words[0] == "swap" and len(words) == 3:
            yield from rec(i + 1, b, swaps)
            yield from rec(i + 1, b, [*swaps, (words[1], words[2])])
        else:
            raise ConfigError(f"template {template!r}: bad loop {part.loops[i]!r} "
                              "(X | pair X Y | after Y X | swap X Y)")

    looped = {w for lp in part.loops for w in lp.split() if w not in ("pair", "after", "swap")}
    missing = sorted(set(part.slots) - looped)
    if missing:
        raise ConfigError(f"template {template!r}: slot(s) {', '.join(missing)} not in any loop")
    for b, swaps in rec(0, {}, []):
        if any(_gender(b[x]) == _gender(b[y]) for x, y in part.unequal):
            continue
        drawn = [e for e in b.values() if isinstance(e, Entity)]
        if len({id(e) for e in drawn}) < len(drawn):  # two slots never hold the same entity
            continue
        shown = dict(b)
        for x, y in swaps:
            shown[x], shown[y] = shown[y], shown[x]
        yield b, shown


def _label(label: str, b: Mapping[str, Entry], shown: Mapping[str, Entry], template: str) -> str:
    kind, *args = label.split()
    if kind == "gender" and len(args) == 1:
        return _gender(shown[args[0][1:]]) if args[0].startswith("@") else _gender(b[args[0]])
    if kind == "fixed" and len(args) == 1 and args[0] in GENDERS:
        return args[0]
    if kind == "prior" and len(args) == 2:
        return _gender(shown[args[0]]) + _gender(shown[args[1]])
    if kind == "none" and not args:
        return ""
    raise ConfigError(f"template {template!r}: bad label {label!r} (gender X | gender @X | fixed g | prior X Y | none)")


def _position(part: Part, b: Mapping[str, Entry], shown: Mapping[str, Entry]) -> int | None:
    """Rank of the antecedent among the entity slots of the English context (after the swaps)."""
    kind, *args = part.label.split()
    if kind != "gender":
        return None
    order = [m.group(1) for m in _PLACEHOLDER.finditer(part.context["en"])]
    entity_slots = [s for s in dict.fromkeys(order) if s in shown and isinstance(shown[s], Entity)]
    if len(entity_slots) < 2:
        return None
    target = shown[args[0][1:]] if args[0].startswith("@") else b[args[0]]
    for rank, s in enumerate(entity_slots, 1):
        if shown[s] is target:
            return rank
    return None


def _antecedent(part: Part, b: Mapping[str, Entry], shown: Mapping[str, Entry]) -> tuple[str, str] | None:
    """The German noun and gender of the entity a ``gender X`` / ``gender @X`` label names."""
    kind, *args = part.label.split()
    if kind != "gender" or len(args) != 1:
        return None
    target = shown[args[0][1:]] if args[0].startswith("@") else b[args[0]]
    return (target.de, target.gender) if isinstance(target, Entity) else None


def generate(template: TemplateDef, voc: Vocabulary) -> list[TemplateExample]:
    """Every example of ``template`` over ``voc`` (see the module docstring)."""
    out = []
    for part in template.parts:
        for b, shown in _bindings(part, voc, template.name):
            out.append(TemplateExample(
                en_context=render(part.context["en"], "en", shown),
                en=render(part.sentence["en"], "en", shown),
                de_context=render(part.context["de"], "de", shown),
                de=tuple(render(part.sentence["de"], "de", shown, g) for g in GENDERS),  # type: ignore[arg-type]
                label=_label(part.label, b, shown, template.name),
                bindings=tuple((k, _field(v, "en")) for k, v in shown.items()),
                position=_position(part, b, shown),
                antecedent=_antecedent(part, b, shown),
            ))
    return out


def write_template(folder: str | Path, examples: Sequence[TemplateExample], sep: str = SEP) -> int:
    """``en.txt``, ``de.txt``, ``genders.txt`` in the release layout; returns the number of examples."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    with (atomic_open(folder / "en.txt") as en, atomic_open(folder / "de.txt") as de,
          atomic_open(folder / "genders.txt") as gl):
        for ex in examples:
            e, d, g = ex.lines(sep)
            en.write("".join(x + "\n" for x in e))
            de.write("".join(x + "\n" for x in d))
            gl.write("".join(x + "\n" for x in g))
    return len(examples)
