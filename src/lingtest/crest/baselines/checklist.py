"""CheckList (Ribeiro, Wu, Guestrin and Singh, ACL 2020): its perturbations except negation, as the CREST paper
uses them, on the tokens of a parsed source.

The ``checklist`` package does not run offline (it imports ``pattern``, which downloads NLTK's WordNet and
``wordnet_ic`` at import time), so its ``Perturb`` functions are re-implemented here as small pure functions
over tokens, with the same defaults:

* ``typos`` (``Perturb.add_typos``): ``typos`` random swaps of neighbouring characters of the sentence's
  text; a swap with a space moves a letter to the next or previous word (*his country* -> *hi scountry*);
  swaps that would empty a word or touch more than a single space are drawn again;
* ``contractions`` (``Perturb.contractions``): every contraction expanded, and every contractible pair
  contracted, in PTB token form (*is n't* <-> *is not*, *he 's* <-> *he is*; see
  :mod:`~lingtest.crest.baselines.lexicon`);
* ``change_names`` (``Perturb.change_names``): each PERSON entity (spaCy NER of the source) of one or two
  tokens whose first token is a known first name (and whose second, if any, is a known last name or at most
  two letters) replaced, at every occurrence, by ``names`` random names of the same sex (with a random last
  name for a full name) drawn from the first ``name_pool`` names;
* ``change_location`` (``Perturb.change_location``): each GPE entity that is a known city (country) replaced
  at every occurrence by ``locations`` random cities from the first ``city_pool`` (countries from the first
  ``country_pool``) of the same number of tokens (CheckList does not require that; a record holds one
  alignment of token replacements);
* ``change_number`` (``Perturb.change_number``): each integer token other than 2 and 4 replaced at every
  occurrence by ``numbers`` random integers within 20 % of it;
* ``punctuation`` (``Perturb.punctuation``): the trailing punctuation removed, and/or a final full stop.

Follow-ups of a source come recipe by recipe in the configured order, duplicates dropped, at most M.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import ClassVar, Literal

from lingtest.config import Block
from lingtest.crest.baselines import lexicon as L
from lingtest.crest.baselines.base import Generated, Parts, distinct, source_rng
from lingtest.crest.baselines.edits import Edit, Perturbation
from lingtest.crest.generate import Source
from lingtest.data.model import Sentence

Recipe = Literal["typos", "contractions", "change_names", "change_location", "change_number", "punctuation"]
RECIPES: tuple[str, ...] = ("typos", "contractions", "change_names", "change_location", "change_number",
                            "punctuation")


class CheckListConfig(Block):
    """``crest_baselines.checklist``."""

    recipes: list[Recipe]           # in generation order (CheckList's perturbations except negation)
    typo_samples: int               # typo follow-ups per source (Perturb.perturb with add_typos: 1)
    typos: int                      # character swaps per typo follow-up (add_typos: typos=1)
    draws: int                      # attempts per typo follow-up before giving up
    names: int                      # replacement names per person (change_names: n=10)
    name_pool: int                  # names drawn from the first this many (CheckList: 90 + n)
    locations: int                  # replacement places per place (change_location: n=10)
    city_pool: int                  # CheckList: the first 100 cities
    country_pool: int               # CheckList: the first 50 countries
    numbers: int                    # replacement integers per integer (change_number: n=10)


# ---- typos ------------------------------------------------------------------------------------------
def swap_characters(words: list[str], ws: Sequence[str], index: int) -> list[str] | None:
    """The words after swapping characters ``index`` and ``index + 1`` of the text ``words``/``ws`` make
    (``None`` when the swap changes nothing, empties a word or involves more than one space)."""
    owner: list[tuple[int, int | None]] = []  # (token, offset in it; None for its trailing whitespace)
    for t, (w, s) in enumerate(zip(words, ws, strict=True)):
        owner.extend((t, k) for k in range(len(w)))
        owner.extend((t, None) for _ in s)
    if not 0 <= index < len(owner) - 1:
        return None
    (ta, ka), (tb, kb) = owner[index], owner[index + 1]
    out = list(words)
    if ka is not None and kb is not None:
        if ta == tb:
            w = out[ta]
            out[ta] = w[:ka] + w[ka + 1] + w[ka] + w[ka + 2:]
        else:  # adjacent tokens without whitespace: the two characters change tokens
            out[ta], out[tb] = out[ta][:-1] + out[tb][0], out[ta][-1] + out[tb][1:]
    elif ka is not None:  # a letter and the single space after its word: it moves to the next word
        if ws[ta] != " " or len(out[ta]) < 2 or ta + 1 >= len(out):
            return None
        out[ta], out[ta + 1] = out[ta][:-1], out[ta][-1] + out[ta + 1]
    elif kb is not None:  # the single space before a word and its first letter: it moves to the previous word
        if ws[ta] != " " or len(out[tb]) < 2:
            return None
        out[ta], out[tb] = out[ta] + out[tb][0], out[tb][1:]
    else:
        return None
    return None if out == list(words) else out


def typo_perturbation(sentence: Sentence, rng: random.Random, typos: int, draws: int) -> Perturbation | None:
    """``typos`` character swaps at random places of the sentence's text (CheckList's ``add_typos``)."""
    words = sentence.words
    ws = [t.ws for t in sentence.tokens]
    ws[-1] = ""  # the text ends at the last word
    for _ in range(max(1, draws)):
        cur = list(words)
        ok = True
        for _ in range(typos):
            length = sum(len(w) + len(s) for w, s in zip(cur, ws, strict=True))
            if length < 2:
                return None
            nxt = swap_characters(cur, ws, rng.randrange(length - 1))
            if nxt is None:
                ok = False
                break
            cur = nxt
        if ok and cur != words:
            edits = tuple(Edit(i, (w,)) for i, (w, old) in enumerate(zip(cur, words, strict=True)) if w != old)
            return Perturbation(edits, "typos")
    return None


# ---- contractions ------------------------------------------------------------------------------------
def expand_contractions(sentence: Sentence) -> Perturbation | None:
    """Every contraction written out (*n't* -> *not*, *'s* -> *is* after a pronoun, ...)."""
    words = sentence.words
    edits: list[Edit] = []
    for i in range(1, len(words)):
        prev, w = words[i - 1].lower(), words[i].lower()
        if w == "n't":
            base = {v: k for k, v in L.IRREGULAR_NEGATIONS.items()}.get(prev)
            if base is not None:
                edits.append(Edit(i - 1, (match_case(base, words[i - 1]),)))
                edits.append(Edit(i, ("not",), prev_ws=" "))
            elif prev in L.NOT_AUXILIARIES:
                edits.append(Edit(i, ("not",), prev_ws=" "))
        elif w in L.EXPAND_AFTER and prev in L.EXPAND_AFTER[w][1]:
            edits.append(Edit(i, (L.EXPAND_AFTER[w][0],), prev_ws=" "))
    return Perturbation(tuple(edits), "contractions") if edits else None


def contract(sentence: Sentence) -> Perturbation | None:
    """Every contractible pair contracted (*is not* -> *is n't*, *he is* -> *he 's*, ...)."""
    words = sentence.words
    edits: list[Edit] = []
    used: set[int] = set()
    for i in range(1, len(words)):
        prev, w = words[i - 1].lower(), words[i].lower()
        if i - 1 in used:
            continue
        if w == "not" and (prev in L.NOT_AUXILIARIES or prev in L.IRREGULAR_NEGATIONS):
            if prev in L.IRREGULAR_NEGATIONS:
                edits.append(Edit(i - 1, (match_case(L.IRREGULAR_NEGATIONS[prev], words[i - 1]),)))
            edits.append(Edit(i, ("n't",), prev_ws=""))
            used.update((i - 1, i))
        elif w in L.CONTRACT_AFTER and prev in L.CONTRACT_AFTER[w][1]:
            edits.append(Edit(i, (L.CONTRACT_AFTER[w][0],), prev_ws=""))
            used.update((i - 1, i))
    return Perturbation(tuple(edits), "contractions") if edits else None


def match_case(word: str, like: str) -> str:
    return word[:1].upper() + word[1:] if like[:1].isupper() else word


# ---- entities ---------------------------------------------------------------------------------------
def entity_spans(sentence: Sentence, label: str) -> list[tuple[int, int]]:
    """Token spans of the entities labelled ``label`` (IOB2 tags on the tokens)."""
    out = []
    start = None
    for i, t in enumerate([*sentence.tokens, None]):
        tag = (t.ent or "O") if t is not None else "O"
        if start is not None and tag != f"I-{label}":
            out.append((start, i))
            start = None
        if tag == f"B-{label}":
            start = i
    return out


def replace_everywhere(words: Sequence[str], old: Sequence[str], new: Sequence[str]) -> tuple[Edit, ...]:
    """One-for-one edits that replace every occurrence of the word sequence ``old`` by ``new`` (same length)."""
    if len(old) != len(new):
        raise ValueError("a replacement keeps the number of words")
    edits: list[Edit] = []
    i, n = 0, len(old)
    while i + n <= len(words):
        if list(words[i:i + n]) == list(old):
            edits.extend(Edit(i + k, (w,)) for k, w in enumerate(new) if w != old[k])
            i += n
        else:
            i += 1
    return tuple(edits)


def name_replacements(name: Sequence[str], rng: random.Random, n: int, pool: int) -> list[list[str]]:
    """CheckList's ``change_names`` for one PERSON entity: ``n`` random names of the sex of its first name
    (with a random last name when it has two words); none when the first word is no known first name or
    the second is neither a known last name nor at most two letters."""
    if len(name) not in (1, 2):
        return []
    first = name[0].capitalize()
    sex = L.WOMEN if first in L.WOMEN else L.MEN if first in L.MEN else None
    if sex is None:
        return []
    if len(name) == 2 and len(name[1]) > 2 and name[1].capitalize() not in L.LAST:
        return []
    firsts = [rng.choice(sex[:pool]) for _ in range(n)]
    if len(name) == 1:
        return [[f] for f in firsts]
    return [[f, rng.choice(L.LAST[:pool])] for f in firsts]


def location_replacements(place: Sequence[str], rng: random.Random, n: int, city_pool: int,
                          country_pool: int) -> list[list[str]]:
    """CheckList's ``change_location`` for one GPE entity: ``n`` random cities (countries) for a known city
    (country), of the same number of words."""
    text = " ".join(place)
    if text in L.CITIES:
        pool = L.CITIES[:city_pool]
    elif text in L.COUNTRIES:
        pool = L.COUNTRIES[:country_pool]
    else:
        return []
    same = [p.split() for p in pool if len(p.split()) == len(place) and p != text]
    return [rng.choice(same) for _ in range(n)] if same else []


def number_replacements(token: str, rng: random.Random, n: int) -> list[str]:
    """CheckList's ``change_number``: up to ``n`` integers within 20 % of ``token`` (not for 2 and 4)."""
    if not token.isdigit() or token in ("2", "4"):
        return []
    x = int(token)
    change = int(x * 0.2) + 1
    low = -min(change, x - 1)
    draws = [x + rng.randint(low, change) for _ in range(n * 3)]
    return [str(v) for v in draws if str(v) != token][:n]


