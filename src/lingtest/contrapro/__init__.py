"""Pronoun translation EN->DE: ContraPro's contrastive evaluation and the three context-side
attacks of Krojer/Stojanovski/Peskov/Fraser (phrase addition, possessive extension, synonym
replacement), as a library of pure functions; stages come from :mod:`lingtest.contrapro.stages`.

* :mod:`~lingtest.contrapro.config` - the typed configuration (``cfg.contrapro``);
* :mod:`~lingtest.contrapro.metadata` - joining the JSON metadata onto the grouped examples; fields;
* :mod:`~lingtest.contrapro.german` - German determiners, contractions, pronoun genders;
* :mod:`~lingtest.contrapro.lexicon` - OpenThesaurus, Ding, german-nouns loaders;
* :mod:`~lingtest.contrapro.attack` - attack records, skips, text edits;
* :mod:`~lingtest.contrapro.phrase`, :mod:`~lingtest.contrapro.possessive`,
  :mod:`~lingtest.contrapro.synonym` - the attacks;
* :mod:`~lingtest.contrapro.configured_attacks` - the configured attacks, built once and run over examples;
* :mod:`~lingtest.contrapro.sample` - the seeded scored sample (and the AFA pool of unscored examples);
* :mod:`~lingtest.readers.candidate_lines` - the ContraCAT release layout;
* :mod:`~lingtest.contrapro.review` - the seeded quality sample;
* :mod:`~lingtest.contrapro.cases` - examples as test cases (``expected: contrastive``);
* :mod:`~lingtest.contrapro.evaluate` - accuracy and its breakdowns, deltas to clean;
* :mod:`~lingtest.contrapro.grading` - a scored suite graded per set and per attack;
* :mod:`~lingtest.contrapro.afa`, :mod:`~lingtest.contrapro.finetune` - antecedent-free augmentation and
  fine-tuning on it;
* :mod:`~lingtest.contrapro.report` - tables.

The scorers are systems of the ``contrastive`` task: :mod:`lingtest.systems.contrastive`.
"""
