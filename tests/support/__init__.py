"""Helpers shared by the tests and the benchmarks.

* :mod:`tests.support.fast` — fast component settings and the example documents;
* :mod:`tests.support.llm_server` — a fake OpenAI-compatible HTTP server (in this process or another);
* :mod:`tests.support.grounded` — a responder whose replies are grounded in the prompt's passages;
* :mod:`tests.support.bad_files` — broken and hostile documents;
* :mod:`tests.support.topics_data` — a small synthetic topic corpus;
* :mod:`tests.support.ci` — skip locally, fail in CI when an optional test dependency is missing.

Test modules import them as ``from tests.support.fast import FAST`` (pytest puts the repository
root on ``sys.path``, as ``tests`` is a package); benchmarks run as scripts add the repository
root to ``sys.path`` first.
"""
