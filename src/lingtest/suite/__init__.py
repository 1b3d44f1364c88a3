"""Test cases with expectations, checked by one runner (:func:`lingtest.suite.run.run_suite`).

A :class:`~lingtest.data.model.TestCase` carries its expectation as data (``expected``): a name from
:data:`~lingtest.suite.expectations.EXPECTATIONS` and its parameters. The runner asks the expectation
which inputs it needs, predicts them all through one (batched, cached) system, and checks each case.
"""
