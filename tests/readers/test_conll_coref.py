"""Coreference readers and writer: CoNLL-2012, OntoGUM 3-column (+ CoNLL-U sentences), e2e-coref
jsonlines, generic last-column CoNLL; malformed input; round trips; the mirror (e2e)."""

from __future__ import annotations

import io
import warnings
from pathlib import Path

import pytest

from lingtest.data.model import Cluster, Document, Entity, Mention, Sentence, Token
from lingtest.errors import InputError
from lingtest.readers import READERS
from lingtest.readers.conll_coref import (
    CorefWarning,
    detect_format,
    parse_coref_field,
    read_coref,
    read_coref_records,
    write_conll,
)
from lingtest.readers.options import configured

read_conll2012 = configured("conll2012")
read_conll_coref = configured("conll_coref")
read_jsonlines = configured("jsonlines")
read_ontogum = configured("ontogum")


@pytest.fixture(scope="module")
def coref_dir(fixtures_dir: Path) -> Path:
    return fixtures_dir / "coref"


def spans(doc: Document) -> list[list[tuple[int, int]]]:
    return [[(m.start, m.end) for m in c.mentions] for c in doc.clusters]


def write(tmp_path: Path, text: str, name: str = "f.conll") -> Path:
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return p


# --------------------------------------------------------------------------------------------
# coreference cells
# --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("cell, expected", [
    ("-", ([], [], [])),
    ("_", ([], [], [])),
    ("(12)", (["12"], [], [])),
    ("(12", ([], ["12"], [])),
    ("12)", ([], [], ["12"])),
    ("(3|(12)", (["12"], ["3"], [])),
    ("(1(2)", (["2"], ["1"], [])),  # OntoGUM runs brackets together
    ("14)4)13)", ([], [], ["14", "4", "13"])),
    ("1)|(2", ([], ["2"], ["1"])),
])
def test_parse_coref_field(cell: str, expected: tuple) -> None:
    assert parse_coref_field(cell) == expected


@pytest.mark.parametrize("cell", ["x", "((1)", "(1)x", "()", "|", "(1 2)"])
def test_parse_coref_field_rejects_garbage(cell: str) -> None:
    with pytest.raises(ValueError):
        parse_coref_field(cell)


# --------------------------------------------------------------------------------------------
# CoNLL-2012
# --------------------------------------------------------------------------------------------
def test_conll2012_documents_parts_and_clusters(coref_dir: Path) -> None:
    docs = list(read_conll2012(coref_dir / "sample.v4_gold_conll"))
    assert [d.key for d in docs] == ["test/doc_a#0", "test/doc_a#1", "test/doc_b#0"]
    a, a1, b = docs
    assert [s.words for s in a.sentences] == [["John", "saw", "his", "sister", "."],
                                              ["She", "smiled", "in", "New", "York", "."]]
    # document-level spans with exclusive end; '(0)|(1' opens 1 and closes a one-token 0
    assert spans(a) == [[(0, 1), (2, 3)], [(2, 4), (5, 6)], [(8, 10)]]
    assert [c.id for c in a.clusters] == ["0", "1", "2"]
    assert spans(a1) == [[(0, 1)]]  # singletons are kept
    # nested mentions of one cluster and a singleton cluster enclosing them
    assert sorted(spans(b)) == [[(0, 2), (3, 4)], [(0, 5)]]


def test_conll2012_columns_are_kept(coref_dir: Path) -> None:
    a = next(read_conll2012(coref_dir / "sample.v4_gold_conll"))
    s0, s1 = a.sentences
    assert [t.tag for t in s0.tokens] == ["NNP", "VBD", "PRP$", "NN", "."]
    assert [t.lemma for t in s0.tokens] == [None, "see", None, None, None]
    assert s0.tree is not None
    assert s0.tree.to_bracketed(s0.words) == \
        "(TOP (S (NP (NNP John)) (VP (VBD saw) (NP (PRP$ his) (NN sister))) (. .)))"
    assert s1.tree.constituents() == [("TOP", 0, 6), ("S", 0, 6), ("NP", 0, 1), ("VP", 1, 2),
                                      ("PP", 2, 5), ("NP", 3, 5)]
    assert a.entities == [Entity(0, 1, "PERSON"), Entity(8, 10, "GPE")]
    assert [t.ent for t in s1.tokens] == ["O", "O", "O", "B-GPE", "I-GPE", "O"]
    assert s0.meta["speaker"] == "Speaker_A" and s1.meta["speaker"] == "Speaker_B"
    assert s0.meta["frameset"][1] == "01" and s0.meta["sense"][1] == "1"
    assert s0.meta["args"] == [["(ARG0*)", "(V*)", "(ARG1*", "*)", "*"]]
    assert "args" not in s1.meta  # this sentence has 12 columns: no predicate-argument column
    assert s1.words[-1] == "."  # '/.' unescaped


