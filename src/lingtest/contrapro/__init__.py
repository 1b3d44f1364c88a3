"""Pronoun translation EN->DE (issue 12): ContraPro's contrastive evaluation and the three context-side
attacks of Krojer/Stojanovski/Peskov/Fraser (phrase addition, possessive extension, synonym
replacement), as a library of pure functions; stages come from :mod:`lingtest.contrapro.stages`.

* :mod:`~lingtest.contrapro.metadata` - joining the JSON metadata onto the grouped examples; fields;
* :mod:`~lingtest.contrapro.german` - German determiners, contractions, pronoun genders;
* :mod:`~lingtest.contrapro.lexicon` - OpenThesaurus, Ding, german-nouns loaders;
* :mod:`~lingtest.contrapro.attack` - attack records, skips, text edits;
* :mod:`~lingtest.contrapro.phrase`, :mod:`~lingtest.contrapro.possessive`,
  :mod:`~lingtest.contrapro.synonym` - the attacks;
* :mod:`~lingtest.contrapro.export` - the ContraCAT release layout;
* :mod:`~lingtest.contrapro.review` - the seeded quality sample;
* :mod:`~lingtest.contrapro.cases` - examples as test cases (``expected: contrastive``);
* :mod:`~lingtest.contrapro.evaluate` - accuracy and its breakdowns, deltas to clean;
* :mod:`~lingtest.contrapro.report` - tables.

The scorers are systems of the ``contrastive`` task: :mod:`lingtest.systems.contrastive`.
"""
