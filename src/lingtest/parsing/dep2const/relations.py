"""The dependency relations and tags that the conversion reads, grouped by the Penn structure they
lead to. Both spaCy/ClearNLP labels (``dobj``, ``pobj``, ``prep``, ``relcl``, ``acomp`` ...) and UD
labels (``obj``, ``obl``, ``case``, ``cop``, ``acl:relcl``, ``nsubj:pass`` ...) appear."""

from __future__ import annotations

SUBJ = {"nsubj", "nsubjpass", "csubj", "csubjpass", "expl", "nsubj:pass", "csubj:pass", "expl:pass",
        "nsubj:outer", "csubj:outer"}
AUX = {"aux", "auxpass", "aux:pass"}
COP = {"cop"}
MARK = {"mark"}
COORD = {"conj", "cc", "preconj", "cc:preconj"}
# dependents that get a layer of their own kind (subject → S, auxiliary → VP ...), never the base phrase
SPECIAL = SUBJ | AUX | COP | MARK | COORD
CLAUSE_LEVEL = {"intj", "discourse", "vocative", "parataxis", "dislocated", "list", "meta", "reparandum"}
# relations whose dependents are clauses (they get an S even without an overt subject)
CLAUSAL = {"ROOT", "root", "xcomp", "ccomp", "advcl", "csubj", "csubjpass", "csubj:pass", "relcl",
           "acl:relcl", "pcomp", "parataxis", "advcl:relcl", "list", "dislocated"}
# clausal dependents (never a fronted WH phrase, even when they start with a WH word)
CLAUSE_RELS = {"advcl", "ccomp", "xcomp", "csubj", "csubjpass", "csubj:pass", "parataxis", "relcl", "acl",
               "acl:relcl", "advcl:relcl", "conj", "list"}
RELATIVE = {"relcl", "acl:relcl", "advcl:relcl"}
# roles of clauses that may start with a fronted WH phrase (an SBAR/SBARQ holds it)
WH_FRONTING_ROLES = RELATIVE | {"ccomp", "advcl", "csubj", "pcomp", "acl", "xcomp", "ROOT"}
# dependents attached without a phrase of their own when they have no dependents
BARE = {"det", "predet", "amod", "compound", "nummod", "poss", "case", "mark", "cc", "preconj",
        "cc:preconj", "aux", "auxpass", "aux:pass", "cop", "neg", "prt", "compound:prt", "punct",
        "quantmod", "nn", "nmod:poss", "det:poss", "det:predet", "fixed", "flat", "flat:name",
        "goeswith", "nummod:gov", "det:nummod", "number", "compound:svc"}
# subtrees flattened into their head's phrase (multi-word names, fixed expressions)
FLAT = {"compound", "flat", "flat:name", "fixed", "goeswith", "nn", "compound:prt"}
WH_TAGS = {"WDT", "WP", "WP$", "WRB"}
PUNCT_TAGS = {",", ".", ":", "``", "''", "-LRB-", "-RRB-", "HYPH", "NFP", "$", "#"}
NOUN_POS = {"NOUN", "PROPN", "PRON", "NUM", "SYM", "X"}
NOUN_TAGS_PREFIX = ("NN", "PRP", "EX", "WP", "FW")
# noun dependents that stay inside the base NP even when they follow the noun
NP_INTERNAL = {"case", "det", "compound", "nummod", "flat", "flat:name", "fixed", "punct", "nmod:poss",
               "poss", "goeswith", "quantmod", "nn"}
OPEN_BRACKETS = {"-LRB-", "-LCB-", "-LSB-"}
CLOSE_BRACKETS = {"-RRB-", "-RCB-", "-RSB-"}
BE_HAVE_DO = {"is", "are", "was", "were", "am", "be", "'s", "'re", "'m", "has", "have", "had", "does", "do",
              "did"}
FINITE_TAGS = {"VBD", "VBZ", "VBP", "MD"}
FINAL_PUNCT = {".", "?", "!", "...", "…", "?!", "!?"}
