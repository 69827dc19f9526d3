"""The tests, a package: run from the repository's root, they import their helpers as
``tests.support.*`` and the benchmarks' as ``benchmarks.*``."""
