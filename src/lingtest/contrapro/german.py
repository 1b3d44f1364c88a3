"""German determiners, preposition-article contractions, pronoun genders and noun declension: the
morphology the ContraPro attacks need to re-decline an article for a new gender without a parser.

A determiner is a *lexeme* (the definite article, a der-word such as ``dieser``, an ein-word such as
``ein``/``kein``/``mein``) whose form is a cell (gender, case, number) of its paradigm:
:func:`parse_determiner` lists the readings of a word form, :func:`inflect_determiner` gives the form
of a lexeme for a cell. Genders are ``m``/``f``/``n`` (plural has none: gender ``p``), cases
``Nom``/``Acc``/``Dat``/``Gen``, numbers ``Sg``/``Pl``, as in ContraPro's ``ref ante head morpho``
(``Masc|Acc|Sg``; ``_`` for an unknown field, read by :func:`parse_morpho`).
"""

from __future__ import annotations

from dataclasses import dataclass

GENDERS = ("m", "f", "n")
CASES = ("Nom", "Acc", "Dat", "Gen")
NUMBERS = ("Sg", "Pl")

#: ContraPro's gender names -> m/f/n
GENDER_NAMES = {"Masc": "m", "Fem": "f", "Neut": "n", "m": "m", "f": "f", "n": "n"}

_DEFINITE = {
    "m": ("der", "den", "dem", "des"),
    "f": ("die", "die", "der", "der"),
    "n": ("das", "das", "dem", "des"),
    "p": ("die", "die", "den", "der"),
}
_DER_ENDINGS = {
    "m": ("er", "en", "em", "es"),
    "f": ("e", "e", "er", "er"),
    "n": ("es", "es", "em", "es"),
    "p": ("e", "e", "en", "er"),
}
_EIN_ENDINGS = {
    "m": ("", "en", "em", "es"),
    "f": ("e", "e", "er", "er"),
    "n": ("", "", "em", "es"),
    "p": ("e", "e", "en", "er"),
}
#: der-words (``dieser``...) and ein-words (``kein``, possessives) by stem
DER_STEMS = ("dies", "jen", "jed", "welch", "manch", "solch")
EIN_STEMS = ("ein", "kein", "mein", "dein", "sein", "ihr", "unser", "euer")

#: preposition + article contractions -> (preposition, article)
CONTRACTIONS = {
    "im": ("in", "dem"),
    "am": ("an", "dem"),
    "zum": ("zu", "dem"),
    "zur": ("zu", "der"),
    "vom": ("von", "dem"),
    "beim": ("bei", "dem"),
    "ins": ("in", "das"),
    "ans": ("an", "das"),
    "aufs": ("auf", "das"),
    "fürs": ("für", "das"),
    "ums": ("um", "das"),
    "durchs": ("durch", "das"),
    "übers": ("über", "das"),
    "unters": ("unter", "das"),
    "vors": ("vor", "das"),
    "hinters": ("hinter", "das"),
}
_CONTRACT = {v: k for k, v in CONTRACTIONS.items()}

#: German personal pronouns (3rd person singular) -> the antecedent gender(s) they agree with
PRONOUN_GENDERS = {
    "er": ("m",),
    "ihn": ("m",),
    "ihm": ("m", "n"),
    "sie": ("f",),
    "ihr": ("f",),
    "es": ("n",),
    "seiner": ("m", "n"),
    "ihrer": ("f",),
}


@dataclass(frozen=True, slots=True)
class Determiner:
    """A determiner lexeme: ``kind`` is ``definite``, ``der`` (der-word) or ``ein`` (ein-word), ``stem``
    its stem (``""`` for the definite article)."""

    kind: str
    stem: str


@dataclass(frozen=True, slots=True)
class Morph:
    """Gender, case, number of a noun phrase; ``None`` where unknown."""

    gender: str | None
    case: str | None
    number: str | None

    @property
    def cell(self) -> str | None:
        """The paradigm column: the gender in the singular, ``p`` in the plural."""
        return "p" if self.number == "Pl" else self.gender


def parse_morpho(morpho: str | None) -> Morph:
    """ContraPro's ``ref ante head morpho`` (``Masc|Acc|Sg``, ``Fem|_|Sg``, ``_|_|_``) as a :class:`Morph`."""
    parts = (morpho or "").split("|")
    parts += ["_"] * (3 - len(parts))
    g, c, n = parts[:3]
    return Morph(GENDER_NAMES.get(g), c if c in CASES else None, n if n in NUMBERS else None)


def _stem_form(stem: str, ending: str) -> str:
    if stem == "euer" and ending:
        return "eur" + ending  # euer -> eure, euren (the e drops before an ending)
    return stem + ending


