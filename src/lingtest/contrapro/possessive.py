"""Possessive extension (attack 2): the antecedent phrase ``A`` gets a possessor, a new human (or
organisation) entity that ``it`` cannot refer to: English ``a wish`` -> ``the woman's wish``, German
``einen Wunsch`` -> ``den Wunsch von der Frau`` (or the genitive ``den Wunsch des Unternehmens``, or
a name: ``Marias Wunsch``). The pronoun's antecedent is still ``A``, so the reference is unchanged.

As in the public release (``scripts/adversarial_attack/possessive_extension.py``), an example
qualifies when its antecedent is at distance 0 (in the main sentence: the source and every candidate
are edited) or 1 (in the context), the English antecedent phrase has an admitted POS pattern
(:func:`admitted`; the release's patterns are :data:`RELEASE_POS_PATTERNS`), the German phrase has as
many words as the English one and both phrases are found in their texts. English: the first word (the
determiner) is replaced by the possessor. German: the determiner becomes the definite article of the
same gender, case and number, and the possessor follows the phrase; a name replaces the determiner.
The case comes from ``ref ante head morpho`` or, where that says ``_``, from the determiner's form
(:func:`lingtest.contrapro.german.redecline`). The German determiner maps of the release are not
public; this is lingtest's own declension.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from lingtest.contrapro.attack import (
    Skip,
    edit_example,
    english_side,
    example_texts,
    find_phrase,
    german_sides,
    resolve_named,
    splice,
    tokens,
    words,
)
from lingtest.contrapro.german import (
    GENDER_NAMES,
    Determiner,
    Morph,
    inflect_determiner,
    match_capitalisation,
    parse_determiner,
    parse_morpho,
)
from lingtest.contrapro.metadata import ante_distance, field_str
from lingtest.data.model import ContrastiveExample
from lingtest.errors import ConfigError

ATTACK = "possessive"

#: a tagger: English phrase -> its words with Penn Treebank tags
Tagger = Callable[[str], list[tuple[str, str]]]

#: the admitted POS patterns of the release's ``VALID_POS_SEQS``
RELEASE_POS_PATTERNS: tuple[tuple[str, ...], ...] = (
    ("PRP$", "NN"),
    ("DT", "NN"),
    ("DT", "NNP"),
    ("DT", "JJ", "NN"),
    ("DT", "NN", "NN"),
    ("PRP$", "JJ", "NN"),
    ("DT", "NNP", "NNP"),
)


@dataclass(frozen=True, slots=True)
class Possessor:
    """``en``: the English possessive that replaces the determiner (``the woman's``); ``de``: the German
    possessor; ``de_position``: ``after`` (a genitive or von-phrase after the phrase, the determiner
    made definite) or ``before`` (a name's genitive replacing the determiner: ``Marias``)."""

    name: str
    en: str
    de: str
    de_position: Literal["after", "before"] = "after"

    @classmethod
    def from_dict(cls, name: str, d: Mapping[str, Any]) -> Possessor:
        allowed = {"en", "de", "de_position"}
        unknown = sorted(set(d) - allowed)
        if unknown:
            raise ConfigError(f"possessor {name!r}: unknown key(s) {', '.join(unknown)}")
        p = cls(name=name, **dict(d))
        if p.de_position not in ("after", "before"):
            raise ConfigError(f"possessor {name!r}: de_position must be 'after' or 'before'")
        return p


def _name(n: str) -> Possessor:
    return Possessor(n.lower(), f"{n}'s", f"{n}s", "before")


#: the possessors of the public release (its output folders: company, woman, man, mother, father,
#: dog, cat, doctor_male, doctor_female, best_friend, government and the names)
RELEASE_POSSESSORS: dict[str, Possessor] = {
    p.name: p
    for p in (
        Possessor("company", "the company's", "des Unternehmens"),
        Possessor("woman", "the woman's", "von der Frau"),
        Possessor("man", "the man's", "vom Mann"),
        Possessor("mother", "my mother's", "von meiner Mutter"),
        Possessor("father", "my father's", "von meinem Vater"),
        Possessor("dog", "the dog's", "vom Hund"),
        Possessor("cat", "the cat's", "von der Katze"),
        Possessor("doctor_male", "the doctor's", "vom Arzt"),
        Possessor("doctor_female", "the doctor's", "von der Ärztin"),
        Possessor("best_friend", "my best friend's", "von meinem besten Freund"),
        Possessor("government", "the government's", "der Regierung"),
        _name("Maria"),
        _name("Lisa"),
        _name("Bolsena"),
        _name("Peter"),
        _name("Robert"),
        _name("David"),
    )
}


def resolve_possessors(
    names: list[str], custom: Mapping[str, Mapping[str, Any]] | None = None
) -> list[Possessor]:
    """The possessors named in ``names``: one of the release or one defined in ``custom``."""
    return resolve_named(names, RELEASE_POSSESSORS, custom, Possessor.from_dict, "possessor")


def parse_patterns(patterns: Sequence[Sequence[str] | str]) -> tuple[tuple[str, ...], ...]:
    """POS patterns from config: lists of tags or space-separated strings (``"DT JJ NN"``)."""
    return tuple(tuple(p.split()) if isinstance(p, str) else tuple(p) for p in patterns)


def admitted(tags: Sequence[str], patterns: Sequence[Sequence[str]]) -> bool:
    """Whether the tag sequence of an antecedent phrase is one of ``patterns``."""
    return tuple(tags) in {tuple(p) for p in patterns}


@dataclass(frozen=True)
class Eligibility:
    """Why an example qualifies for the possessive extension (or the reason it does not)."""

    ok: bool
    reason: str = ""
    distance: int | None = None
    en_words: tuple[str, ...] = ()
    de_words: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()


def eligibility(
    ex: ContrastiveExample, tagger: Tagger, *, patterns: Sequence[Sequence[str]], distances: Sequence[int]
) -> Eligibility:
    dist = ante_distance(ex)
    if dist is None:
        return Eligibility(False, "no antecedent distance")
    if dist not in distances:
        return Eligibility(False, f"antecedent distance {dist}")
    en, de = field_str(ex, "src ante phrase"), field_str(ex, "ref ante phrase")
    if en is None or de is None:
        return Eligibility(False, "no antecedent phrase")
    tagged = tagger(en)
    tags = tuple(t for _, t in tagged)
    if not admitted(tags, patterns):
        return Eligibility(False, f"POS pattern not admitted: {' '.join(tags)}")
    de_words = tuple(words(de))
    if len(de_words) != len(tagged):
        return Eligibility(False, f"German phrase has {len(de_words)} words, English {len(tagged)}")
    return Eligibility(
        True, distance=dist, en_words=tuple(w for w, _ in tagged), de_words=de_words, tags=tags
    )


def _english_edit(text: str, en_words: Sequence[str], possessor: Possessor) -> tuple[str, str] | None:
    """(new text, new phrase) or ``None`` when the phrase is not in ``text``."""
    span = find_phrase(text, en_words)
    if span is None:
        return None
    toks = tokens(text)
    i, j = span
    first = toks[i]
    new_det = match_capitalisation(possessor.en, first.text) if first.text[:1].isupper() else possessor.en
    new_text = splice(text, [(first.start, first.end, new_det)])
    return new_text, " ".join([new_det, *[t.text for t in toks[i + 1 : j]]])


def definite_for(det_word: str, morpho: str | None, gender_name: str | None) -> tuple[str, str] | None:
    """The definite article replacing the determiner ``det_word`` (same gender, case, number), with
    the case; ``None`` when the determiner is unknown or its case ambiguous."""
    m = parse_morpho(morpho)
    if m.gender is None and gender_name:
        m = Morph(GENDER_NAMES.get(gender_name), m.case, m.number)
    readings = parse_determiner(det_word)
    cell = m.cell
    fits = [
        (d, c, k) for d, c, k in readings if (cell is None or c == cell) and (m.case is None or k == m.case)
    ]
    forms = {(inflect_determiner(Determiner("definite", ""), c, k), k) for _, c, k in fits}
    arts = {f for f, _ in forms}
    if len(arts) != 1:
        return None
    (art,) = arts
    return match_capitalisation(str(art), det_word), "|".join(sorted({k for _, k in forms}))


def _german_edit(
    text: str, de_words: Sequence[str], possessor: Possessor, article: str
) -> tuple[str, str] | None:
    span = find_phrase(text, de_words)
    if span is None:
        return None
    toks = tokens(text)
    i, j = span
    first, last = toks[i], toks[j - 1]
    if possessor.de_position == "before":
        name = match_capitalisation(possessor.de, first.text) if first.text[:1].isupper() else possessor.de
        edits = [(first.start, first.end, name)]
        phrase = [name, *[t.text for t in toks[i + 1 : j]]]
    else:
        edits = [(first.start, first.end, article), (last.end, last.end, " " + possessor.de)]
        phrase = [article, *[t.text for t in toks[i + 1 : j]], possessor.de]
    return splice(text, edits), " ".join(phrase)


def possessive_extension(
    ex: ContrastiveExample,
    possessor: Possessor,
    tagger: Tagger,
    *,
    patterns: Sequence[Sequence[str]],
    distances: Sequence[int],
) -> ContrastiveExample | Skip:
    """The example with the antecedent phrase extended by ``possessor`` (see the module docstring),
    or a :class:`Skip` saying why not."""
    el = eligibility(ex, tagger, patterns=patterns, distances=distances)
    if not el.ok:
        return Skip(ex.id, el.reason)
    assert el.distance is not None
    de_det = el.de_words[0]
    if not parse_determiner(de_det):
        return Skip(ex.id, f"German phrase does not start with a determiner: {de_det}")
    article, case = "", None
    if possessor.de_position == "after":
        art = definite_for(
            de_det, field_str(ex, "ref ante head morpho"), field_str(ex, "ref ante head gender")
        )
        if art is None:
            return Skip(ex.id, f"case of the German determiner is ambiguous: {de_det}")
        article, case = art
    texts = example_texts(ex)
    new_texts: dict[str, str] = {}
    en_field = english_side(el.distance)
    en_res = _english_edit(texts[en_field], el.en_words, possessor)
    if en_res is None:
        return Skip(ex.id, f"English phrase not found in {en_field}")
    new_texts[en_field], en_phrase = en_res
    de_phrase = ""
    for f in german_sides(ex, el.distance):
        de_res = _german_edit(texts[f], el.de_words, possessor, article)
        if de_res is None:
            return Skip(ex.id, f"German phrase not found in {f}")
        new_texts[f], de_phrase = de_res
    return edit_example(
        ex,
        new_texts,
        ATTACK,
        possessor.name,
        phrase={"en": [" ".join(el.en_words), en_phrase], "de": [" ".join(el.de_words), de_phrase]},
        pos=list(el.tags),
        case=case,
        distance=el.distance,
    )


def spacy_tagger(model: str) -> Tagger:
    """A :data:`Tagger` from a spaCy pipeline (``en_core_web_sm``...; PTB tags in ``tag_``), memoised
    per phrase. Loads the model once (:func:`lingtest.parsing.spacy_backend.load_spacy_model`)."""
    from lingtest.parsing.spacy_backend import load_spacy_model

    nlp = load_spacy_model(model, disable=["parser", "ner", "lemmatizer"])
    memo: dict[str, list[tuple[str, str]]] = {}

    def tag(phrase: str) -> list[tuple[str, str]]:
        if phrase not in memo:
            memo[phrase] = [(t.text, t.tag_) for t in nlp(phrase)]
        return memo[phrase]

    return tag
