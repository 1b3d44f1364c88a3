"""Tiny hand-parsed documents for the coreference-system tests (no parser needed).

A token is written ``word/TAG/head/dep`` (head 1-based inside its sentence, 0 for the root) with an
optional ``/ENT`` (an IOB2 tag such as ``B-PERSON``) and ``/LEMMA``; UPOS is derived from the PTB tag.
"""

from __future__ import annotations

from lingtest.data.model import Document, Sentence, Token

_UPOS = {"NN": "NOUN", "NNS": "NOUN", "NNP": "PROPN", "NNPS": "PROPN", "PRP": "PRON", "PRP$": "PRON",
         "VB": "VERB", "VBD": "VERB", "VBZ": "VERB", "VBN": "VERB", "VBG": "VERB", "VBP": "VERB",
         "MD": "AUX", "DT": "DET", "JJ": "ADJ", "IN": "ADP", "CC": "CCONJ", "CD": "NUM", ".": "PUNCT",
         ",": "PUNCT", "WP": "PRON", "WDT": "PRON", "RB": "ADV", "TO": "PART", "POS": "PART"}
_PLURAL = {"NNS", "NNPS"}


def sent(spec: str) -> Sentence:
    toks = []
    for item in spec.split():
        parts = item.split("/")
        word, tag, head, dep = parts[0], parts[1], int(parts[2]), parts[3]
        ent = parts[4] if len(parts) > 4 else "O"
        pos = _UPOS.get(tag, "X")
        if word.lower() in ("is", "was", "are", "were") and tag.startswith("VB"):
            pos = "AUX"
        morph = "Number=Plur" if tag in _PLURAL else ("Number=Sing" if tag in ("NN", "NNP") else None)
        lemma = {"is": "be", "was": "be", "are": "be", "were": "be"}.get(word.lower(), word.lower())
        if tag in _PLURAL and lemma.endswith("s"):
            lemma = lemma[:-1]
        if len(parts) > 5:
            lemma = parts[5]
        toks.append(Token(text=word, tag=tag, pos=pos, head=head - 1, dep=dep, ent=ent, lemma=lemma, morph=morph))
    return Sentence(tokens=toks)


def doc(*specs: str, id: str = "d") -> Document:
    return Document(id=id, sentences=[sent(s) for s in specs])


# "John said he would come ."
JOHN_SAID = "John/NNP/2/nsubj/B-PERSON said/VBD/0/ROOT he/PRP/5/nsubj would/MD/5/aux come/VB/2/ccomp ././2/punct"
# "Mary met him there ."
MARY_MET = "Mary/NNP/2/nsubj/B-PERSON met/VBD/0/ROOT him/PRP/2/dobj there/RB/2/advmod ././2/punct"
# "She smiled ."
SHE_SMILED = "She/PRP/2/nsubj smiled/VBD/0/ROOT ././2/punct"