def inflect_determiner(det: Determiner, cell: str, case: str) -> str | None:
    """The form of ``det`` for ``cell`` (m/f/n/p) and ``case`` (lower case); ``None`` where the
    lexeme has no such form (``ein`` in the plural)."""
    k = CASES.index(case)
    if det.kind == "definite":
        return _DEFINITE[cell][k]
    if det.kind == "der":
        return det.stem + _DER_ENDINGS[cell][k]
    if det.stem == "ein" and cell == "p":
        return None
    return _stem_form(det.stem, _EIN_ENDINGS[cell][k])


def parse_determiner(word: str) -> list[tuple[Determiner, str, str]]:
    """Every reading of ``word`` as a determiner: ``(lexeme, cell, case)`` triples (empty when it is
    not a determiner form)."""
    w = word.lower()
    out: list[tuple[Determiner, str, str]] = []
    lexemes = [Determiner("definite", "")]
    lexemes += [Determiner("der", s) for s in DER_STEMS if w.startswith(s)]
    lexemes += [
        Determiner("ein", s) for s in EIN_STEMS if w.startswith(s) or (s == "euer" and w.startswith("eur"))
    ]
    for det in lexemes:
        for cell in ("m", "f", "n", "p"):
            for case in CASES:
                if inflect_determiner(det, cell, case) == w:
                    out.append((det, cell, case))
    return out


def match_capitalisation(new: str, old: str) -> str:
    """``new`` with the capitalisation of ``old`` (all caps, initial capital or as is)."""
    if len(old) > 1 and old.isupper():
        return new.upper()
    if old[:1].isupper():
        return new[:1].upper() + new[1:]
    return new


def redecline(word: str, old: Morph, new_gender: str) -> tuple[str | None, str]:
    """Re-decline the determiner ``word`` of a noun phrase with morphology ``old`` for a noun of
    ``new_gender`` (same case and number). Returns ``(new form, case)`` or ``(None, reason)``.

    The case comes from ``old.case`` when known; otherwise it is read off the form itself: every
    case in which ``word`` is the form for ``old``'s gender and number is tried, and the result must
    agree (``die`` of a feminine noun is nominative or accusative: ``das`` for a neuter noun either
    way, but ``der``/``den`` for a masculine one, which is ambiguous)."""
    readings = parse_determiner(word)
    if not readings:
        return None, f"{word!r} is not a determiner"
    cell_old = old.cell
    number = old.number or "Sg"
    new_cell = "p" if number == "Pl" else new_gender
    fits = [(d, c, k) for d, c, k in readings if cell_old is None or c == cell_old]
    if old.case is not None:
        fits = [r for r in fits if r[2] == old.case]
    if not fits:
        return None, f"{word!r} does not agree with {old}"
    forms = {(inflect_determiner(d, new_cell, k), k) for d, _, k in fits}
    new_forms = {f for f, _ in forms}
    if None in new_forms:
        return None, f"{word!r} has no form for {new_cell}"
    if len(new_forms) != 1:
        return None, f"case of {word!r} is ambiguous ({', '.join(sorted(new_forms))})"  # type: ignore[arg-type]
    (form,) = new_forms
    cases = sorted({k for _, k in forms}, key=CASES.index)
    return match_capitalisation(str(form), word), cases[0] if len(cases) == 1 else "|".join(cases)


def split_contraction(word: str) -> tuple[str, str] | None:
    """``zum`` -> ``("zu", "dem")``; ``None`` for a word that is not a contraction."""
    return CONTRACTIONS.get(word.lower())


def join_contraction(prep: str, article: str, like: str) -> str:
    """``("zu", "der")`` -> ``zur``, ``("in", "die")`` -> ``in die``; capitalised like ``like``."""
    joined = _CONTRACT.get((prep.lower(), article.lower()), f"{prep.lower()} {article.lower()}")
    return match_capitalisation(joined, like)


def decline_noun_default(lemma: str, gender: str, case: str, number: str) -> str | None:
    """A noun form without a lexicon: the lemma, with ``-s``/``-es`` in the masculine and neuter
    genitive singular. ``None`` for the plural (not derivable without a lexicon). Weak masculine
    nouns (``den Menschen``) need the lexicon's forms (:class:`lingtest.contrapro.lexicon.GermanLexicon`)."""
    if number == "Pl":
        return None
    if case == "Gen" and gender in ("m", "n"):
        return lemma + ("es" if lemma.endswith(("s", "ß", "x", "z", "sch")) else "s")
    return lemma


def pronoun_genders(word: str) -> tuple[str, ...]:
    """Genders a German 3rd-person pronoun form agrees with (``()`` for another word)."""
    return PRONOUN_GENDERS.get(word.lower(), ())
