"""Recorded replies served by request content: ``replay:DIR``.

A recording folder holds ``replies.jsonl``: one JSON object a line with ``key`` (see
:func:`content_key`), ``reply`` (the text the model returned) and optional provenance fields
(``answered_by``, ``note``). A request whose key has a reply gets it back; any other request
fails for good (it is never made up) and is appended once to ``DIR/missing.jsonl`` with its
whole body (messages and schema), so it can be answered the same way and added.

The key covers what the model reads (the messages, the schema and its name) and nothing of
how it is sampled (temperature, seed, token limit): a reply recorded for a request is the
model's answer to that text.
"""

from __future__ import annotations

import hashlib
import json
import threading
from pathlib import Path
from typing import Any

from qagen.llm.base import Completion, LLMError, LLMRequest, LLMSpecError, Usage
from qagen.llm.pricing import estimate_prompt_tokens, estimate_tokens

REPLIES = "replies.jsonl"
MISSING = "missing.jsonl"


class NoRecordedReply(LLMError):
    """The recording holds no reply for this request (it is listed in ``missing.jsonl``)."""


def content_key(request: LLMRequest) -> str:
    """SHA-256 of the request's messages, schema and schema name (what the model reads)."""
    payload = {
        "messages": [[m.role, m.content] for m in request.messages],
        "schema": request.schema,
        "schema_name": request.schema_name,
    }
    blob = json.dumps(payload, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


def request_body(request: LLMRequest) -> dict[str, Any]:
    """What a recorded request keeps: its key and the body a model would see."""
    return {
        "key": content_key(request),
        "messages": [{"role": m.role, "content": m.content} for m in request.messages],
        "schema_name": request.schema_name,
        "schema": request.schema,
    }


def load_replies(folder: Path) -> dict[str, str]:
    """``key -> reply`` of ``folder/replies.jsonl`` (a later line for a key wins)."""
    path = folder / REPLIES
    found: dict[str, str] = {}
    if not path.is_file():
        return found
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
            found[str(row["key"])] = str(row["reply"])
        except (ValueError, KeyError, TypeError):
            raise LLMSpecError(f"{path}: line {n} is not a recorded reply (a JSON object with key and reply)") from None
    return found


class ReplayLLM:
    """An LLM that answers from a recording folder and lists what it could not answer."""

    max_concurrency = 64
    structured_mode = "json_schema"

    def __init__(self, folder: str | Path) -> None:
        self.folder = Path(folder)
        if not self.folder.is_dir():
            raise LLMSpecError(f"replay: no recording folder at {self.folder}; give replay:<folder with {REPLIES}>")
        self.model = "recorded"
        self.id = f"replay:{self.folder.name}"
        self.replies = load_replies(self.folder)
        self._missing_lock = threading.Lock()
        self._listed: set[str] = set()
        missing = self.folder / MISSING
        if missing.is_file():
            for line in missing.read_text(encoding="utf-8").splitlines():
                if line.strip():
                    self._listed.add(json.loads(line)["key"])

    async def complete(self, request: LLMRequest) -> Completion:
        key = content_key(request)
        reply = self.replies.get(key)
        if reply is None:
            self._list_missing(request, key)
            raise NoRecordedReply(f"no recorded reply for request {key[:12]} (listed in {MISSING})")
        usage = Usage(estimate_prompt_tokens(request), estimate_tokens(reply))
        return Completion(reply, usage, self.model, "stop")

    def _list_missing(self, request: LLMRequest, key: str) -> None:
        with self._missing_lock:
            if key in self._listed:
                return
            self._listed.add(key)
            with (self.folder / MISSING).open("a", encoding="utf-8") as fh:
                fh.write(json.dumps(request_body(request), ensure_ascii=False) + "\n")