def test_conll2012_keeps_escapes_when_asked(coref_dir: Path) -> None:
    a = next(read_conll2012(coref_dir / "sample.v4_gold_conll", unescape=False))
    assert a.sentences[1].words[-1] == "/."


def test_conll2012_tab_separated_and_crlf(tmp_path: Path, coref_dir: Path) -> None:
    text = (coref_dir / "sample.v4_gold_conll").read_text()
    tabbed = "\n".join("\t".join(line.split()) if line and not line.startswith("#") else line
                       for line in text.split("\n")).replace("\n", "\r\n")
    p = write(tmp_path, tabbed, "t_conll")
    assert [spans(d) for d in read_conll2012(p)] == \
        [spans(d) for d in read_conll2012(coref_dir / "sample.v4_gold_conll")]


# --------------------------------------------------------------------------------------------
# OntoGUM
# --------------------------------------------------------------------------------------------
def test_ontogum_without_conllu_is_one_sentence(coref_dir: Path) -> None:
    (doc,) = read_ontogum(coref_dir / "GUM_test_tiny.conll")
    assert doc.id == "GUM_test_tiny" and doc.part is None
    assert len(doc.sentences) == 1 and len(doc.words) == 8
    assert spans(doc) == [[(0, 1), (5, 6)], [(3, 4), (6, 7)]]


def test_ontogum_sentences_and_annotations_from_conllu(coref_dir: Path) -> None:
    (doc,) = read_ontogum(coref_dir / "GUM_test_tiny.conll", conllu_dir=coref_dir / "dep")
    assert [s.words for s in doc.sentences] == [["Kim", "ca", "n't", "swim", "."], ["She", "tries", "."]]
    assert [s.id for s in doc.sentences] == ["GUM_test_tiny-1", "GUM_test_tiny-2"]
    assert [s.text for s in doc.sentences] == ["Kim can't swim.", "She tries."]
    ca = doc.sentences[0].tokens[1]
    assert (ca.pos, ca.tag, ca.lemma, ca.head, ca.dep) == ("AUX", "MD", "can", 3, "aux")
    assert doc.sentences[0].tokens[3].head == -1
    assert spans(doc) == [[(0, 1), (5, 6)], [(3, 4), (6, 7)]]


def test_ontogum_conllu_must_hold_the_same_tokens(tmp_path: Path, coref_dir: Path) -> None:
    dep = tmp_path / "dep"
    dep.mkdir()
    conllu = (coref_dir / "dep" / "GUM_test_tiny.conllu").read_text()
    conllu = conllu.replace("\tswim\tswim\t", "\tswam\tswim\t")
    (dep / "GUM_test_tiny.conllu").write_text(conllu)
    with pytest.raises(InputError) as err:
        list(read_ontogum(coref_dir / "GUM_test_tiny.conll", conllu_dir=dep))
    assert err.value.line == 5 and err.value.field == "token"
    assert "'swim'" in str(err.value) and "'swam'" in str(err.value)


def test_ontogum_missing_conllu_names_it(tmp_path: Path, coref_dir: Path) -> None:
    with pytest.raises(InputError, match="no CoNLL-U file"):
        list(read_ontogum(coref_dir / "GUM_test_tiny.conll", conllu_dir=tmp_path))


def test_ontogum_empty_token_takes_conllu_form(tmp_path: Path, coref_dir: Path) -> None:
    # GUM_news_iodine has a token whose form is empty in the coreference file
    text = (coref_dir / "GUM_test_tiny.conll").read_text().replace("1\tca\t_", "1\t\t_")
    p = write(tmp_path, text, "GUM_test_tiny.conll")
    (doc,) = read_ontogum(p, conllu_dir=coref_dir / "dep")
    assert doc.words[1] == "ca"
    (raw,) = read_ontogum(p)
    assert raw.words[1] == ""


