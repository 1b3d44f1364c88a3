"""xrenner adapter: CoNLL-U export, reading its CoNLL output (recorded), and a live run."""

from __future__ import annotations

import pytest
from coref_handparse import JOHN_SAID, MARY_MET, doc
from tests.fakes.configured import system_options

from lingtest.errors import InputError, MissingResourceError
from lingtest.systems.coref.xrenner_adapter import XrennerSystem, load_xrenner, parse_xrenner_conll, to_conllu


def test_to_conllu():
    text = to_conllu(doc(JOHN_SAID, MARY_MET))
    blocks = text.strip().split("\n\n")
    assert len(blocks) == 2
    first = blocks[0].split("\n")[0].split("\t")
    assert first == ["1", "John", "john", "PROPN", "NNP", "Number=Sing", "2", "nsubj", "_", "_"]
    root = blocks[0].split("\n")[1].split("\t")
    assert root[6] == "0" and root[7] == "root"
    assert all(len(line.split("\t")) == 10 for b in blocks for line in b.split("\n"))


def test_recorded_output(fixtures_dir):
    """Output recorded from xrenner 2.2.1.1 (rule-based, no_seq) on xrenner_input.conllu."""
    raw = (fixtures_dir / "systems" / "xrenner_output.conll").read_text(encoding="utf-8")
    clusters = parse_xrenner_conll(raw, n_tokens=42)
    assert clusters[0] == [(0, 2), (3, 4), (12, 13)]  # John Smith, he, him
    assert [(7, 9), (17, 19), (20, 21)] in clusters  # the party, the party, it
    assert [(10, 11), (15, 16)] in clusters  # Mary, She
    with pytest.raises(InputError, match="42"):
        parse_xrenner_conll(raw, n_tokens=42 + 1)


def test_nested_concatenated_brackets():
    raw = "# begin document x\n0\tHis\t(4(1008)\n1\tdog\t4)\n2\tbarked\t_\n3\this\t(1008)\n# end document\n"
    assert parse_xrenner_conll(raw, n_tokens=4) == [[(0, 2)], [(0, 1), (3, 4)]]


@pytest.mark.parametrize(("raw", "message"), [
    ("0\tA\t(1\n", "open"),
    ("0\tA\t1)\n", "never opened"),
    ("0\tA\t(x)\n", "cannot read"),
    ("1\tA\t_\n", "expected"),
])
def test_bad_output_raises(raw, message):
    with pytest.raises(InputError, match=message):
        parse_xrenner_conll(raw)


def test_missing_package_is_reported(monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "xrenner", None)
    with pytest.raises(MissingResourceError, match="no-deps xrenner"):
        load_xrenner()


@pytest.mark.models
def test_live_xrenner_run():
    pytest.importorskip("xrenner")
    system = XrennerSystem(**system_options("coref", "xrenner", on_error="raise"))
    d = doc(JOHN_SAID, MARY_MET)
    try:
        (clusters,) = system.predict([d])
    except MissingResourceError as exc:
        pytest.skip(str(exc))
    got = [[d.mention_text(m) for m in c.mentions] for c in clusters]
    assert ["John", "he", "him"] in got
    # the crashing entity-type post-processing step is switched off by default
    assert system._engine().lex.filters["force_single_type_chains"] is False


class _Lex:
    def __init__(self):
        self.freqs = {"a": 1}
        self.pairs = {"(": [")"]}
        self.count = 0
        self.handle = object()  # not a container or scalar: left alone


def test_lexicon_state_is_restored_before_each_document():
    from lingtest.systems.coref.xrenner_adapter import lexicon_state, restore_lexicon

    lex = _Lex()
    state = lexicon_state(lex)
    lex.freqs["b"] = 2
    lex.pairs["("].append("]")
    lex.count = 7
    restore_lexicon(lex, state)
    assert lex.freqs == {"a": 1} and lex.pairs == {"(": [")"]} and lex.count == 0
    lex.pairs["("].append("]")  # the restored copy is fresh: the snapshot stays pristine
    restore_lexicon(lex, state)
    assert lex.pairs == {"(": [")"]}


@pytest.mark.models
def test_live_xrenner_predictions_do_not_depend_on_earlier_documents():
    pytest.importorskip("xrenner")
    system = XrennerSystem(**system_options("coref", "xrenner", on_error="raise"))
    a, b = doc(JOHN_SAID, MARY_MET, id="a"), doc(MARY_MET, JOHN_SAID, MARY_MET, id="b")
    try:
        alone = system.predict([a])[0]
    except MissingResourceError as exc:
        pytest.skip(str(exc))
    after = system.predict([b, b, a])[2]
    assert alone == after
