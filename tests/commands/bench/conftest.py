"""The benchmark tests' shared fixture: a tiny synthetic corpus, one per test module."""

from tests.evaluation.bench.samples import corpus  # noqa: F401 (a fixture)
