"""Adversarial validity: an attack keeps the clean document's gold when it changes mention words only,
as recorded, within the paper's orthographic constraints, and leaves names alone; the scoring reports
it per set."""

from __future__ import annotations

from types import SimpleNamespace

from lingtest.adversarial.apply import Change, replace_tokens
from lingtest.adversarial.scoring import invariance_validity
from lingtest.adversarial.sets import make_case
from lingtest.adversarial.validity import case_validity, letter_named, name_kept, orthographic_change_ok
from lingtest.data.model import Cluster, Document, Mention, Sentence, TestCase, Token
from lingtest.metrics.validity import Validity

WORDS = "The Labour party said they won .".split()
TAGS = ["O", "B-ORG", "I-ORG", "O", "O", "O", "O"]
CONFIG = SimpleNamespace(p=0.5, seed=13, consistency="token")


def clean() -> Document:
    return Document("d", sentences=[Sentence([Token(w, ent=t) for w, t in zip(WORDS, TAGS, strict=True)])],
                    clusters=[Cluster([Mention(0, 3), Mention(4, 5)], id="1")])


def attacked(edits: dict[int, tuple[list[str], str]], set_name: str = "mixed") -> TestCase:
    doc = clean()
    new_doc, omap = replace_tokens(doc, {t: new for t, (new, _) in edits.items()})
    changes = [Change("d", t, omap[t], WORDS[t], tuple(new), scheme, 0) for t, (new, scheme) in sorted(edits.items())]
    return make_case(doc, new_doc, changes, set_name, CONFIG)  # type: ignore[arg-type]


def test_noise_and_relatives_inside_mentions_keep_the_gold():
    assert case_validity(attacked({4: (["tehy"], "swap"), 2: (["pary"], "delete")})).valid
    assert case_validity(attacked({2: (["pаrty"], "visual")})).valid  # Cyrillic a
    grown = attacked({2: (["political", "party"], "synonym")})  # the mention grows with its word
    assert grown.followup["clusters"][0]["mentions"] == [[0, 4], [5, 6]] and case_validity(grown).valid


def test_an_edit_outside_the_mentions_or_against_the_record_is_invalid():
    assert case_validity(attacked({3: (["siad"], "swap")})).reasons == ("edit_outside_mentions",)
    case = attacked({4: (["tehy"], "swap")})
    d = case.to_dict()
    d["followup"]["sentences"][0]["tokens"][5]["text"] = "lost"
    assert case_validity(TestCase.from_dict(d)).reasons == ("unrecorded_edit",)
    d = attacked({4: (["tehy"], "swap")}).to_dict()
    d["expected"]["alignment"]["replacements"] = [[4, 2]]
    assert case_validity(TestCase.from_dict(d)).reasons == ("unrecorded_edit",)


def test_orthographic_noise_must_keep_the_papers_constraints():
    assert case_validity(attacked({4: (["yhet"], "swap")})).reasons == ("orthographic_constraint",)
    assert orthographic_change_ok("swap", "people", ["peolpe"]) and orthographic_change_ok("delete", "rise", ["rse"])
    assert orthographic_change_ok("visual", "emergency", ["emergeňcy"])
    assert not orthographic_change_ok("swap", "the", ["teh"])  # shorter than min_length
    assert not orthographic_change_ok("swap", "people", ["pelpoe"])  # not adjacent letters
    assert not orthographic_change_ok("delete", "people", ["pple"])  # two letters gone
    assert not orthographic_change_ok("visual", "people", ["peoqle"])  # q is not a p
    assert not orthographic_change_ok("swap", "they", ["they", "x"])
    assert orthographic_change_ok("synonym", "big", ["large"])  # not orthographic: not checked here
    assert (letter_named("ň"), letter_named("а"), letter_named("Ａ"), letter_named("1")) == ("n", "a", "A", None)


def test_a_lexical_change_inside_a_name_changes_the_referent():
    assert case_validity(attacked({2: (["company"], "synonym")})).reasons == ("name_changed",)
    assert case_validity(attacked({2: (["company"], "hypernym")}, "hypernym")).reasons == ("name_changed",)
    assert name_kept("synonym", "party", ["political", "party"], "I-ORG")
    assert name_kept("hypernym", "year", ["class"], "I-DATE")  # not a name type
    assert name_kept("swap", "Labour", ["Lbaour"], "B-ORG")  # noise on a name is the attack


def test_invariance_reports_validity_and_the_failures_on_invalid_cases():
    checked = [(True, Validity()), (True, Validity.of(["name_changed"])), (False, Validity()),
               (False, Validity.of(["name_changed"]))]
    out = invariance_validity(checked)
    assert (out["validity"], out["validity_valid"], out["validity_total"]) == (0.5, 2, 4)
    assert out["validity_reasons"] == {"name_changed": 2}
    assert (out["failures_invalid"], out["precision_validity_adjusted"]) == (1, 0.5)
    assert invariance_validity([(False, Validity())])["precision_validity_adjusted"] is None
