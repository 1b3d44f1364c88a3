"""The token-level frame rules on hand-parsed sentences: what a verb or adjective takes in its sentence, and
which fills keep it (a fake lexicon with WordNet's frame numbers; one check against WordNet itself)."""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest

from lingtest.data.model import Entity
from lingtest.tin.mutant import TinSource
from lingtest.tin.transformations.frames import (
    VerbPattern,
    WordNetLexicon,
    adjective_position,
    adjective_refusal,
    frame_refusal,
    relation_refusal,
    verb_pattern,
)
from lingtest.tin.transformations.token_level import TokenLevel
from tests.tin.fakes import FakeProposer, FakeTagger


@dataclass
class FakeLexicon:
    """WordNet's frames of a few verbs (as WordNet 3.0 lists them), person nouns, adjective markers."""

    frames: dict[str, set[int]] = field(default_factory=lambda: {
        "testify": {2, 8, 11, 22, 26}, "indict": {9}, "accuse": {9, 18}, "appear": {1, 2, 4, 7, 22},
        "tell": {2, 8, 9, 11, 14, 15, 26}, "say": {6, 8, 11, 24, 26}, "inform": {9, 18, 26},
        "kill": {1, 8, 9, 10, 11}, "crash": {1, 2, 4, 8, 11, 21, 22}, "murder": {8, 9}, "steal": {8, 16, 22},
        "fire": {1, 2, 8, 9, 10, 11, 22}, "rampage": {2}, "shoot": {1, 2, 8, 9, 10, 11, 22}, "shoot_back": {2},
        "plant": {8, 9, 10, 11, 21}, "set": {1, 8, 9, 10, 11, 21}, "explode": {1, 2},
        "try": {2, 8, 28}, "attempt": {8, 28, 33}, "make": {8, 9, 11, 14}, "state": {8, 11, 26}, "speak": {2, 22},
        "defeat": {8}, "beat": {1, 2, 8, 9, 10, 11}, "allow": {8, 9, 24}, "permit": {8, 9, 24},
        "let": {8, 9, 24, 25}, "help": {2, 8, 9, 28, 35},
    })
    people: set[str] = field(default_factory=lambda: {"citizen", "conference", "reporter"})
    markers: dict[str, set[str | None]] = field(default_factory=lambda: {
        "afraid": {"p"}, "former": {"a"}, "big": {None}, "frightened": {None}, "ample": {None}, "scared": {None},
        "long": {None}, "short": {None}, "close": {None}, "busy": {None}, "final": {None}, "last": {None},
        "seventh": {None}, "eighth": {None}})
    scales: set[frozenset[str]] = field(default_factory=lambda: {frozenset(("long", "short"))})
    nouns: set[frozenset[str]] = field(default_factory=lambda: {frozenset(("prison", "jail"))})
    related: set[frozenset[str]] = field(default_factory=lambda: {
        frozenset(p) for p in (("testify", "appear"), ("testify", "indict"), ("kill", "murder"))})

    def verb_frames(self, lemma):
        return frozenset(self.frames.get(lemma, set()))

    def is_person_noun(self, lemma):
        return lemma in self.people

    def adjective_markers(self, lemma):
        m = self.markers.get(lemma)
        return None if m is None else frozenset(m)

    def verbs_related(self, a, b):
        return a == b or frozenset((a, b)) in self.related

    def adjectives_opposed_or_same(self, a, b):
        return a == b or frozenset((a, b)) in self.scales

    def nouns_related(self, a, b):
        return a == b or frozenset((a, b)) in self.nouns


LEX = FakeLexicon()


def parse(rows: str) -> tuple[list[str], list[str], list[str], list[int], list[str]]:
    """``word/TAG/lemma/head/dep`` tokens (head -1: the root)."""
    words, tags, lemmas, heads, deps = [], [], [], [], []
    for tok in rows.split():
        w, t, lem, h, d = tok.split("/")
        words.append(w)
        tags.append(t)
        lemmas.append(lem)
        heads.append(int(h))
        deps.append(d)
    return words, tags, lemmas, heads, deps


