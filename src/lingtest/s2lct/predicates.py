"""S2LCT search predicates: a small language for the search-based non-terminals of a capability.

A predicate is a string such as::

    hasattr(length, < 10) and hasattr(label, neutral) and contain(pos, neutral_adj)
    and not (contain(pos, positive_adj) or contain(pos, negative_adj))

* ``hasattr(ATTR, VALUE)``: an explicit attribute of the sentence. ``label`` and ``text`` compare
  by equality; ``length`` (words, a final ``.`` not counted) takes a comparison ``< 10``,
  ``<= 10``, ``> 3``, ``>= 3``, ``== 4``, ``!= 4``; ``hasattr(text, ~ "regex")`` searches a
  Python regular expression in the text, case-insensitively.
* ``contain(pos, SENTIMENT_POS)``: a word whose SentiWordNet sentiment is ``SENTIMENT``
  (``positive``, ``negative``, ``neutral``) and whose PTB tag is of ``POS`` (``adj``, ``noun``,
  ``verb``, ``adv``); ``contain(word, LEXICON)``: a word or multi-word phrase of a named lexicon
  (case-insensitive, on word boundaries).
* ``and``, ``or``, ``not`` and parentheses, with the usual precedence (not > and > or).

:func:`parse_predicate` turns the string into a tree of :class:`Predicate` objects (errors name the
position); :meth:`Predicate.holds` evaluates it on a :class:`SearchSentence` with a
:class:`Knowledge` (lexicons and word sentiment).
"""

from __future__ import annotations

import operator
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Protocol

__all__ = ["And", "Contain", "HasAttr", "Knowledge", "Not", "Or", "Predicate", "PredicateError",
           "SearchSentence", "WordSentiment", "parse_predicate", "sentence_length", "POS_OF_TAG"]

SENTIMENTS = ("positive", "negative", "neutral")
POS_NAMES = ("adj", "noun", "verb", "adv")


def _pos_of_tag(tag: str | None) -> str | None:
    """``adj``/``noun``/``verb``/``adv`` of a PTB tag (proper nouns are nouns), else ``None``."""
    if not tag:
        return None
    if tag.startswith("JJ"):
        return "adj"
    if tag.startswith("NN"):
        return "noun"
    if tag.startswith("VB"):
        return "verb"
    if tag.startswith("RB") or tag == "WRB":
        return "adv"
    return None


POS_OF_TAG: Callable[[str | None], str | None] = _pos_of_tag


class PredicateError(ValueError):
    """A predicate string that does not parse, or names an unknown attribute, lexicon or class."""


class WordSentiment(Protocol):
    def __call__(self, word: str, pos: str) -> str | None:
        """``positive``, ``negative``, ``neutral`` or ``None`` (the word has no entry)."""
        ...


@dataclass(slots=True)
class SearchSentence:
    """A sentence the predicates look at: its words, PTB tags (parallel to ``words``) and label."""

    words: list[str]
    tags: list[str | None]
    label: str | None = None
    id: str = ""
    text: str = ""

    def __post_init__(self) -> None:
        if len(self.tags) != len(self.words):
            raise ValueError(f"{len(self.words)} words but {len(self.tags)} tags")
        if not self.text:
            self.text = " ".join(self.words)


def sentence_length(words: Sequence[str]) -> int:
    """Words, a final ``.`` not counted (the reference's length)."""
    n = len(words)
    return n - 1 if n and words[-1] == "." else n


@dataclass(slots=True)
class Knowledge:
    """What ``contain`` needs: named lexicons (lists of words or phrases) and word sentiment."""

    lexicons: Mapping[str, Sequence[str]] = field(default_factory=dict)
    sentiment: WordSentiment | None = None
    _phrases: dict[str, tuple[frozenset[str], tuple[tuple[str, ...], ...]]] = field(default_factory=dict)

    def phrases(self, name: str) -> tuple[frozenset[str], tuple[tuple[str, ...], ...]]:
        """(single words, multi-word phrases) of lexicon ``name``, lower-cased."""
        if name not in self._phrases:
            if name not in self.lexicons:
                raise PredicateError(f"unknown lexicon {name!r}; known: {', '.join(sorted(self.lexicons))}")
            singles, multi = set(), []
            for entry in self.lexicons[name]:
                parts = tuple(str(entry).lower().split())
                if len(parts) == 1:
                    singles.add(parts[0])
                elif parts:
                    multi.append(parts)
            self._phrases[name] = (frozenset(singles), tuple(multi))
        return self._phrases[name]


