"""Capability specifications (``conf/s2lct`` ``suites.<suite>``) as validated, typed records.

A suite has its label set, the baseline it is compared with, and capabilities ``LC1``, ``LC2``, ...;
a capability has one or more :class:`Rule`: a search predicate (the ``sent`` non-terminal), an
optional ``replace`` (a regex substitution on the found sentence, e.g. negation), an optional
``combine`` (enumerative non-terminals in order) and the expected label(s). Everything is checked
when loaded: unknown keys, predicates that do not parse, labels outside the suite's, a ``combine``
without exactly one ``sent``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from lingtest.errors import ConfigError
from lingtest.s2lct.predicates import And, HasAttr, Not, Or, Predicate, PredicateError, parse_predicate

__all__ = ["Baseline", "Capability", "Part", "Replace", "Rule", "SuiteSpec", "load_suites"]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


def _predicate(text: str) -> str:
    try:
        parse_predicate(text)
    except PredicateError as exc:
        raise ValueError(str(exc)) from None
    return text


class Replace(_Strict):
    pattern: str
    repl: str

    @field_validator("pattern")
    @classmethod
    def _compiles(cls, v: str) -> str:
        try:
            re.compile(v)
        except re.error as exc:
            raise ValueError(f"bad regex {v!r}: {exc}") from None
        return v

    def apply(self, text: str) -> str | None:
        """The substituted text, or ``None`` when the pattern does not match."""
        new, n = re.subn(self.pattern, self.repl, text, count=1, flags=re.IGNORECASE)
        return new if n else None


class Others(_Strict):
    """Other search hits used as clauses (e.g. neutral sentences in the middle)."""

    search: str
    format: str = "{}"

    _check = field_validator("search")(lambda cls, v: _predicate(v))


class Part(_Strict):
    """One enumerative non-terminal: exactly one of ``prefix``/``infix``/``postfix`` (clauses),
    ``sent`` (the found sentence, a ``{}`` format) or ``others``."""

    prefix: list[str] | None = None
    infix: list[str] | None = None
    postfix: list[str] | None = None
    sent: str | None = None
    others: Others | None = None

    @model_validator(mode="after")
    def _one(self) -> Part:
        given = [k for k in ("prefix", "infix", "postfix", "sent", "others") if getattr(self, k) is not None]
        if len(given) != 1:
            raise ValueError(f"a combine part has exactly one of prefix/infix/postfix/sent/others, got {given}")
        clauses = self.clauses
        if clauses is not None and (not clauses or not all(isinstance(c, str) and c.strip() for c in clauses)):
            raise ValueError("a clause list must hold non-empty strings")
        if self.sent is not None and self.sent.count("{}") != 1:
            raise ValueError(f"sent must hold one '{{}}', got {self.sent!r}")
        return self

    @property
    def kind(self) -> str:
        return next(k for k in ("prefix", "infix", "postfix", "sent", "others") if getattr(self, k) is not None)

    @property
    def clauses(self) -> list[str] | None:
        for k in ("prefix", "infix", "postfix"):
            v = getattr(self, k)
            if v is not None:
                return list(v)
        return None


Expected = str | list[str]


class Rule(_Strict):
    search: str
    combine: list[Part] | None = None
    replace: Replace | None = None
    expected: Expected

    _check = field_validator("search")(lambda cls, v: _predicate(v))

    @model_validator(mode="after")
    def _sent_once(self) -> Rule:
        if self.combine is not None and sum(p.kind == "sent" for p in self.combine) != 1:
            raise ValueError("combine needs exactly one sent part")
        return self

    @property
    def labels(self) -> list[str]:
        return [self.expected] if isinstance(self.expected, str) else list(self.expected)


class Baseline(_Strict):
    tests: list[str] = Field(min_length=1)
    expected: Expected | None = None   # overrides the baseline's own expectation (CheckList "not negative")


class Capability(_Strict):
    name: str
    baseline: Baseline | None = None
    rules: list[Rule] = Field(min_length=1)


class BaselineSource(_Strict):
    dataset: str
    split: str


class SearchSource(_Strict):
    """The corpus searched for seeds and how its documents get the suite's labels."""

    corpus: str
    splits: list[str] = Field(min_length=1)
    label_from: str
    lowercase: bool


class SuiteSpec(_Strict):
    labels: list[str] = Field(min_length=2)
    search: SearchSource
    baseline: BaselineSource | None = None
    capabilities: dict[str, Capability] = Field(min_length=1)

    @model_validator(mode="after")
    def _labels_known(self) -> SuiteSpec:
        known = set(self.labels)
        for cid, cap in self.capabilities.items():
            for i, rule in enumerate(cap.rules):
                bad = [x for x in rule.labels if x not in known]
                if bad:
                    raise ValueError(f"{cid} rule {i}: expected label(s) {bad} not in {sorted(known)}")
                searches = [rule.search] + [p.others.search for p in rule.combine or [] if p.others]
                for s in searches:
                    for lab in _label_values(parse_predicate(s)):
                        if lab not in known:
                            raise ValueError(f"{cid} rule {i}: hasattr(label, {lab}) is not a label of the suite")
            if cap.baseline is not None and cap.baseline.expected is not None:
                exp = cap.baseline.expected
                bad = [x for x in ([exp] if isinstance(exp, str) else exp) if x not in known]
                if bad:
                    raise ValueError(f"{cid} baseline: expected label(s) {bad} not in {sorted(known)}")
        return self


def _label_values(p: Predicate) -> list[str]:
    if isinstance(p, HasAttr):
        return [p.value] if p.attr == "label" else []
    if isinstance(p, (And, Or)):
        return [v for q in p.parts for v in _label_values(q)]
    if isinstance(p, Not):
        return _label_values(p.part)
    return []


def load_suites(suites: Mapping[str, Any]) -> dict[str, SuiteSpec]:
    """``cfg.s2lct.suites`` (plain data) as :class:`SuiteSpec` per suite; a bad entry is a
    :class:`~lingtest.errors.ConfigError` naming the suite and the field."""
    out = {}
    for name, spec in suites.items():
        try:
            out[str(name)] = SuiteSpec.model_validate(spec)
        except ValidationError as exc:
            err = exc.errors()[0]
            where = ".".join(str(x) for x in err["loc"])
            raise ConfigError(f"s2lct.suites.{name}.{where}: {err['msg']}") from None
    return out


Kind = Literal["seed", "exp"]