def entity_perturbations(sentence: Sentence, recipe: str, spans: Sequence[tuple[int, int]],
                         replacements: Callable[[list[str]], list[list[str]]]) -> list[Perturbation]:
    words = sentence.words
    out = []
    for s, e in spans:
        old = words[s:e]
        for new in replacements(old):
            edits = replace_everywhere(words, old, new)
            if edits:
                out.append(Perturbation(edits, recipe))
    return out


# ---- punctuation -------------------------------------------------------------------------------------
def punctuation_perturbations(source: Source) -> list[Perturbation]:
    """CheckList's ``punctuation``: the sentence without its trailing punctuation (when it has some), and
    with one final full stop instead (unless it already ends so)."""
    sent = source.sentence
    words, ws = sent.words, [t.ws for t in sent.tokens]
    n = len(words)
    k = n
    while k > 0 and sent.tokens[k - 1].pos == "PUNCT":
        k -= 1
    out = []
    if k < n and k > 0:
        out.append(Perturbation(tuple(Edit(i, ()) for i in range(k, n)), "punctuation"))
    if k == n:  # no trailing punctuation: a full stop glued to the last word (which carries it)
        out.append(Perturbation((Edit(n - 1, (words[-1], "."), keep=0, ws=("", ws[-1])),), "punctuation"))
    elif k > 0 and words[k:] != ["."]:
        out.append(Perturbation((Edit(k, (".",)),) + tuple(Edit(i, ()) for i in range(k + 1, n)), "punctuation"))
    return out


