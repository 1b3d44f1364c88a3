"""German lexical resources for the synonym attack, all offline:

* OpenThesaurus (Debian ``openthesaurus-de-text``: ``/usr/share/openthesaurus-de/openthesaurus.txt``):
  German synonym sets, one per line, ``;``-separated - the role GermaNet plays in the paper;
* the Ding dictionary (Debian ``trans-de-en``: ``/usr/share/trans/de-en``): noun genders (``Gardine {f}``)
  and German->English noun translations - the role of the dict.cc dump in the paper;
* ``german-nouns`` (PyPI; Wiktionary-DE): noun genders and the inflected form for every case and number.

:func:`load_lexicon` reads the ones it is given into one :class:`GermanLexicon`. A missing file is a
:class:`~lingtest.errors.MissingResourceError` that says how to install it; a malformed line an
:class:`~lingtest.errors.InputError` naming file and line.
"""

from __future__ import annotations

import csv
import re
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from lingtest.contrapro.german import CASES, NUMBERS
from lingtest.errors import InputError, MissingResourceError
from lingtest.readers.textio import read_text

OPENTHESAURUS_HINT = "install it with `apt-get install openthesaurus-de-text` (Debian/Ubuntu)"
DING_HINT = "install it with `apt-get install trans-de-en` (Debian/Ubuntu; the Ding dictionary)"
GERMAN_NOUNS_HINT = "install it with `pip install german-nouns` (Wiktionary-DE nouns, CC BY-SA)"

_ANNOTATION = re.compile(r"\([^)]*\)|\[[^\]]*\]|\{[^}]*\}|<[^>]*>")
_DING_NOUN = re.compile(r"^(?P<word>[^\s{}]+)\s*\{(?P<g>[mfn])\}\s*(?:\[[^\]]*\]\s*|\([^)]*\)\s*)*$")
_CASE_COLUMNS = {"Nom": "nominativ", "Acc": "akkusativ", "Dat": "dativ", "Gen": "genitiv"}
_NUMBER_COLUMNS = {"Sg": "singular", "Pl": "plural"}


def _require_file(path: str | Path, what: str, hint: str) -> Path:
    p = Path(path)
    if not p.is_file():
        raise MissingResourceError(f"{what} not found at {p}: {hint}")
    return p


def is_noun_word(word: str) -> bool:
    """One capitalised alphabetic word (hyphens allowed): what can replace a German head noun."""
    return bool(word) and word[0].isupper() and all(ch.isalpha() or ch == "-" for ch in word)


