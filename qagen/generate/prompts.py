"""Prompt files: loading, hashing and filling in.

A prompt file (``prompts/<name>.md``) holds a comment, then a ``=== system ===`` part and a
``=== user ===`` part, with ``$placeholders`` (``string.Template`` syntax, so JSON braces
need no escaping). The hash of the file's bytes (and of the few-shot file where one is
used) is recorded on every item the prompt made, so a changed prompt is visible in the
data and invalidates the request cache.
"""

from __future__ import annotations

import json
import re
import string
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from qagen.errors import QagenError
from qagen.io import sha256_bytes, sha256_text

PROMPT_NAMES = ("long_form", "factoid", "mcq", "multi_hop", "comparison")
DEFAULT_FEW_SHOT = "few_shot_long_form.json"


def language_few_shots(prompts_dir: str | Path) -> dict[str, Path]:
    """Few-shot files in another language next to the default one: ``few_shot_long_form.<code>.json``."""
    folder = Path(prompts_dir)
    if not folder.is_dir():
        return {}
    stem = DEFAULT_FEW_SHOT.removesuffix(".json")
    found = {p.name[len(stem) + 1 : -len(".json")]: p for p in sorted(folder.glob(f"{stem}.*.json"))}
    return {code: path for code, path in found.items() if code.isalpha()}


_MARKER = re.compile(r"^=== (system|user) ===\s*$", re.MULTILINE)


class PromptError(QagenError, ValueError):
    """A prompt or few-shot file that is missing or malformed."""


@dataclass(frozen=True)
class Prompt:
    """One loaded prompt: its system and user templates and the hash of what defines it."""

    name: str
    system: str
    user: str
    hash: str
    path: Path

    def render(self, **values: Any) -> tuple[str, str]:
        """The system and user messages with every placeholder filled in."""
        return _fill(self.system, values, self.path), _fill(self.user, values, self.path)


def default_prompts_dir() -> Path:
    """The bundled prompts: ``prompts/`` of a source checkout, else the installed package data."""
    checkout = Path(__file__).resolve().parents[2] / "prompts"
    if (checkout / "long_form.md").is_file():
        return checkout
    from importlib.resources import files

    return Path(str(files("qagen") / "prompts"))


def prompt_fingerprint(prompts_dir: str | Path | None) -> dict[str, str]:
    """File name -> SHA-256 of every file in the prompts folder (part of the generate fingerprint).

    ``answerability.md`` belongs to the splits stage (its judge), ``judge_*.md`` to scoring: not to generation.
    """
    folder = Path(prompts_dir) if prompts_dir else default_prompts_dir()
    if not folder.is_dir():
        raise PromptError(f"prompts folder not found: {folder}")
    files = [
        p
        for p in sorted(folder.iterdir())
        if p.is_file() and p.name != "answerability.md" and not p.name.startswith("judge_")
    ]
    return {p.name: sha256_bytes(p.read_bytes()) for p in files}


def load_prompt(prompts_dir: str | Path, name: str, extra: bytes = b"") -> Prompt:
    """Load ``<prompts_dir>/<name>.md``; ``extra`` (e.g. few-shot file bytes) joins the hash."""
    path = Path(prompts_dir) / f"{name}.md"
    if not path.is_file():
        raise PromptError(f"prompt file not found: {path} (expected one of {', '.join(PROMPT_NAMES)} in {prompts_dir})")
    data = path.read_bytes()
    text = data.decode("utf-8")
    parts = _MARKER.split(text)
    # parts: [comment, "system", body, "user", body]
    if len(parts) != 5 or parts[1] != "system" or parts[3] != "user":
        raise PromptError(f"{path} must contain a '=== system ===' line followed by a '=== user ===' line")
    digest = sha256_bytes(data + b"\0" + extra)[:16]
    return Prompt(name=name, system=parts[2].strip(), user=parts[4].strip(), hash=digest, path=path)


def load_prompt_or_bundled(prompts_dir: str | Path | None, name: str) -> Prompt:
    """``<name>.md`` from ``prompts_dir``, or the bundled one when that folder has none (a prompts folder copied
    before the prompt existed)."""
    folder = Path(prompts_dir) if prompts_dir else default_prompts_dir()
    if not (folder / f"{name}.md").is_file():
        folder = default_prompts_dir()
    return load_prompt(folder, name)


def load_few_shot(path: str | Path) -> tuple[list[dict[str, str]], bytes]:
    """Few-shot examples: a JSON list of objects with ``question`` and ``answer`` (and optional
    ``section``, ``persona``). Returns the examples and the file's bytes (for the prompt hash)."""
    p = Path(path)
    if not p.is_file():
        raise PromptError(f"generate.few_shot_file not found: {p}")
    data = p.read_bytes()
    try:
        examples = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise PromptError(f"generate.few_shot_file {p} is not valid JSON: {exc}") from None
    ok = isinstance(examples, list) and all(
        isinstance(e, dict) and isinstance(e.get("question"), str) and isinstance(e.get("answer"), str)
        for e in examples
    )
    if not ok:
        raise PromptError(f"generate.few_shot_file {p} must be a JSON list of objects with 'question' and 'answer'")
    return examples, data


def format_examples(examples: list[dict[str, str]]) -> str:
    """Few-shot examples as prompt text."""
    blocks = []
    for i, ex in enumerate(examples, 1):
        lines = [f"Example {i}" + (f" (asked by a {ex['persona']})" if ex.get("persona") else "") + ":"]
        if ex.get("section"):
            lines.append(f"Section: {ex['section']}")
        lines += [f"Question: {ex['question']}", f"Answer: {ex['answer']}"]
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks) if blocks else "(none)"


def text_hash(text: str) -> str:
    return sha256_text(text)[:16]


def _fill(template: str, values: dict[str, Any], path: Path) -> str:
    try:
        return string.Template(template).substitute({k: str(v) for k, v in values.items()})
    except KeyError as exc:
        raise PromptError(f"{path} uses the placeholder ${exc.args[0]}, which qagen does not provide") from None
    except ValueError as exc:
        raise PromptError(f"{path} has an invalid placeholder ({exc}); write a literal $ as $$") from None