# --------------------------------------------------------------------------------------------
# jsonlines and generic
# --------------------------------------------------------------------------------------------
def test_jsonlines(coref_dir: Path) -> None:
    a, b = read_jsonlines(coref_dir / "sample.jsonlines")
    assert a.id == "nw/test/00/test_0001_0" and a.part is None
    assert spans(a) == [[(0, 1), (2, 3)], [(2, 4), (5, 6)]]  # inclusive ends became exclusive
    assert a.entities == [Entity(0, 1, "PERSON")]
    assert a.sentences[0].meta == {} and a.sentences[1].meta == {"speakers": ["A", "A", "B", "B"]}
    assert b.clusters == [] and b.words == ["Nothing", "corefers", "."]
    a2, _ = read_jsonlines(coref_dir / "sample.jsonlines", part_suffix=True)
    assert (a2.id, a2.part, a2.key) == ("nw/test/00/test_0001", 0, "nw/test/00/test_0001#0")


def test_jsonlines_errors_name_line_and_field(tmp_path: Path) -> None:
    p = write(tmp_path, '{"doc_key": "a", "sentences": [["x"]], "clusters": [[[0, 0]]]}\n'
                        '{"doc_key": "b", "sentences": [["x", "y"]], "clusters": [[[0, 5]]]}\n',
              "bad.jsonlines")
    with pytest.raises(InputError) as err:
        list(read_jsonlines(p))
    assert (err.value.line, err.value.field) == (2, "clusters")
    p2 = write(tmp_path, '{"sentences": [["x"]]}\n', "nokey.jsonlines")
    with pytest.raises(InputError) as err:
        list(read_jsonlines(p2))
    assert (err.value.line, err.value.field) == (1, "doc_key")


def test_generic_last_column(coref_dir: Path) -> None:
    (doc,) = read_conll_coref(coref_dir / "generic.conll")
    assert doc.id == "generic_doc"
    assert [s.words for s in doc.sentences] == [["The", "cat", "sat"], ["It", "slept"]]
    assert spans(doc) == [[(0, 2), (3, 4)]]


def test_detect_format_and_read_coref(coref_dir: Path) -> None:
    assert detect_format(coref_dir / "sample.v4_gold_conll") == "conll2012"
    assert detect_format(coref_dir / "GUM_test_tiny.conll") == "ontogum"
    assert detect_format(coref_dir / "sample.jsonlines") == "jsonlines"
    assert detect_format(coref_dir / "generic.conll") == "conll"
    keys = sorted(d.key for d in read_coref(coref_dir))  # a directory: every file, own format
    assert keys == sorted(["GUM_test_tiny", "generic_doc", "test/doc_a#0", "test/doc_a#1",
                           "test/doc_b#0", "nw/test/00/test_0001_0", "nw/test/00/test_0002_0"])


def test_records_match_documents(coref_dir: Path) -> None:
    for f in ("sample.v4_gold_conll", "GUM_test_tiny.conll", "sample.jsonlines", "generic.conll"):
        docs = list(read_coref(coref_dir / f))
        recs = read_coref_records(coref_dir / f)
        assert [r.key for r in recs] == [d.key for d in docs]
        assert [r.spans for r in recs] == [spans(d) for d in docs]
        assert [r.n_tokens for r in recs] == [len(d.words) for d in docs]


def test_registered_readers() -> None:
    assert READERS.get("conll2012") is read_conll2012.func
    assert READERS.get("ontogum") is read_ontogum.func
    assert READERS.get("jsonlines") is read_jsonlines.func
    assert READERS.get("conll_coref") is read_conll_coref.func


# --------------------------------------------------------------------------------------------
# malformed input
# --------------------------------------------------------------------------------------------
GOOD = "#begin document (d); part 000\na\t(1\nb\t1)\nc\t(1)\n\n#end document\n"


