"""Phrase addition (attack 1): a phrase with an implausible antecedent (a human, or an event ``it``) is
appended to or prepended before the context sentence, in English and German alike. The main sentence
and the candidates are unchanged, so the correct pronoun is too.

:data:`RELEASE_VARIANTS` are the nine variants of the public ContraCAT release
(``scripts/adversarial_attack/phrase_addition.py`` with its arguments): ``append`` puts the phrase
before the context's final punctuation (``, aber er war sich nicht sicher...``) or, ``separate``, after
it as a sentence of its own; ``prepend`` puts it first, the context optionally in quotes. One knowing
difference: the release inserts an inline phrase before the last *character* only; here it goes before
the whole trailing run of punctuation and quotes (``sterben und es ist wahr!"``, not
``sterben!und es ist wahr"``). An example without context is kept unchanged (the release does the
same), its record saying so.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from lingtest.contrapro.attack import edit_example, resolve_named
from lingtest.data.model import ContrastiveExample
from lingtest.errors import ConfigError

ATTACK = "phrase"
_TRAILING = set(".!?…;:,\"'»«“”„‚‘’)]- ")


@dataclass(frozen=True, slots=True)
class PhraseVariant:
    """One phrase-addition variant. ``en``/``de``: the phrase; ``position``: ``append`` or
    ``prepend``; ``separate``: an appended phrase is a sentence of its own, ending with
    ``end_punct``; ``join_en``/``join_de``: what goes between an inline appended phrase and the
    context (``","`` for German clauses); ``quote``: the context goes in quotation marks (prepend)."""

    name: str
    en: str
    de: str
    position: Literal["append", "prepend"]
    separate: bool = False
    end_punct: str = ""
    join_en: str = ""
    join_de: str = ""
    quote: bool = False

    def __post_init__(self) -> None:
        if self.position not in ("append", "prepend"):
            raise ConfigError(f"phrase variant {self.name!r}: position must be 'append' or 'prepend'")
        if not self.en.strip() or not self.de.strip():
            raise ConfigError(f"phrase variant {self.name!r}: needs an English and a German phrase")

    @classmethod
    def from_dict(cls, name: str, d: Mapping[str, Any]) -> PhraseVariant:
        allowed = {"en", "de", "position", "separate", "end_punct", "join_en", "join_de", "quote"}
        unknown = sorted(set(d) - allowed)
        if unknown:
            raise ConfigError(
                f"phrase variant {name!r}: unknown key(s) {', '.join(unknown)}; "
                f"allowed: {', '.join(sorted(allowed))}"
            )
        return cls(name=name, **dict(d))


#: the nine variants of the public release (names as its output folders, ``:`` written ``_``)
RELEASE_VARIANTS: dict[str, PhraseVariant] = {
    v.name: v
    for v in (
        PhraseVariant("true_separate", "It is true", "Es ist wahr", "append", separate=True, end_punct="."),
        PhraseVariant("and_it_true", "and it is true", "und es ist wahr", "append"),
        PhraseVariant("and_that_true", "and that is true", "und das ist wahr", "append"),
        PhraseVariant("true", "It is true:", "Es ist wahr:", "prepend"),
        PhraseVariant("true_quot", "It is true:", "Es ist wahr:", "prepend", quote=True),
        PhraseVariant("he_said", "He said:", "Er sagte:", "prepend", quote=True),
        PhraseVariant("she_said", "She said:", "Sie sagte:", "prepend", quote=True),
        PhraseVariant(
            "but_sure_sep",
            "But he wasn't sure",
            "Aber er war sich nicht sicher",
            "append",
            separate=True,
            end_punct=".",
        ),
        PhraseVariant(
            "but_sure", "but he wasn't sure", "aber er war sich nicht sicher", "append", join_de=","
        ),
    )
}


def resolve_variants(
    names: list[str], custom: Mapping[str, Mapping[str, Any]] | None = None
) -> list[PhraseVariant]:
    """The variants named in ``names``: a release variant or one defined in ``custom``."""
    return resolve_named(names, RELEASE_VARIANTS, custom, PhraseVariant.from_dict, "phrase variant")


def split_trailing(text: str) -> tuple[str, str]:
    """(body, trailing run of punctuation, quotes and spaces)."""
    i = len(text)
    while i > 0 and text[i - 1] in _TRAILING:
        i -= 1
    return text[:i], text[i:].strip()


def add_phrase(context: str, variant: PhraseVariant, lang: Literal["en", "de"]) -> str:
    """The context with the variant's phrase added (see the module docstring)."""
    phrase = variant.en if lang == "en" else variant.de
    ctx = context.strip()
    if variant.position == "prepend":
        body = f'"{ctx}"' if variant.quote else ctx
        return f"{phrase} {body}"
    if variant.separate:
        if ctx and (ctx[-1].isalnum()):
            ctx += "."
        return f"{ctx} {phrase}{variant.end_punct}"
    body, trail = split_trailing(ctx)
    if not body:  # nothing but punctuation
        return f"{ctx} {phrase}"
    join = variant.join_en if lang == "en" else variant.join_de
    return f"{body}{join} {phrase}{trail}"


def phrase_addition(ex: ContrastiveExample, variant: PhraseVariant) -> ContrastiveExample:
    """The example with the phrase added to both contexts; unchanged (``changed: false``) without a
    context."""
    if not ex.src_context.strip() or not ex.ref_context.strip():
        return edit_example(ex, {}, ATTACK, variant.name, changed=False, reason="no context")
    texts = {
        "src_context": add_phrase(ex.src_context, variant, "en"),
        "ref_context": add_phrase(ex.ref_context, variant, "de"),
    }
    return edit_example(ex, texts, ATTACK, variant.name, changed=True)