TESTIFIED = parse("agents/NNS/agent/1/nsubj testified/VBD/testify/-1/ROOT against/IN/against/1/prep "
                  "Rashid/NNP/Rashid/2/pobj ./././1/punct")
TOLD = parse("Rosati/NNP/Rosati/1/nsubj told/VBD/tell/-1/ROOT a/DT/a/3/det conference/NN/conference/1/dobj "
             "./././1/punct")
KILLED = parse("which/WDT/which/1/nsubj killed/VBD/kill/-1/ROOT four/CD/four/3/nummod "
               "citizens/NNS/citizen/1/dobj ./././1/punct")
FIRED = parse("troops/NNS/troop/1/nsubj fired/VBD/fire/-1/ROOT back/RP/back/1/prt ./././1/punct")
PLANTED = parse("a/DT/a/1/det bomb/NN/bomb/-1/ROOT planted/VBN/plant/1/acl on/IN/on/2/prep "
                "planes/NNS/plane/3/pobj")
TRYING = parse("mutineers/NNS/mutineer/1/nsubj trying/VBG/try/-1/ROOT to/TO/to/3/aux break/VB/break/1/xcomp "
               "out/RP/out/3/prt")
SAID = parse("officials/NNS/official/1/nsubj said/VBD/say/-1/ROOT they/PRP/they/3/nsubj "
             "won/VBD/win/1/ccomp ./././1/punct")
ALLOWED = parse("errors/NNS/error/1/nsubj allowed/VBD/allow/-1/ROOT Japan/NNP/Japan/4/nsubj to/TO/to/4/aux "
                "come/VB/come/1/xcomp")
HELPED = parse("who/WP/who/1/nsubj helped/VBD/help/-1/ROOT lead/VB/lead/1/xcomp the/DT/the/4/det "
               "revolution/NN/revolution/2/dobj")
FIRED_ADV = parse("troops/NNS/troop/1/nsubj fired/VBD/fire/-1/ROOT back/RB/back/1/advmod as/IN/as/1/prep")
BEAT = parse("Martin/NNP/Martin/1/nsubj beat/VBD/beat/-1/ROOT Wang/NNP/Wang/3/compound Chen/NNP/Chen/1/dobj")


def pattern_of(parsed, i, entities=()):
    words, tags, lemmas, heads, deps = parsed
    return verb_pattern(i, words, tags, lemmas, heads, deps, list(entities), LEX)


def test_verb_patterns_from_the_parse():
    assert pattern_of(TESTIFIED, 1) == VerbPattern()
    assert pattern_of(TOLD, 1) == VerbPattern(object=True, person_object=True)
    assert pattern_of(KILLED, 1) == VerbPattern(object=True, person_object=True)
    assert pattern_of(FIRED, 1) == VerbPattern(particle="back")
    assert pattern_of(PLANTED, 2) == VerbPattern(object=True)  # a reduced relative is passive
    assert pattern_of(TRYING, 1) == VerbPattern(infinitive=True)
    assert pattern_of(SAID, 1) == VerbPattern(clause=True)
    assert pattern_of(HELPED, 1) == VerbPattern(infinitive=True, bare=True)  # a bare infinitive counts
    assert pattern_of(FIRED_ADV, 1) == VerbPattern(particle="back")  # "back" parsed as an adverb
    assert pattern_of(BEAT, 1) == VerbPattern(object=True)  # a name: not known as a person without its label
    assert pattern_of(BEAT, 1, [Entity(2, 4, "PER")]) == VerbPattern(object=True, person_object=True)
    assert [name for name, _ in VerbPattern().requirements()] == ["no object"]
    assert [name for name, _ in VerbPattern(object=True, person_object=True, clause=True).requirements()] == [
        "object", "person object", "clause"]