@pytest.mark.parametrize("text, line, field, message", [
    ("#begin document (d); part 000\na\t(1\nb\t_\n", 3, None, "truncated"),
    ("#begin document (d); part 000\na\t(1\nb\t_\textra\n#end document\n", 3, None, "column count"),
    ("#begin document (d); part 000\na\t(1\nb\t_\n#end document\n", 2, "coref", "unclosed"),
    ("#begin document (d); part 000\na\t_\nb\t1)\n#end document\n", 3, "coref", "no open mention"),
    ("#begin document (d); part 000\na\t(1\nb\t1)x\n#end document\n", 3, "coref", "malformed"),
    ("#begin document (d); part 000\na\t(1)\nb\t_\n#end document\nstray\t_\n", 5, None, "outside"),
    ("#begin document (d); part 000\na\t(1)\n#begin document (e); part 000\n", 3, None, "no '#end document'"),
    ("a\t(1)\n#end document\n", 1, None, "outside"),
    ("#begin document (d); part 000\na\t(1)|(1)\n#end document\n", 2, "coref", "duplicate mention"),
    ("#begin document (d); part 000\na\t(1)|(2)\n#end document\n", 2, "coref", "clusters '1' and '2'"),
])
def test_malformed_conll_raises_input_error(tmp_path: Path, text: str, line: int, field: str | None,
                                            message: str) -> None:
    p = write(tmp_path, text)
    for reader in (read_conll_coref, read_coref_records):
        with pytest.raises(InputError) as err:
            result = reader(p)
            list(result)
        assert err.value.path == str(p)
        assert err.value.line == line, (reader, str(err.value))
        assert err.value.field == field
        assert message in str(err.value)


def test_wrong_column_count_in_conll2012(tmp_path: Path, coref_dir: Path) -> None:
    lines = (coref_dir / "sample.v4_gold_conll").read_text().split("\n")
    lines[3] = lines[3].replace("Speaker_A", "Speaker_A extra")
    p = write(tmp_path, "\n".join(lines), "x_conll")
    with pytest.raises(InputError) as err:
        list(read_conll2012(p))
    assert err.value.line == 4 and "column count" in str(err.value)


def test_too_few_columns_for_conll2012(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="at least 12 columns"):
        list(read_conll2012(write(tmp_path, GOOD)))


def test_bad_word_index_and_parse_bits(tmp_path: Path, coref_dir: Path) -> None:
    text = (coref_dir / "sample.v4_gold_conll").read_text()
    bad_index = text.replace("test/doc_a   0   1      saw", "test/doc_a   0   7      saw", 1)
    p = write(tmp_path, bad_index, "i_conll")
    with pytest.raises(InputError) as err:
        list(read_conll2012(p))
    assert (err.value.line, err.value.field) == (3, "word index")
    bad_tree = text.replace("*))      -   -   -   Speaker_A", "*)      -   -   -   Speaker_A", 1)
    p = write(tmp_path, bad_tree, "p_conll")
    with pytest.raises(InputError) as err:
        list(read_conll2012(p))
    assert err.value.field == "parse"


def test_bad_encoding_names_the_line(tmp_path: Path) -> None:
    p = tmp_path / "latin1.conll"
    p.write_bytes(GOOD.replace("b\t1)", "caf\xe9\t1)").encode("latin-1"))
    with pytest.raises(InputError) as err:
        list(read_conll_coref(p))
    assert err.value.line == 3 and "UTF-8" in str(err.value)


def test_duplicates_can_be_dropped_or_kept(tmp_path: Path) -> None:
    p = write(tmp_path, "#begin document (d); part 000\na\t(1)|(2)\nb\t(2)\n#end document\n")
    with pytest.warns(CorefWarning, match="duplicate mention"):
        (doc,) = read_conll_coref(p, duplicates="drop")
    assert spans(doc) == [[(0, 1)], [(1, 2)]]
    (doc,) = read_conll_coref(p, duplicates="keep")
    assert spans(doc) == [[(0, 1)], [(0, 1), (1, 2)]]


def test_malformed_warn_skips_with_line(tmp_path: Path) -> None:
    p = write(tmp_path, "#begin document (d); part 000\na\t(1)\nb\t2)\nc\t(3\n#end document\n")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        (doc,) = read_conll_coref(p, malformed="warn")
    assert spans(doc) == [[(0, 1)]]
    messages = [str(w.message) for w in caught]
    assert any("line 3" in m and "no open mention" in m for m in messages)
    assert any("line 4" in m and "unclosed" in m for m in messages)


def test_comments_between_documents_and_hash_tokens_inside(tmp_path: Path) -> None:
    # as in the reference scorer, only lines between documents can be comments: inside a
    # document a '#' line is a token (here the hashtag '#')
    p = write(tmp_path, "# a comment\n#begin document (d); part 000\n#\t(1\nb\t1)\n\n"
                        "c\t(1)\n#end document\n# another\n")
    (doc,) = read_conll_coref(p)
    assert [s.words for s in doc.sentences] == [["#", "b"], ["c"]]
    assert spans(doc) == [[(0, 2), (2, 3)]]
    assert read_coref_records(p)[0].spans == spans(doc)


