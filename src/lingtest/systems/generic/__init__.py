"""Systems of any task from one config entry, with one implementation shared by every task:

- ``kind: callable`` (:mod:`.callable`): a Python function ``package.module:function``, batch in,
  batch out;
- ``kind: http`` (:mod:`.http`): a JSON endpoint, with batched requests, bounded concurrency,
  timeouts per read and a deadline per request, a response size cap, retries with capped backoff
  (``Retry-After`` honoured up to ``max_backoff_s``), a rate limit and per-item errors;
- ``kind: predictions`` (:mod:`lingtest.systems.predictions`): a saved predictions file.

:func:`lingtest.systems.entries.instantiate` gives them the task. Hugging Face models are the tasks'
own registered kinds, one implementation each, reused rather than wrapped: ``hf_text_classification``
(the text-classification pipeline), ``hf_token_classification`` (NER), ``hf_seq2seq`` and ``causal_lm``
(contrastive scoring by forced decoding) and the coreference adapters ``fastcoref`` and ``maverick``,
which take hub ids.
"""