@pytest.mark.parametrize(("parsed", "i", "original", "fill", "why"), [
    (TESTIFIED, 1, "testify", "appear", None),           # testified against -> appeared against
    (TESTIFIED, 1, "testify", "indict", "no object"),    # *indicted against Rashid
    (TESTIFIED, 1, "testify", "accuse", "no object"),
    (TOLD, 1, "tell", "inform", None),                   # told a conference -> informed a conference
    (TOLD, 1, "tell", "say", "person object"),           # *said a news conference
    (KILLED, 1, "kill", "murder", None),
    (KILLED, 1, "kill", "crash", "person object"),       # *crashed four citizens
    (KILLED, 1, "kill", "steal", "person object"),
    (FIRED, 1, "fire", "rampage", "particle"),           # *rampaged back
    (FIRED, 1, "fire", "shoot", None),                   # shot back: a phrasal verb WordNet knows
    (PLANTED, 2, "plant", "set", None),
    (PLANTED, 2, "plant", "explode", "object"),          # *a bomb exploded on planes (as a passive)
    (TRYING, 1, "try", "attempt", None),
    (TRYING, 1, "try", "make", "infinitive"),
    (ALLOWED, 1, "allow", "permit", None),
    (ALLOWED, 1, "allow", "let", "infinitive"),          # *let Japan to come*
    (HELPED, 1, "help", "let", None),                    # helped lead -> let lead
    (HELPED, 1, "help", "try", "infinitive"),            # *tried lead*
    (SAID, 1, "say", "state", None),
    (SAID, 1, "say", "speak", "clause"),
    (KILLED, 1, "kill", "zorp", "unknown verb"),
])
def test_fills_keep_or_break_the_frame(parsed, i, original, fill, why):
    assert frame_refusal(original, fill, pattern_of(parsed, i), LEX) == why


def test_fills_must_be_wordnet_relatives_of_the_verb():
    assert relation_refusal("kill", "murder", LEX) is None
    assert relation_refusal("kill", "steal", LEX) == "unrelated verb"
    # with a particle WordNet knows with the original, the phrasal verbs are compared
    lex = FakeLexicon(frames=LEX.frames | {"break_out": {1, 2}, "leave_out": {8}},
                      related=LEX.related | {frozenset(("break", "leave"))})
    assert relation_refusal("break", "leave", lex) is None
    assert relation_refusal("break", "leave", lex, particle="out") == "unrelated verb"


def test_a_requirement_the_original_lacks_in_wordnet_is_not_checked():
    # WordNet lists "defeat" only as "Somebody ----s something": with a person object after "beat", the
    # person requirement holds for "beat" (frame 9) and refuses "defeat"; "beat" without a person object
    # is compared on transitivity only
    person = pattern_of(BEAT, 1, [Entity(2, 4, "PER")])
    assert frame_refusal("beat", "defeat", person, LEX) == "person object"
    assert frame_refusal("beat", "defeat", pattern_of(BEAT, 1), LEX) is None
    # "defeat" lists no intransitive frame: an intransitive "defeat" in the source checks nothing
    assert frame_refusal("defeat", "explode", VerbPattern(), LEX) is None


def test_adjective_positions_and_markers():
    words, tags, _, heads, deps = parse("an/DT/an/2/det afraid/JJ/afraid/2/amod man/NN/man/-1/ROOT")
    assert adjective_position(1, tags, heads, deps) == "attributive"
    assert adjective_refusal("scared", "afraid", "attributive", "JJ", LEX) == "predicative only"
    assert adjective_refusal("scared", "frightened", "attributive", "JJ", LEX) is None
    _, tags, _, heads, deps = parse("he/PRP/he/1/nsubj is/VBZ/be/-1/ROOT big/JJ/big/1/acomp")
    assert adjective_position(2, tags, heads, deps) == "predicative"
    assert adjective_refusal("big", "former", "predicative", "JJ", LEX) == "attributive only"
    assert adjective_refusal("ample", "big", "predicative", "JJ", LEX) is None
    assert adjective_refusal("big", "blorf", "predicative", "JJ", LEX) == "unknown adjective"
    assert adjective_refusal("untraded", "big", "predicative", "JJ", LEX) == "unknown adjective"