# --------------------------------------------------------------------------------------------
# writer and round trips
# --------------------------------------------------------------------------------------------
def _roundtrip(docs: list[Document], tmp_path: Path) -> list[Document]:
    p = tmp_path / "out.v4_gold_conll"
    assert write_conll(docs, p) == len(docs)
    return list(read_conll2012(p))


def test_roundtrip_conll2012_is_lossless(tmp_path: Path, coref_dir: Path) -> None:
    docs = list(read_conll2012(coref_dir / "sample.v4_gold_conll"))
    back = _roundtrip(docs, tmp_path)
    assert [d.to_dict() for d in back] == [d.to_dict() for d in docs]


def test_roundtrip_ontogum_and_jsonlines(tmp_path: Path, coref_dir: Path) -> None:
    docs = list(read_ontogum(coref_dir / "GUM_test_tiny.conll", conllu_dir=coref_dir / "dep"))
    docs += list(read_jsonlines(coref_dir / "sample.jsonlines"))
    back = _roundtrip(docs, tmp_path)
    assert [d.key for d in back] == [d.key for d in docs]
    assert [spans(d) for d in back] == [spans(d) for d in docs]
    assert [[s.words for s in d.sentences] for d in back] == [[s.words for s in d.sentences] for d in docs]
    assert [t.tag for t in back[0].tokens] == [t.tag for t in docs[0].tokens]
    assert back[1].entities == docs[1].entities
    # and the generic reader (what the reference scorer reads) agrees
    gen = list(read_conll_coref(tmp_path / "out.v4_gold_conll"))
    assert [spans(d) for d in gen] == [spans(d) for d in docs]


def test_writer_format_details(coref_dir: Path) -> None:
    doc = Document(id="x", part=3, sentences=[Sentence(tokens=[Token("a"), Token("b c"), Token("d")])],
                   clusters=[Cluster([Mention(0, 3), Mention(1, 2)], id="7"), Cluster([Mention(0, 1)])])
    buf = io.StringIO()
    write_conll([doc], buf)
    lines = buf.getvalue().split("\n")
    assert lines[0] == "#begin document (x); part 003"
    rows = [line.split("\t") for line in lines[1:4]]
    assert all(len(r) == 12 for r in rows)
    assert [r[3] for r in rows] == ["a", "b_c", "d"]  # no whitespace inside a column
    assert [r[-1] for r in rows] == ["(0|(1)", "(0)", "0)"]  # ids renumbered: not all numeric
    assert lines[-2] == "#end document"


def test_writer_warns_about_crossing_mentions() -> None:
    doc = Document(id="x", sentences=[Sentence(tokens=[Token(w) for w in "a b c d".split()])],
                   clusters=[Cluster([Mention(0, 2), Mention(1, 3)])])
    with pytest.warns(CorefWarning, match="crossing"):
        write_conll([doc], io.StringIO())


def test_writer_empty_document(tmp_path: Path) -> None:
    p = tmp_path / "empty.conll"
    write_conll([Document(id="empty")], p)
    assert p.read_text() == "#begin document (empty)\n#end document\n"
    assert [(d.id, d.sentences, d.clusters) for d in read_conll_coref(p)] == [("empty", [], [])]
    assert [(r.key, r.n_tokens, r.spans) for r in read_coref_records(p)] == [("empty", 0, [])]


def test_writer_rejects_mentions_outside_the_document() -> None:
    doc = Document(id="x", sentences=[Sentence(tokens=[Token("a")])], clusters=[Cluster([Mention(0, 2)])])
    with pytest.raises(ValueError, match="outside"):
        write_conll([doc], io.StringIO())


# --------------------------------------------------------------------------------------------
# the mirror
# --------------------------------------------------------------------------------------------
@pytest.mark.e2e
@pytest.mark.mirror
def test_mirror_ontogum_all_documents(mirror: Path) -> None:
    conll = mirror / "ontogum" / "coref" / "ontogum" / "conll"
    # the release has one stray closing bracket and nine mentions annotated in two clusters
    with pytest.raises(InputError, match="GENTLE_poetry_r"):
        read_coref_records(conll)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        docs = list(read_ontogum(conll, malformed="warn", duplicates="drop"))
    assert len(docs) == 281
    flawed = {Path(str(w.message).split(",")[0]).stem for w in caught}
    assert flawed == {"GENTLE_poetry_raven", "GENTLE_poetry_road", "GUM_bio_emperor", "GUM_bio_galois",
                      "GUM_bio_moreau", "GUM_conversation_zero", "GUM_court_property",
                      "GUM_interview_chomsky", "GUM_letter_flood", "GUM_reddit_callout"}
    assert sum(len(d.words) for d in docs) == 268089
    assert sum(len(c.mentions) for d in docs for c in d.clusters) == 34948
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sents = list(read_ontogum(conll, conllu_dir=mirror / "gum" / "dep", malformed="warn",
                                  duplicates="drop"))
    assert [d.words for d in sents if d.id != "GUM_news_iodine"] == \
        [d.words for d in docs if d.id != "GUM_news_iodine"]
    iodine = next(d for d in sents if d.id == "GUM_news_iodine")
    assert iodine.words[379] == "|"
    assert all(len(d.sentences) > 1 for d in sents)
    assert [spans(d) for d in sents] == [spans(d) for d in docs]


