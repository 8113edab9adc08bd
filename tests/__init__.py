"""qagen's tests (a package, so that test modules and benchmarks import helpers as ``tests.support``)."""