def test_adjectives_used_as_nouns_and_degree_words_of_other_scales_are_not_replaced():
    # "the men 's final": the parser's adjective heads the noun phrase
    _, tags, _, heads, deps = parse("in/IN/in/-1/ROOT the/DT/the/3/det men/NNS/man/3/poss final/JJ/final/0/pobj")
    assert adjective_position(3, tags, heads, deps) == "other"
    assert adjective_refusal("final", "last", "other", "JJ", LEX) == "nominal adjective"
    assert adjective_refusal("seventh", "eighth", "other", "JJ", LEX) is None  # "finishing a respectable eighth"
    # "the longest wait" -> "the shortest wait" (a direct antonym), not "the closest" or "the busiest wait"
    assert adjective_refusal("long", "short", "attributive", "JJS", LEX) is None
    assert adjective_refusal("long", "close", "attributive", "JJS", LEX) == "other scale"
    assert adjective_refusal("long", "busy", "attributive", "JJS", LEX) == "other scale"
    assert adjective_refusal("long", "busy", "attributive", "JJ", LEX) is None  # the positive degree is free


def test_token_level_applies_the_frame_rules_and_counts_refusals():
    words, tags, lemmas, heads, deps = parse(
        "agents/NNS/agent/1/nsubj testified/VBD/testify/-1/ROOT against/IN/against/1/prep Rashid/NNP/Rashid/2/pobj "
        "with/IN/with/1/prep ample/JJ/ample/6/amod evidence/NN/evidence/4/pobj ./././1/punct")
    source = TinSource("s", words, [Entity(3, 4, "PER")], tags=tags, lemmas=lemmas, heads=heads, deps=deps)
    proposer = FakeProposer({"testified": [("indicted", 9.0), ("appeared", 8.0), ("accused", 7.0)],
                             "ample": [("afraid", 9.0), ("big", 8.0)]})
    table = dict(zip(words, tags, strict=True)) | {"indicted": "VBD", "appeared": "VBD", "accused": "VBD",
                                                   "afraid": "JJ", "big": "JJ"}
    token = TokenLevel(proposer, FakeTagger(table), top_k=5, min_score=0.0, tags=["VBD", "JJ"], skip_lemmas=[],
                       lexicon=LEX)
    got = [" ".join(m.tokens) for m in token.generate([source])]
    assert got == ["agents appeared against Rashid with ample evidence .",
                   "agents testified against Rashid with big evidence ."]
    assert token.refused == {"no object": 2, "predicative only": 1}
    # a fill whose lemma the transformation never replaces is not put in either
    said = FakeProposer({"testified": [("said", 9.0)], "ample": []})
    quiet = TokenLevel(said, FakeTagger(table | {"said": "VBD"}), top_k=5, min_score=0.0, tags=["VBD"],
                       skip_lemmas=["say"], lexicon=LEX)
    assert quiet.generate([source]) == [] and quiet.refused == {"skipped lemma": 1}
    # without a lexicon (or without a dependency parse) nothing is refused
    plain = TokenLevel(proposer, FakeTagger(table), top_k=5, min_score=0.0, tags=["VBD", "JJ"], skip_lemmas=[])
    assert len(plain.generate([source])) == 5


def test_wordnet_lexicon_reads_frames_markers_and_people():
    lex = WordNetLexicon()
    assert {2, 22} <= lex.verb_frames("testify") and lex.verb_frames("indict") == frozenset({9})
    assert lex.verb_frames("fire_back") == frozenset() and lex.verb_frames("break_out")
    assert lex.is_person_noun("citizen") and lex.is_person_noun("conference") and not lex.is_person_noun("debt")
    assert lex.adjective_markers("afraid") is not None and "p" in lex.adjective_markers("afraid")
    assert lex.adjective_markers("xyzzy") is None
    assert lex.verbs_related("kill", "murder") and lex.verbs_related("start", "begin")
    assert not lex.verbs_related("kill", "steal") and not lex.verbs_related("restrict", "elude")
    assert not lex.verbs_related("give", "enjoy")  # related only through rare senses of "give"
    assert lex.adjectives_opposed_or_same("high", "low") and not lex.adjectives_opposed_or_same("long", "close")
    assert lex.nouns_related("prison", "jail") and lex.nouns_related("university", "college")
    assert not lex.nouns_related("skinhead", "forehead") and not lex.nouns_related("prison", "crime")
    assert lex.nouns_related("soldier", "fighter")  # one lexicographer class: noun.person
    assert not lex.nouns_related("presence", "absence")  # antonyms