# -- OpenThesaurus -------------------------------------------------------------------------------
def parse_openthesaurus(text: str, path: str | Path = "openthesaurus.txt") -> list[tuple[str, ...]]:
    """Synonym sets of OpenThesaurus' text format: ``#`` comment lines, else ``;``-separated terms.
    Annotations (``(ugs.)``, ``[...]``) are dropped; terms that are not one capitalised word (the
    nouns) are dropped too; sets with fewer than two nouns left are skipped."""
    out: list[tuple[str, ...]] = []
    for n, line in enumerate(text.split("\n"), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        if "\t" in line:
            raise InputError("expected ';'-separated terms, found a tab", path=path, line=n)
        terms = []
        for raw in line.split(";"):
            term = " ".join(_ANNOTATION.sub(" ", raw).split())
            if is_noun_word(term) and term not in terms:
                terms.append(term)
        if len(terms) >= 2:
            out.append(tuple(terms))
    return out


def load_openthesaurus(path: str | Path) -> list[tuple[str, ...]]:
    p = _require_file(path, "OpenThesaurus", OPENTHESAURUS_HINT)
    return parse_openthesaurus(read_text(p), p)


# -- Ding ----------------------------------------------------------------------------------------
@dataclass
class DingNouns:
    """Noun genders (how often each gender is given) and German->English translations read from
    the Ding dictionary."""

    genders: dict[str, Counter[str]] = field(default_factory=dict)
    translations: dict[str, set[str]] = field(default_factory=dict)


def _english_terms(segment: str) -> list[str]:
    out = []
    for raw in segment.split(";"):
        term = " ".join(_ANNOTATION.sub(" ", raw).split()).lower()
        if term:
            out.append(term)
    return out


def parse_ding(text: str, path: str | Path = "de-en") -> DingNouns:
    """Lines ``German :: English``; both sides are ``|``-separated aligned segments, each holding
    ``;``-separated variants. A German variant ``Wort {m}`` (one word, a gender) is a noun: its gender
    is recorded, and the English variants of the same segment are its translations."""
    out = DingNouns()
    for n, line in enumerate(text.split("\n"), 1):
        if not line.strip() or line.startswith("#"):
            continue
        if " :: " not in line:
            raise InputError("expected 'German :: English'", path=path, line=n)
        de, en = line.split(" :: ", 1)
        de_segs, en_segs = de.split(" | "), en.split(" | ")
        for k, seg in enumerate(de_segs):
            english = _english_terms(en_segs[k]) if k < len(en_segs) else []
            for variant in seg.split(";"):
                m = _DING_NOUN.match(variant.strip())
                if m is None:
                    continue
                word = m.group("word")
                if not is_noun_word(word):
                    continue
                out.genders.setdefault(word, Counter())[m.group("g")] += 1
                out.translations.setdefault(word, set()).update(english)
    return out


def load_ding(path: str | Path) -> DingNouns:
    p = _require_file(path, "Ding dictionary (trans-de-en)", DING_HINT)
    return parse_ding(read_text(p), p)


# -- german-nouns --------------------------------------------------------------------------------
@dataclass
class NounTable:
    """Genders (one vote per row) and inflected forms by (noun lemma, gender) (from ``german-nouns``)."""

    genders: dict[str, Counter[str]] = field(default_factory=dict)
    forms: dict[tuple[str, str], dict[tuple[str, str], str]] = field(default_factory=dict)


def german_nouns_csv() -> Path:
    """The CSV file shipped in the ``german-nouns`` package."""
    try:
        from german_nouns.config import CSV_FILE_PATH  # type: ignore[import-not-found]
    except ImportError:
        raise MissingResourceError(
            f"the german-nouns package is not installed: {GERMAN_NOUNS_HINT}"
        ) from None
    return Path(CSV_FILE_PATH)


def _first(row: Mapping[str, str], base: str) -> str:
    for suffix in ("", " 1", "*", " 2", " 3", " 4"):
        v = (row.get(base + suffix) or "").strip()
        if v and v != "—":
            return v
    return ""


def parse_german_nouns(rows: Iterable[Mapping[str, str]]) -> NounTable:
    """Rows of german-nouns' ``nouns.csv`` (``lemma``, ``pos``, ``genus``/``genus 1..4``, one column
    per case and number). Only ``Substantiv`` rows (no names, no affixes) with one gender count."""
    out = NounTable()
    for row in rows:
        lemma = (row.get("lemma") or "").strip()
        if "Substantiv" not in (row.get("pos") or "").split(",") or not is_noun_word(lemma):
            continue
        genders = {
            g
            for g in (
                (row.get(k) or "").strip() for k in ("genus", "genus 1", "genus 2", "genus 3", "genus 4")
            )
            if g in "mfn" and g
        }
        if not genders:
            continue
        out.genders.setdefault(lemma, Counter()).update(genders)
        if len(genders) == 1:
            forms = {
                (c, n): _first(row, f"{_CASE_COLUMNS[c]} {_NUMBER_COLUMNS[n]}")
                for c in CASES
                for n in NUMBERS
            }
            out.forms.setdefault((lemma, next(iter(genders))), {k: v for k, v in forms.items() if v})
    return out


def load_german_nouns(path: str | Path | None = None) -> NounTable:
    """``path``: the ``nouns.csv`` to read; ``None``: the one in the installed package."""
    p = _require_file(path, "german-nouns CSV", GERMAN_NOUNS_HINT) if path is not None else german_nouns_csv()
    if not p.is_file():
        raise MissingResourceError(f"german-nouns CSV not found at {p}: {GERMAN_NOUNS_HINT}")
    text = read_text(p)
    reader = csv.DictReader(text.split("\n"))
    if not reader.fieldnames or "lemma" not in reader.fieldnames:
        raise InputError("expected a header with a 'lemma' column", path=p, line=1)
    return parse_german_nouns(reader)


# -- the merged lexicon --------------------------------------------------------------------------
@dataclass
class GermanLexicon:
    """Synonym sets, genders, inflected forms and English translations of German nouns.

    ``genders`` counts the genders every source gives a noun (one vote per Ding entry and per
    german-nouns row): :meth:`gender` is the gender with a strict majority of the votes, so a stray
    error (Ding lists ``Kirche {m}`` once among many ``{f}``) is outvoted, while a noun with two
    genders (``der/die See``) is ambiguous and never used as a replacement. ``forms`` (by lemma and
    gender) come from german-nouns only; without them
    :func:`~lingtest.contrapro.german.decline_noun_default` is used."""

    synsets: list[tuple[str, ...]] = field(default_factory=list)
    genders: dict[str, Counter[str]] = field(default_factory=dict)
    forms: dict[tuple[str, str], dict[tuple[str, str], str]] = field(default_factory=dict)
    translations: dict[str, set[str]] = field(default_factory=dict)
    sources: tuple[str, ...] = ()
    _index: dict[str, list[int]] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        self.reindex()

    def reindex(self) -> None:
        self._index = {}
        for i, syn in enumerate(self.synsets):
            for w in syn:
                self._index.setdefault(w, []).append(i)

    def gender(self, noun: str) -> str | None:
        """The gender of ``noun`` with a strict majority of the votes, else ``None``."""
        votes = self.genders.get(noun)
        if not votes:
            return None
        (top, n), *_ = votes.most_common(1)
        return top if 2 * n > sum(votes.values()) else None

    def synonyms(self, lemma: str) -> list[str]:
        """Synonyms of ``lemma`` in synonym-set order (first set first), without ``lemma``."""
        out: list[str] = []
        for i in self._index.get(lemma, []):
            for w in self.synsets[i]:
                if w != lemma and w not in out:
                    out.append(w)
        return out

    def translations_of(self, noun: str) -> set[str]:
        return self.translations.get(noun, set())

    def nouns_translating(self, english: str) -> list[str]:
        """German nouns whose Ding translations include ``english`` (lower-cased), sorted."""
        e = english.lower()
        return sorted(w for w, ts in self.translations.items() if e in ts)

    def form(self, lemma: str, gender: str, case: str, number: str) -> str | None:
        """The form of the noun ``lemma`` of ``gender`` for ``case`` and ``number`` (german-nouns)."""
        return self.forms.get((lemma, gender), {}).get((case, number))


def merge_lexicon(
    *,
    synsets: list[tuple[str, ...]] | None = None,
    ding: DingNouns | None = None,
    nouns: NounTable | None = None,
) -> GermanLexicon:
    genders: dict[str, Counter[str]] = {}
    sources = []
    for src_name, table in (("ding", ding), ("german_nouns", nouns)):
        if table is None:
            continue
        sources.append(src_name)
        for w, gs in table.genders.items():
            genders.setdefault(w, Counter()).update(gs)
    if synsets is not None:
        sources.insert(0, "openthesaurus")
    return GermanLexicon(
        synsets=list(synsets or []),
        genders=genders,
        forms=dict(nouns.forms) if nouns is not None else {},
        translations={w: set(t) for w, t in (ding.translations.items() if ding else [])},
        sources=tuple(sources),
    )


def load_lexicon(
    *, openthesaurus: str | Path | None, ding: str | Path | None, german_nouns: str | Path | bool | None
) -> GermanLexicon:
    """Read the configured resources (``None``/``False``: not used). ``german_nouns=True`` reads the
    CSV of the installed package; a path reads that file. At least one gender source is needed."""
    if ding is None and german_nouns in (None, False):
        raise MissingResourceError(
            "the synonym attack needs noun genders: configure the Ding dictionary "
            f"({DING_HINT}) and/or german-nouns ({GERMAN_NOUNS_HINT})"
        )
    synsets = load_openthesaurus(openthesaurus) if openthesaurus is not None else None
    ding_nouns = load_ding(ding) if ding is not None else None
    nouns = None
    if german_nouns not in (None, False):
        nouns = load_german_nouns(None if german_nouns is True else german_nouns)  # type: ignore[arg-type]
    return merge_lexicon(synsets=synsets, ding=ding_nouns, nouns=nouns)
