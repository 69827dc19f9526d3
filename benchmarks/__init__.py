"""The benchmarks, run from the repository's root as modules (``python -m benchmarks.load``),
so that they import one another as ``benchmarks.*`` and the tests' helpers as
``tests.support.*``."""
