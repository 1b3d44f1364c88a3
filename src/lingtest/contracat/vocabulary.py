"""The vocabulary ContraCAT templates draw from, and the German gender/case tables.

* entity classes (``animal``, ``food``, ``drink``, ``concrete_noun``: English -> ``{"de", "gender"}``;
  ``human``: English -> ``{"m": German, "f": German}``, one entity per German form) become
  :class:`Entity` lists in file order;
* word classes (``adverb``, ``size_adjective``, ``trans_verb``, ``pro_nom``...: English -> German, or
  a list of German alternatives) become :class:`Word` lists, one per German alternative.

New vocabulary: :func:`nouns_from_ding` reads concrete nouns with their genders from the Ding
dictionary (Debian ``trans-de-en``) for a list of English nouns, :func:`nouns_from_tsv` a plain
``english<TAB>german<TAB>gender`` list; :func:`with_nouns` adds them to a class.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lingtest.errors import InputError

GENDERS = ("m", "f", "n")

#: German articles and 3rd person singular pronouns by gender (singular), the release's tables
TABLES: dict[str, dict[str, str]] = {
    "DEF_NOM": {"m": "der", "f": "die", "n": "das"},
    "DEF_ACC": {"m": "den", "f": "die", "n": "das"},
    "DEF_DAT": {"m": "dem", "f": "der", "n": "dem"},
    "IND_NOM": {"m": "ein", "f": "eine", "n": "ein"},
    "IND_ACC": {"m": "einen", "f": "eine", "n": "ein"},
    "IND_DAT": {"m": "einem", "f": "einer", "n": "einem"},
    "PRO_NOM": {"m": "er", "f": "sie", "n": "es"},
    "PRO_ACC": {"m": "ihn", "f": "sie", "n": "es"},
    "PRO_DAT": {"m": "ihm", "f": "ihr", "n": "ihm"},
}

ENTITY_CLASSES = ("animal", "food", "drink", "human", "concrete_noun")


@dataclass(frozen=True, slots=True)
class Entity:
    en: str
    de: str
    gender: str


@dataclass(frozen=True, slots=True)
class Word:
    en: str
    de: str


@dataclass
class Vocabulary:
    entities: dict[str, list[Entity]] = field(default_factory=dict)
    words: dict[str, list[Word]] = field(default_factory=dict)

    def items(self, cls: str) -> Sequence[Entity | Word]:
        if cls in self.entities:
            return self.entities[cls]
        if cls in self.words:
            return self.words[cls]
        raise InputError(f"vocabulary class {cls!r} not found; have: {', '.join([*self.entities, *self.words])}")


def _gender(g: Any, where: str) -> str:
    if g not in GENDERS:
        raise InputError(f"gender must be one of m, f, n, got {g!r}", field=where)
    return str(g)


def parse_vocabulary(raw: Mapping[str, Any]) -> Vocabulary:
    """From the release's ``vocabulary/*.json`` (file stem -> content; see the module docstring)."""
    voc = Vocabulary()
    for cls, table in raw.items():
        if not isinstance(table, Mapping):
            raise InputError(f"vocabulary {cls}: expected an object", field=cls)
        if cls == "human":
            voc.entities[cls] = [  # one entity per form, in file order (the release's order)
                Entity(en, str(de), _gender(g, f"{cls}.{en}")) for en, forms in table.items() for g, de in forms.items()
            ]
        elif cls in ENTITY_CLASSES:
            voc.entities[cls] = [
                Entity(en, str(v["de"]), _gender(v.get("gender"), f"{cls}.{en}.gender")) for en, v in table.items()
            ]
        else:
            words = []
            for en, de in table.items():
                for alt in de if isinstance(de, list) else [de]:
                    words.append(Word(en, str(alt)))
            voc.words[cls] = words
    return voc


def load_vocabulary(path: str | Path) -> Vocabulary:
    """``vocabulary/*.json`` under ``path`` (the templates root or the vocabulary folder)."""
    from lingtest.readers.contracat import load_contracat_vocabulary

    return parse_vocabulary(load_contracat_vocabulary(path))


def with_nouns(voc: Vocabulary, cls: str, nouns: Iterable[Entity], *, replace: bool = False) -> Vocabulary:
    """``voc`` with ``nouns`` added to (or replacing) entity class ``cls``; an English noun already
    there keeps its entry."""
    have = [] if replace else list(voc.entities.get(cls, []))
    seen = {e.en for e in have}
    for e in nouns:
        if e.en not in seen:
            have.append(e)
            seen.add(e.en)
    return Vocabulary({**voc.entities, cls: have}, dict(voc.words))


def nouns_from_tsv(path: str | Path) -> list[Entity]:
    """``english<TAB>german<TAB>gender`` per line (``#`` comments and blank lines skipped)."""
    from lingtest.readers.textio import read_lines

    out = []
    for n, line in enumerate(read_lines(Path(path)), 1):
        s = line.rstrip("\r\n")
        if not s.strip() or s.startswith("#"):
            continue
        parts = s.split("\t")
        if len(parts) != 3:
            raise InputError(f"expected 3 tab-separated fields, got {len(parts)}", path=path, line=n)
        en, de, g = (p.strip() for p in parts)
        if g not in GENDERS:
            raise InputError(f"gender must be m, f or n, got {g!r}", path=path, line=n, field="gender")
        out.append(Entity(en, de, g))
    return out


def nouns_from_ding(lexicon: Any, english: Iterable[str]) -> list[Entity]:
    """For each English noun, a German noun of one gender (a strict majority of the votes) that the
    Ding dictionary gives as its translation (``lexicon``: a
    :class:`lingtest.contrapro.lexicon.GermanLexicon`): of several, the one whose translations are
    fewest (the most specific), then alphabetically. English nouns without one are left out."""
    index: dict[str, list[str]] = {}
    for de, ts in lexicon.translations.items():
        for t in ts:
            index.setdefault(t, []).append(de)
    out = []
    for en in english:
        cands = [de for de in index.get(en.lower(), []) if de.isalpha() and lexicon.gender(de) in GENDERS]
        if cands:
            de = min(cands, key=lambda w: (len(lexicon.translations_of(w)), w))
            out.append(Entity(en, de, lexicon.gender(de)))
    return out