class Predicate:
    def holds(self, s: SearchSentence, k: Knowledge) -> bool:  # pragma: no cover - abstract
        raise NotImplementedError

    def check(self, k: Knowledge) -> None:
        """Raise :class:`PredicateError` for names ``k`` does not know (before searching)."""


@dataclass(frozen=True, slots=True)
class And(Predicate):
    parts: tuple[Predicate, ...]

    def holds(self, s: SearchSentence, k: Knowledge) -> bool:
        return all(p.holds(s, k) for p in self.parts)

    def check(self, k: Knowledge) -> None:
        for p in self.parts:
            p.check(k)


@dataclass(frozen=True, slots=True)
class Or(Predicate):
    parts: tuple[Predicate, ...]

    def holds(self, s: SearchSentence, k: Knowledge) -> bool:
        return any(p.holds(s, k) for p in self.parts)

    def check(self, k: Knowledge) -> None:
        for p in self.parts:
            p.check(k)


@dataclass(frozen=True, slots=True)
class Not(Predicate):
    part: Predicate

    def holds(self, s: SearchSentence, k: Knowledge) -> bool:
        return not self.part.holds(s, k)

    def check(self, k: Knowledge) -> None:
        self.part.check(k)


_OPS: dict[str, Callable[[Any, Any], bool]] = {
    "<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge, "==": operator.eq,
    "!=": operator.ne, "=": operator.eq}


@dataclass(frozen=True, slots=True)
class HasAttr(Predicate):
    attr: str
    op: str
    value: str

    def holds(self, s: SearchSentence, k: Knowledge) -> bool:
        if self.attr == "length":
            return _OPS[self.op](sentence_length(s.words), int(self.value))
        if self.op == "~":
            return _regex(self.value).search(s.text) is not None
        got = s.label if self.attr == "label" else s.text
        return _OPS[self.op](got, self.value)


