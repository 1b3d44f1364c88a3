"""ContraCAT: contrastive coreference analytical templates for EN->DE pronoun translation.

* :mod:`~lingtest.contracat.config` - the typed configuration (``cfg.contracat``);
* :mod:`~lingtest.contracat.components` - the configured vocabulary and template definitions;
* :mod:`~lingtest.contracat.vocabulary` - the entity and word vocabulary, German article/pronoun
  tables, new nouns from the Ding dictionary or a TSV list;
* :mod:`~lingtest.contracat.generate` - the template generator (definitions -> release layout);
* :mod:`~lingtest.contracat.definitions` - the release's templates;
* :mod:`~lingtest.contracat.cases` - examples as ``contrastive`` test cases;
* :mod:`~lingtest.contracat.evaluate` - per-template scoring (standard, gender, order, role);
* :mod:`~lingtest.contracat.stages` - the DVC stage bodies.
"""
