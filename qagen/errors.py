"""One root for the errors qagen raises to its users.

Every error a user can act on (bad documents, a bad configuration, an unusable output folder, a
refused API key, invalid answers to score, ...) is a :class:`QagenError`; its message says what is
wrong and what to do. Each area keeps its own subclass (``IngestError``, ``ConfigError``,
``LLMError``, ...), which also derives from the built-in type it always was (``ValueError``,
``RuntimeError``), so existing ``except ValueError`` code keeps working. The CLI prints any
:class:`QagenError` as one ``error:`` line and exits with its ``exit_code``.

Errors qagen handles itself (a reply that fails validation and is repaired, a document that
fails to parse and is reported) are not :class:`QagenError`: they never reach a caller.
"""

from __future__ import annotations


class QagenError(Exception):
    """An error a user can act on; ``exit_code`` is what the CLI exits with (1, or 2 for usage)."""

    exit_code: int = 1


class UsageError(QagenError):
    """The request itself is wrong (a configuration key, a sweep grid): the CLI exits with 2."""

    exit_code = 2


class DamagedFileError(QagenError, ValueError):
    """A JSON or JSONL file qagen wrote (or reads) is cut short or not JSON: the message names it and its line."""