@lru_cache(maxsize=256)
def _regex(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class Contain(Predicate):
    kind: str      # "pos" or "word"
    what: str      # "neutral_adj" ... or a lexicon name

    def holds(self, s: SearchSentence, k: Knowledge) -> bool:
        if self.kind == "word":
            singles, multi = k.phrases(self.what)
            low = [w.lower() for w in s.words]
            if any(w in singles for w in low):
                return True
            return any(tuple(low[i:i + len(p)]) == p for p in multi for i in range(len(low) - len(p) + 1))
        sentiment, pos = self.what.split("_", 1)
        if k.sentiment is None:
            raise PredicateError("contain(pos, ...) needs word sentiment (SentiWordNet)")
        for w, t in zip(s.words, s.tags, strict=True):
            if _pos_of_tag(t) == pos and k.sentiment(w, pos) == sentiment:
                return True
        return False

    def check(self, k: Knowledge) -> None:
        if self.kind == "word":
            k.phrases(self.what)
        elif k.sentiment is None:
            raise PredicateError("contain(pos, ...) needs word sentiment (SentiWordNet)")


# ---- the parser ------------------------------------------------------------------------------
_TOKEN_RE = re.compile(r"""\s*(?:(?P<str>"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*')|(?P<op><=|>=|==|!=|<|>|=|~)
                           |(?P<punct>[(),])|(?P<name>[A-Za-z0-9_\-.]+))""", re.VERBOSE)


def _tokenize(text: str) -> list[tuple[str, str, int]]:
    out, pos = [], 0
    text = text.rstrip()
    while pos < len(text):
        m = _TOKEN_RE.match(text, pos)
        if m is None or m.end() == pos:
            raise PredicateError(f"unexpected character {text[pos:pos + 1]!r} at {pos} in {text!r}")
        kind = m.lastgroup
        assert kind is not None
        value = m.group(kind)
        if kind == "str":
            value = re.sub(r"\\(.)", r"\1", value[1:-1])
        out.append((kind, value, m.start(kind)))
        pos = m.end()
    return out


class _Parser:
    def __init__(self, text: str) -> None:
        self.text = text
        self.toks = _tokenize(text)
        self.i = 0

    def peek(self) -> tuple[str, str, int] | None:
        return self.toks[self.i] if self.i < len(self.toks) else None

    def fail(self, msg: str) -> PredicateError:
        tok = self.peek()
        where = f"at {tok[2]}" if tok else "at the end"
        return PredicateError(f"{msg} {where} in predicate {self.text!r}")

    def take(self, kind: str, value: str | None = None) -> str:
        tok = self.peek()
        if tok is None or tok[0] != kind or (value is not None and tok[1] != value):
            raise self.fail(f"expected {value or kind}")
        self.i += 1
        return tok[1]

    def keyword(self, word: str) -> bool:
        tok = self.peek()
        if tok is not None and tok[0] == "name" and tok[1] == word:
            self.i += 1
            return True
        return False

    def parse(self) -> Predicate:
        p = self.or_()
        if self.peek() is not None:
            raise self.fail("unexpected input")
        return p

    def or_(self) -> Predicate:
        parts = [self.and_()]
        while self.keyword("or"):
            parts.append(self.and_())
        return parts[0] if len(parts) == 1 else Or(tuple(parts))

    def and_(self) -> Predicate:
        parts = [self.not_()]
        while self.keyword("and"):
            parts.append(self.not_())
        return parts[0] if len(parts) == 1 else And(tuple(parts))

    def not_(self) -> Predicate:
        if self.keyword("not"):
            return Not(self.not_())
        return self.atom()

    def atom(self) -> Predicate:
        tok = self.peek()
        if tok is not None and tok[0] == "punct" and tok[1] == "(":
            self.i += 1
            p = self.or_()
            self.take("punct", ")")
            return p
        name = self.take("name")
        self.take("punct", "(")
        if name == "hasattr":
            attr = self.take("name")
            self.take("punct", ",")
            op = "=="
            tok = self.peek()
            if tok is not None and tok[0] == "op":
                op = tok[1] if tok[1] != "=" else "=="
                self.i += 1
            tok = self.peek()
            if tok is None or tok[0] not in ("name", "str"):
                raise self.fail("expected a value")
            self.i += 1
            value = tok[1]
            self.take("punct", ")")
            return _hasattr(attr, op, value, self)
        if name == "contain":
            kind = self.take("name")
            self.take("punct", ",")
            tok = self.peek()
            if tok is None or tok[0] not in ("name", "str"):
                raise self.fail("expected a word class or lexicon")
            self.i += 1
            self.take("punct", ")")
            return _contain(kind, tok[1], self)
        raise PredicateError(f"unknown predicate {name!r} (hasattr, contain) in {self.text!r}")


def _hasattr(attr: str, op: str, value: str, p: _Parser) -> HasAttr:
    if attr == "length":
        if op == "~" or not re.fullmatch(r"-?\d+", value):
            raise PredicateError(f"hasattr(length, ...) takes a comparison with an integer, got {op} {value!r} "
                                 f"in {p.text!r}")
    elif attr in ("label", "text"):
        if op == "~":
            if attr != "text":
                raise PredicateError(f"a regex (~) applies to text only, in {p.text!r}")
            try:
                _regex(value)
            except re.error as exc:
                raise PredicateError(f"bad regex {value!r} ({exc}) in {p.text!r}") from None
        elif op not in ("==", "!="):
            raise PredicateError(f"hasattr({attr}, ...) compares with == or != only, in {p.text!r}")
    else:
        raise PredicateError(f"unknown attribute {attr!r} (label, length, text) in {p.text!r}")
    return HasAttr(attr, op, value)


def _contain(kind: str, what: str, p: _Parser) -> Contain:
    if kind == "pos":
        parts = what.split("_", 1)
        if len(parts) != 2 or parts[0] not in SENTIMENTS or parts[1] not in POS_NAMES:
            raise PredicateError(f"contain(pos, ...) takes <{'|'.join(SENTIMENTS)}>_<{'|'.join(POS_NAMES)}>, "
                                 f"got {what!r} in {p.text!r}")
    elif kind != "word":
        raise PredicateError(f"contain takes pos or word first, got {kind!r} in {p.text!r}")
    return Contain(kind, what)


@lru_cache(maxsize=1024)
def parse_predicate(text: str) -> Predicate:
    """The predicate tree of ``text`` (cached); :class:`PredicateError` names what is wrong."""
    if not isinstance(text, str) or not text.strip():
        raise PredicateError("empty predicate")
    return _Parser(text).parse()
