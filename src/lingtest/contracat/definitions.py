"""The template definitions of the ContraCAT release (BennoKrojer/ContraCAT@c8b1f6a ``data/templates``),
in the format of :mod:`lingtest.contracat.generate`. Over the release's vocabulary they regenerate its
files line for line (``tests/contracat/test_generate.py`` checks every template listed in
:data:`REGENERATED` against the mirror). The overlap templates are generated with the release's
``--half`` (every other entry of each vocabulary class; ``--full ADVERB`` keeps every adverb), the rule
read off the released files. One departure: the release's ``object_overlap/eat_drink_eat`` has a
garbled German side and an English ``It liked cookie.`` (a slot-index bug of its generator); ours
writes the intended sentences, so that template is checked for its English contexts and labels only.
"""

from __future__ import annotations

from typing import Any

_ATE = {"en": "The {A} ate the {F}.", "de": "{DEF_NOM:A} {A} hat {DEF_ACC:F} {F} gegessen."}


def _fixed(en: str, de: str, label: str = "fixed n") -> dict[str, Any]:
    """An event or pleonastic template: every animal and food, a fixed main sentence, ``es`` correct."""
    return {"context": _ATE, "sentence": {"en": en, "de": de}, "slots": {"A": "animal", "F": "food"},
            "loops": ["A", "F"], "label": label}


_FEELINGS = [
    {"en": "hungry", "de": "hungrig", "en_cmp": "hungrier", "de_cmp": "hungriger"},
    {"en": "tired", "de": "müde", "en_cmp": "more tired", "de_cmp": "müder"},
    {"en": "happy", "de": "glücklich", "en_cmp": "happier", "de_cmp": "glücklicher"},
    {"en": "nice", "de": "nett", "en_cmp": "nicer", "de_cmp": "netter"},
]


def _overlap(en_ctx: str, de_ctx: str, en: str, de: str, label: str, unequal: list[list[str]],
             loops: list[str], slots: dict[str, Any], full: tuple[str, ...] = ()) -> dict[str, Any]:
    return {"context": {"en": en_ctx, "de": de_ctx}, "sentence": {"en": en, "de": de}, "slots": slots,
            "loops": loops, "unequal": unequal, "label": label, "half": True, "full": list(full)}


_EAT_DRINK = ("The {A} ate the {F} and the {B} drank the {D}.",
              "{DEF_NOM:A} {A} hat {DEF_ACC:F} {F} gegessen und {DEF_NOM:B} {B} hat {DEF_ACC:D} {D} getrunken.")
_OV_SLOTS = {"A": "animal", "B": "animal", "F": "food", "D": "drink"}