class CheckList:
    name: ClassVar[str] = "checklist"
    Config = CheckListConfig

    @classmethod
    def from_config(cls, config: CheckListConfig, parts: Parts) -> CheckList:
        return cls(config)

    def __init__(self, config: CheckListConfig) -> None:
        self.config = config

    def perturbations(self, source: Source, recipe: str, rng: random.Random) -> list[Perturbation]:
        c = self.config
        sent = source.sentence
        if recipe == "typos":
            typos = [typo_perturbation(sent, rng, c.typos, c.draws) for _ in range(c.typo_samples)]
            return [p for p in typos if p is not None]
        if recipe == "contractions":
            return [p for p in (expand_contractions(sent), contract(sent)) if p is not None]
        if recipe == "change_names":
            return entity_perturbations(sent, recipe, entity_spans(sent, "PERSON"),
                                        lambda old: name_replacements(old, rng, c.names, c.name_pool))
        if recipe == "change_location":
            return entity_perturbations(sent, recipe, entity_spans(sent, "GPE"),
                                        lambda old: location_replacements(old, rng, c.locations, c.city_pool,
                                                                          c.country_pool))
        if recipe == "change_number":
            first = {w: i for i, w in reversed(list(enumerate(sent.words))) if w.isdigit()}
            return entity_perturbations(sent, recipe, sorted((i, i + 1) for i in first.values()),
                                        lambda old: [[v] for v in number_replacements(old[0], rng, c.numbers)])
        if recipe == "punctuation":
            return punctuation_perturbations(source)
        raise ValueError(f"unknown CheckList recipe {recipe!r}; known: {', '.join(RECIPES)}")

    def generate(self, sources: Sequence[Source], M: int, seed: int) -> Generated:
        out = Generated([])
        for source in sources:
            rng = source_rng(seed, self.name, source.id)
            made: list[Perturbation] = []
            for recipe in self.config.recipes:
                got = self.perturbations(source, recipe, rng)
                out.proposed[recipe] += len(got)
                made.extend(got)
            kept = distinct(source, made)[:M]
            out.dropped["duplicate_or_cap"] += len(made) - len(kept)
            out.kept.update(p.recipe for p in kept)
            out.followups.append(kept)
        return out