@pytest.mark.e2e
@pytest.mark.mirror
@pytest.mark.parametrize("split", ["dev", "train", "test"])
def test_mirror_conll2012_sample_matches_jsonlines(mirror: Path, split: str) -> None:
    base = mirror / "conll2012-sample"
    (conll,) = read_conll2012(base / f"{split}.english.conll")
    (jl,) = read_jsonlines(base / f"{split}.english.jsonlines")
    assert conll.key == jl.key
    assert conll.words == jl.words
    assert sorted(map(sorted, spans(conll))) == sorted(map(sorted, spans(jl)))
    assert sorted(conll.entities) == jl.entities
    assert all(s.tree is not None and s.tree.leaves() == list(range(len(s))) for s in conll.sentences)


@pytest.mark.e2e
@pytest.mark.mirror
def test_mirror_conll2012_roundtrip(mirror: Path, tmp_path: Path) -> None:
    docs = list(read_conll2012(mirror / "conll2012-sample" / "wsj_0020.conll"))
    assert [d.to_dict() for d in _roundtrip(docs, tmp_path)] == [d.to_dict() for d in docs]


def test_whitespace_only_lines_are_sentence_breaks(tmp_path: Path) -> None:
    p = write(tmp_path, "#begin document (d)\na\t(1\nb\t1)\n\t\nc\t(1)\n \nd\t-\n#end document\n")
    (doc,) = read_conll_coref(p)
    assert [s.words for s in doc.sentences] == [["a", "b"], ["c"], ["d"]]
    assert read_coref_records(p)[0].spans == spans(doc) == [[(0, 2), (2, 3)]]
    assert read_coref_records(p)[0].n_tokens == 4


def test_trailing_whitespace_is_ignored(tmp_path: Path, coref_dir: Path) -> None:
    """As in the reference scorer, which splits on whitespace: a line may end in tabs or spaces
    (the scorer's own test files do) without making an extra, empty column."""
    p = write(tmp_path, "#begin document (d); part 000 \na\t(1\t\nb\t1) \n\nc\t(1)\t \n#end document\n")
    (doc,) = read_conll_coref(p)
    assert [s.words for s in doc.sentences] == [["a", "b"], ["c"]]
    assert spans(doc) == [[(0, 2), (2, 3)]] and read_coref_records(p)[0].spans == spans(doc)
    text = (coref_dir / "sample.v4_gold_conll").read_text()
    padded = "\n".join(line + "\t" if line and not line.startswith("#") else line
                       for line in text.split("\n"))
    p2 = write(tmp_path, padded, "padded_conll")
    assert [d.to_dict() for d in read_conll2012(p2)] == \
        [d.to_dict() for d in read_conll2012(coref_dir / "sample.v4_gold_conll")]


def test_read_coref_routes_options_per_layout_and_rejects_unknown_ones(tmp_path):
    from lingtest.errors import InputError
    from lingtest.readers.conll_coref import read_coref

    f = tmp_path / "a.conll"
    f.write_text("#begin document (a);\nJohn\t(0)\nsaw\t_\nhim\t(0)\n#end document\n", encoding="utf-8")
    # conllu_dir is an OntoGUM option: it does not apply to a generic file and is not passed to its reader
    docs = list(read_coref(f, format="conll", conllu_dir=str(tmp_path), duplicates="drop"))
    assert len(docs) == 1 and [[(m.start, m.end) for m in c.mentions] for c in docs[0].clusters] == [[(0, 1), (2, 3)]]
    with pytest.raises(InputError, match="no_such_option"):
        list(read_coref(f, format="conll", no_such_option=1))