RELEASE: dict[str, dict[str, Any]] = {
    "0_priors/position": {
        "context": {"en": "I stood in front of the {A} and the {B}.",
                    "de": "Ich stand vor {DEF_DAT:A} {A} und {DEF_DAT:B} {B}."},
        "sentence": {"en": "It was {S}.", "de": "{PRO_NOM} war {S}."},
        "slots": {"A": "animal", "B": "animal", "S": "size_adjective"},
        "loops": ["pair A B", "S", "swap A B"], "unequal": [["A", "B"]], "label": "prior A B",
    },
    "0_priors/role": {
        "context": _ATE, "sentence": {"en": "It was {S}.", "de": "{PRO_NOM} war {S}."},
        "slots": {"A": "animal", "F": "food", "S": "size_adjective"},
        "loops": ["A", "F", "S"], "unequal": [["A", "F"]], "label": "prior A F",
    },
    "0_priors/verb": {
        "context": {"en": "Wow!", "de": "Wow!"},
        "sentence": {"en": "{P} {V} it.", "de": "{P} {PRO_ACC} {V}."},
        "slots": {"P": "pro_nom", "V": "trans_verb"}, "loops": ["P", "V"], "label": "none",
    },
    "1_entity_step": {  # the animal first, then the human first
        "sentence": {"en": "However it was {E.en_cmp}.", "de": "Aber {PRO_NOM} war {E.de_cmp}."},
        "slots": {"A": "animal", "H": "human", "E": _FEELINGS}, "unequal": [["A", "H"]], "label": "gender A",
        "parts": [
            {"context": {"en": "The {A} and the {H} were {E}.", "de": "{DEF_NOM:A} {A} und {DEF_NOM:H} {H} waren {E}."},
             "loops": ["A", "H", "E"]},
            {"context": {"en": "The {H} and the {A} were {E}.", "de": "{DEF_NOM:H} {H} und {DEF_NOM:A} {A} waren {E}."},
             "loops": ["H", "A", "E"]},
        ],
    },
    "2_coreference_step/event/chaos": _fixed("It resulted in chaos.", "{PRO_NOM} führte zu Chaos."),
    "2_coreference_step/event/happened": _fixed("It actually happened.", "{PRO_NOM} ist tatsächlich passiert."),
    "2_coreference_step/event/situation": _fixed("It was a funny situation.",
                                                 "{PRO_NOM} war eine lustige Situation."),
    "2_coreference_step/event/surprise": _fixed("It came as a surprise.", "{PRO_NOM} kam überraschend."),
    "2_coreference_step/pleonastic/believe": _fixed("It is hard to believe this is true.",
                                                    "{PRO_NOM} ist schwer zu glauben, dass das wahr ist."),
    "2_coreference_step/pleonastic/rain": _fixed("It was raining.", "{PRO_NOM} regnete."),
    "2_coreference_step/pleonastic/seem": _fixed("It seemed this was unnecessary.",
                                                 "{PRO_NOM} schien, dass dies unnötig war."),
    "2_coreference_step/pleonastic/shame": _fixed("It is a shame.", "{PRO_NOM} ist eine Schande."),
    "2_coreference_step/world_knowledge": {
        "context": _ATE, "slots": {"A": "animal", "F": "food"}, "unequal": [["A", "F"]],
        "parts": [
            {"sentence": {"en": "It {X}.", "de": "{PRO_NOM} {X}."}, "slots": {"A": "animal", "F": "food",
             "X": "animal_attribute"}, "loops": ["A", "F", "X"], "label": "gender A"},
            {"sentence": {"en": "It {X}.", "de": "{PRO_NOM} {X}."}, "slots": {"A": "animal", "F": "food",
             "X": "food_attribute"}, "loops": ["A", "F", "X"], "label": "gender F"},
        ],
    },
    "3_gender_step/big": {
        "context": {"en": "I saw a {N}.", "de": "Ich sah {IND_ACC:N} {N}."},
        "sentence": {"en": "It was big.", "de": "{PRO_NOM} war groß."},
        "slots": {"N": "concrete_noun"}, "loops": ["N"], "label": "gender N",
    },
    # -- overlap: --half (see the module docstring) --
    "2_coreference_step/overlap/object_overlap/eat_drink_eat": _overlap(
        *_EAT_DRINK, "It liked the {F}.", "{PRO_NOM} mochte {DEF_ACC:F} {F}.", "gender @A", [["A", "B"]],
        ["A", "F", "after B A", "D", "swap A B"], _OV_SLOTS),
    "2_coreference_step/overlap/object_overlap/eat_drink_drink": _overlap(
        *_EAT_DRINK, "It liked the {D}.", "{PRO_NOM} mochte {DEF_ACC:D} {D}.", "gender @B", [["A", "B"]],
        ["A", "F", "after B A", "D", "swap A B"], _OV_SLOTS),
    "2_coreference_step/overlap/object_verb_overlap/eat_drink_drink": _overlap(
        *_EAT_DRINK, "It drank the {D} quickly.", "{PRO_NOM} hat {DEF_ACC:D} {D} schnell getrunken.", "gender @B",
        [["A", "B"]], ["A", "F", "after B A", "D", "swap A B"], _OV_SLOTS),
    "2_coreference_step/overlap/object_verb_overlap/eat_drink_eat": _overlap(
        *_EAT_DRINK, "It ate the {F} quickly.", "{PRO_NOM} hat {DEF_ACC:F} {F} schnell gegessen.", "gender @A",
        [["A", "B"]], ["A", "F", "after B A", "D", "swap A B"], _OV_SLOTS),
    "2_coreference_step/overlap/subject_overlap/eat_drink_eat": _overlap(
        *_EAT_DRINK, "The {A} liked it.", "{DEF_NOM:A} {A} mochte {PRO_ACC}.", "gender F", [["F", "D"]],
        ["A", "F", "B", "D"], _OV_SLOTS),
    "2_coreference_step/overlap/subject_overlap/eat_drink_drink": _overlap(
        *_EAT_DRINK, "The {B} liked it.", "{DEF_NOM:B} {B} mochte {PRO_ACC}.", "gender D", [["F", "D"]],
        ["A", "F", "B", "D"], _OV_SLOTS),
    "2_coreference_step/overlap/subject_verb_overlap/eat_drink_eat": _overlap(
        *_EAT_DRINK, "The {A} ate it quickly.", "{DEF_NOM:A} {A} hat {PRO_ACC} schnell gegessen.", "gender F",
        [["F", "D"]], ["A", "F", "B", "D"], _OV_SLOTS),
    "2_coreference_step/overlap/subject_verb_overlap/eat_drink_drink": _overlap(
        *_EAT_DRINK, "The {B} drank it quickly.", "{DEF_NOM:B} {B} hat {PRO_ACC} schnell getrunken.", "gender D",
        [["F", "D"]], ["A", "F", "B", "D"], _OV_SLOTS),
    "2_coreference_step/overlap/verb_overlap/eat_drink_eat": _overlap(
        "The {A} ate and the {B} drank.", "{DEF_NOM:A} {A} hat gegessen und {DEF_NOM:B} {B} hat getrunken.",
        "It ate {R}.", "{PRO_NOM} hat {R} gegessen.", "gender @A", [["A", "B"]], ["pair A B", "R", "swap A B"],
        {"A": "animal", "B": "animal", "R": "adverb"}, ("R",)),
    "2_coreference_step/overlap/verb_overlap/eat_drink_drink": _overlap(
        "The {A} ate and the {B} drank.", "{DEF_NOM:A} {A} hat gegessen und {DEF_NOM:B} {B} hat getrunken.",
        "It drank {R}.", "{PRO_NOM} hat {R} getrunken.", "gender @B", [["A", "B"]], ["pair A B", "R", "swap A B"],
        {"A": "animal", "B": "animal", "R": "adverb"}, ("R",)),
    "2_coreference_step/overlap/verb_overlap/drink_eat_drink": _overlap(
        "The {A} drank and the {B} ate.", "{DEF_NOM:A} {A} hat getrunken und {DEF_NOM:B} {B} hat gegessen.",
        "It drank {R}.", "{PRO_NOM} hat {R} getrunken.", "gender @A", [["A", "B"]], ["pair A B", "R", "swap A B"],
        {"A": "animal", "B": "animal", "R": "adverb"}, ("R",)),
    "2_coreference_step/overlap/verb_overlap/drink_eat_eat": _overlap(
        "The {A} drank and the {B} ate.", "{DEF_NOM:A} {A} hat getrunken und {DEF_NOM:B} {B} hat gegessen.",
        "It ate {R}.", "{PRO_NOM} hat {R} gegessen.", "gender @B", [["A", "B"]], ["pair A B", "R", "swap A B"],
        {"A": "animal", "B": "animal", "R": "adverb"}, ("R",)),
}

#: the release's template whose German side (and English main sentence) its generator garbled
GARBLED = "2_coreference_step/overlap/object_overlap/eat_drink_eat"
#: the templates whose released files the definitions regenerate line for line
REGENERATED = tuple(n for n in RELEASE if n != GARBLED)
