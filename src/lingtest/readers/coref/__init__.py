"""Coreference file formats, one small module each; :mod:`lingtest.readers.conll_coref` gathers
their public names.

* :mod:`.records` — shared types: :class:`CorefRecord` (the scoring view of a document),
  :class:`CorefWarning`, the ``duplicates``/``malformed`` options and the duplicate-document check;
* :mod:`.blocks` — ``#begin document`` ... ``#end document`` blocks of CoNLL-style files;
* :mod:`.brackets` — the coreference bracket column decoder;
* :mod:`.conll2012` — CoNLL-2012 ``*_conll`` (every column: NE bits, parse bits, speakers...);
* :mod:`.ontogum` — OntoGUM 3-column files (+ GUM CoNLL-U sentences);
* :mod:`.jsonlines` — e2e-coref jsonlines;
* :mod:`.generic` — any CoNLL-style file whose last column holds the brackets;
* :mod:`.detect` — format detection, :func:`read_coref` and the scoring fast path
  :func:`read_coref_records`;
* :mod:`.writer` — :func:`write_conll`.

Nothing here imports the data model at import time: the scoring path does not need it.
"""
