"""A fake OpenAI-compatible HTTP server for tests and benchmarks (real sockets, real HTTP).

It speaks enough of the OpenAI protocol for the official ``openai`` client and LangChain's
``ChatOpenAI``: ``POST /v1/chat/completions``, ``POST /v1/embeddings`` (float or base64),
``GET /v1/models``. Replies carry ``usage`` fields (about 4 characters per token, the
``response_format`` counted as prompt). Every request is logged. Error replies are
OpenAI-shaped and contain the word ``SECRET``, so a test can assert that no provider body
reaches a message or a log. Test modules import it as ``from tests.support.llm_server import ...``;
benchmarks put the repository root on ``sys.path`` first.

Start and stop::

    from tests.support.llm_server import FakeOpenAIServer, rate_limit, invalid_json

    with FakeOpenAIServer(latency=0.05) as server:        # 127.0.0.1, free port
        llm = get_llm(f"openai:fake-model@{server.url}")   # server.url ends in /v1
        server.script(rate_limit(retry_after=0.2), invalid_json())   # next two chat requests
        ...
        assert server.count() == 3                          # chat requests received

Constructor ``FakeOpenAIServer(responder=None, *, latency=0.0, fault_rate=0.0, faults=None,
seed=0, api_key=None, model="fake-model", json_schema=True, json_object=True, usage=True,
embedding_dim=8, port=0)``:

- ``responder(body: dict) -> str | dict | list | Action``: the reply to a chat request
  (``body`` is the parsed JSON request). A str is the message content; a dict or list is
  sent as JSON content; an :class:`Action` is played as is. Default:
  :func:`default_responder` (a valid instance of the request's JSON schema, found in
  ``response_format`` or in a ``JSON schema:`` line of the prompt; else an echo).
- ``latency``: seconds each chat/embedding request waits before replying (settable);
  with ``latency_max``, each request waits a uniform draw from ``[latency, latency_max]``.
- ``fault_rate``, ``faults``, ``seed``: with probability ``fault_rate`` a chat request gets
  a fault drawn from ``faults`` (Actions; default 429, 500, 503, connection reset). The draw
  depends only on ``seed``, the logical request (its system and first user message, so a
  retry or a repair of the same request counts as the same request) and how many times that
  request was seen, never on arrival order: runs with concurrency fault the same requests.
- ``max_consecutive_faults``: when set, a logical request is faulted at most this many times
  in a row (a flaky provider, not a dead one), so a client with enough retries and repair
  attempts must lose nothing.
- ``api_key``: when set, requests without ``Authorization: Bearer <api_key>`` get 401 (the model
  list too; ``models_requests`` counts its requests).
- ``json_schema=False``: a ``json_schema`` response_format gets HTTP 500 "Input should be
  'text' or 'json_object'" (as llama.cpp's server does); ``json_object=False``: a
  ``json_object`` response_format gets HTTP 400.
- ``usage=False``: replies without ``usage``.

Scripting: ``script(*actions)`` queues Actions that the next chat requests get, in arrival
order, before the fault rate and the responder apply (a str, dict or list is ``ok(content)``).
Actions (module functions):
``ok(content=None)``, ``status(code, retry_after=None)``, ``rate_limit(retry_after=1.0)``,
``server_error(code=500)``, ``unauthorized()``, ``reset()`` (TCP reset, no response),
``slow(seconds, then=None)``, ``invalid_json()``, ``wrong_schema()``, ``truncated(content=None)``,
``refusal(text)``.

Inspection: ``requests`` (list of :class:`Record`: index, path, body, status, action,
t_start, t_end, authorized), ``chat_requests``, ``count(path=CHAT, status=None)``,
``max_in_flight``, ``user_texts()`` (last user message of each chat request), ``reset_log()``,
``stats()`` (all of it as plain data; also served at ``GET /_fake/stats``, and
``POST /_fake/reset`` clears the log).

``fast_config(**overrides)`` gives an ``LLMConfig`` with tiny backoff for fast tests.

Out of process (for timing tests and benchmarks, so the server's CPU use does not slow the
client under test): ``with ServerProcess(latency=0.2) as srv: ... srv.url, srv.stats()``,
or from a shell: ``python -m tests.support.llm_server --latency 0.2`` prints its URL and serves until
standard input closes.
"""

from __future__ import annotations

import base64
import contextlib
import dataclasses
import hashlib
import json
import math
import os
import random
import re
import socket
import struct
import threading
import time
from collections import deque
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

CHAT = "/v1/chat/completions"
EMBEDDINGS = "/v1/embeddings"


@dataclasses.dataclass(frozen=True)
class Action:
    """What the server does with one request."""

    kind: str = "ok"  # ok | status | reset | slow
    content: Any = None  # str, JSON-able value, or None (ask the responder)
    status: int = 200
    retry_after: float | None = None
    delay: float = 0.0
    finish_reason: str = "stop"
    refusal: str | None = None
    then: Action | None = None


def ok(content: Any = None) -> Action:
    return Action("ok", content)


def status(code: int, retry_after: float | None = None) -> Action:
    return Action("status", status=code, retry_after=retry_after)


def rate_limit(retry_after: float = 1.0) -> Action:
    return status(429, retry_after)


def server_error(code: int = 500) -> Action:
    return status(code)


def unauthorized() -> Action:
    return status(401)


def reset() -> Action:
    return Action("reset")


def slow(seconds: float, then: Action | None = None) -> Action:
    return Action("slow", delay=seconds, then=then)


def invalid_json() -> Action:
    return Action("ok", '{"question": "What is it?", "answer": ')


def wrong_schema() -> Action:
    return Action("ok", {"unexpected": True})


def truncated(content: str | None = None) -> Action:
    return Action("ok", content or '{"question": "What does the leaflet say about', finish_reason="length")


def refusal(text: str = "I'm sorry, I cannot help with that.") -> Action:
    return Action("ok", None, refusal=text)


DEFAULT_FAULTS = (rate_limit(0.0), server_error(500), server_error(503), reset())


@dataclasses.dataclass
class Record:
    index: int
    path: str
    body: Any
    t_start: float
    t_end: float = 0.0
    status: int = 0
    action: str = ""
    authorized: bool = True


def example_from_schema(schema: dict[str, Any], root: dict[str, Any] | None = None) -> Any:
    """A small valid instance of a JSON schema (objects, arrays, enums, $ref, anyOf)."""
    root = root or schema
    if "$ref" in schema:
        target: Any = root
        for part in schema["$ref"].lstrip("#/").split("/"):
            target = target[part]
        return example_from_schema(target, root)
    if "const" in schema:
        return schema["const"]
    if "enum" in schema:
        return schema["enum"][0]
    for key in ("anyOf", "oneOf", "allOf"):
        if key in schema:
            options = [s for s in schema[key] if s.get("type") != "null"] or schema[key]
            return example_from_schema(options[0], root)
    kind = schema.get("type", "object")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "null")
    if kind == "object":
        props = schema.get("properties", {})
        return {name: example_from_schema(sub, root) for name, sub in props.items()}
    if kind == "array":
        n = max(1, int(schema.get("minItems", 1)))
        return [example_from_schema(schema.get("items", {"type": "string"}), root) for _ in range(n)]
    if kind == "string":
        return "x" * max(1, int(schema.get("minLength", 4)))
    if kind == "integer":
        return int(schema.get("minimum", 1))
    if kind == "number":
        return float(schema.get("minimum", 1.0))
    if kind == "boolean":
        return True
    return None


def schema_of(body: dict[str, Any]) -> dict[str, Any] | None:
    """The JSON schema a chat request asks for: ``response_format`` or a ``JSON schema:`` prompt line."""
    fmt = body.get("response_format") or {}
    if fmt.get("type") == "json_schema":
        return fmt.get("json_schema", {}).get("schema")
    for message in reversed(body.get("messages", [])):
        content = message.get("content") or ""
        match = re.search(r"JSON schema:\s*\n(\{.*\})\s*$", content, re.DOTALL)
        if match:
            with contextlib.suppress(json.JSONDecodeError):
                return json.loads(match.group(1))
    return None


def last_user_text(body: dict[str, Any]) -> str:
    for message in reversed(body.get("messages", [])):
        if message.get("role") == "user":
            return str(message.get("content") or "")
    return ""


def default_responder(body: dict[str, Any]) -> Any:
    schema = schema_of(body)
    if schema is not None:
        return example_from_schema(schema)
    return f"echo: {last_user_text(body)[:80]}"


def _tokens(text: str) -> int:
    return math.ceil(len(text) / 4)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # headers and body go out at once, no 40 ms delayed-ACK stalls
    server: _HTTPServer

    def log_message(self, format: str, *args: Any) -> None:  # quiet
        pass

    def do_GET(self) -> None:
        if self.path.rstrip("/") == "/_fake/stats":
            self._send_json(200, self.server.owner.stats())
        elif self.path.rstrip("/") == "/v1/models":
            owner = self.server.owner
            owner.models_requests += 1
            if owner.api_key is not None and self.headers.get("Authorization") != f"Bearer {owner.api_key}":
                message, kind, code = _STATUS_BODIES[401]
                self._send_json(401, _error_body(message, kind, code))
                return
            model = owner.model
            self._send_json(200, {"object": "list", "data": [{"id": model, "object": "model", "owned_by": "fake"}]})
        else:
            self._send_json(404, _error_body("not found", "invalid_request_error", None))

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length", 0))
        raw = self.rfile.read(length) if length else b""
        try:
            body = json.loads(raw or b"{}")
        except json.JSONDecodeError:
            body = None
        if self.path.rstrip("/") == "/_fake/reset":
            self.server.owner.reset_log()
            self._send_json(200, {"ok": True})
            return
        self.server.owner._handle(self, self.path.rstrip("/"), body)

    def _send_json(self, code: int, payload: Any, headers: dict[str, str] | None = None) -> None:
        data = json.dumps(payload).encode("utf-8")
        try:
            self.send_response(code)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            for k, v in (headers or {}).items():
                self.send_header(k, v)
            self.end_headers()
            self.wfile.write(data)
            self.wfile.flush()
        except OSError:  # the client gave up (timeout) or reset the connection
            self.close_connection = True

    def _reset(self) -> None:
        """Close the TCP connection with RST, sending nothing."""
        with contextlib.suppress(OSError):
            self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            self.connection.close()
        self.close_connection = True


class _HTTPServer(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False
    request_queue_size = 512
    owner: FakeOpenAIServer

    def handle_error(self, request: Any, client_address: Any) -> None:  # resets and timeouts are expected
        pass


def _error_body(message: str, kind: str, code: str | None) -> dict[str, Any]:
    return {"error": {"message": message, "type": kind, "param": None, "code": code}}


_STATUS_BODIES = {
    401: ("Incorrect API key provided: sk-fake-SECRET-body. You can find your key at ...", "invalid_request_error",
          "invalid_api_key"),
    429: ("Rate limit reached for requests (SECRET provider detail)", "requests", "rate_limit_exceeded"),
    500: ("The server had an error while processing your request (SECRET provider detail)", "server_error", None),
    503: ("The engine is currently overloaded (SECRET provider detail)", "server_error", None),
}  # fmt: skip


class FakeOpenAIServer:
    """A scriptable OpenAI-compatible server on 127.0.0.1 (see the module docstring)."""

    def __init__(
        self,
        responder: Callable[[dict[str, Any]], Any] | None = None,
        *,
        latency: float = 0.0,
        latency_max: float | None = None,
        fault_rate: float = 0.0,
        faults: tuple[Action, ...] | list[Action] | None = None,
        seed: int = 0,
        max_consecutive_faults: int | None = None,
        api_key: str | None = None,
        model: str = "fake-model",
        json_schema: bool = True,
        json_object: bool = True,
        usage: bool = True,
        embedding_dim: int = 8,
        port: int = 0,
    ) -> None:
        self.port_requested = port
        self.responder = responder or default_responder
        self.latency = latency
        self.latency_max = latency_max
        self._latency_rng = random.Random(seed)
        self.fault_rate = fault_rate
        self.faults = tuple(faults) if faults else DEFAULT_FAULTS
        self.api_key = api_key
        self.models_requests = 0  # GET /v1/models received (the build's preflight)
        self.model = model
        self.json_schema = json_schema
        self.json_object = json_object
        self.usage = usage
        self.embedding_dim = embedding_dim
        self.requests: list[Record] = []
        self.max_in_flight = 0
        self._in_flight = 0
        self._queue: deque[Action] = deque()
        self.seed = seed
        self.max_consecutive_faults = max_consecutive_faults
        self._seen: dict[str, int] = {}
        self._fault_streak: dict[str, int] = {}
        self._lock = threading.Lock()
        self._httpd: _HTTPServer | None = None
        self._thread: threading.Thread | None = None

    # ------------------------------------------------------------ lifecycle

    def start(self) -> FakeOpenAIServer:
        self._httpd = _HTTPServer(("127.0.0.1", self.port_requested), _Handler)
        self._httpd.owner = self
        self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None

    def __enter__(self) -> FakeOpenAIServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def port(self) -> int:
        assert self._httpd is not None, "server not started"
        return int(self._httpd.server_address[1])

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    # ------------------------------------------------------------ scripting and inspection

    def script(self, *actions: Action | str | dict[str, Any] | list[Any]) -> None:
        """Queue what the next chat requests get; a str, dict or list is ``ok(content)``."""
        with self._lock:
            self._queue.extend(a if isinstance(a, Action) else ok(a) for a in actions)

    def reset_log(self) -> None:
        with self._lock:
            self.requests.clear()
            self.max_in_flight = 0

    @property
    def chat_requests(self) -> list[Record]:
        with self._lock:
            return [r for r in self.requests if r.path == CHAT]

    def count(self, path: str = CHAT, status: int | None = None) -> int:
        with self._lock:
            return sum(1 for r in self.requests if r.path == path and (status is None or r.status == status))

    def user_texts(self) -> list[str]:
        return [last_user_text(r.body or {}) for r in self.chat_requests]

    def stats(self) -> dict[str, Any]:
        """Counts and timings as plain data (also served at ``GET /_fake/stats``)."""
        chat = self.chat_requests
        statuses: dict[str, int] = {}
        for r in chat:
            statuses[str(r.status)] = statuses.get(str(r.status), 0) + 1
        return {
            "chat": len(chat),
            "embeddings": self.count(EMBEDDINGS),
            "statuses": statuses,
            "max_in_flight": self.max_in_flight,
            "starts": [r.t_start for r in chat],
            "user_texts": self.user_texts(),
        }

    # ------------------------------------------------------------ serving

    def _handle(self, handler: _Handler, path: str, body: Any) -> None:
        authorized = self.api_key is None or handler.headers.get("Authorization") == f"Bearer {self.api_key}"
        with self._lock:
            record = Record(len(self.requests), path, body, time.monotonic(), authorized=authorized)
            self.requests.append(record)
            self._in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self._in_flight)
            action = self._next_action(body) if path == CHAT and authorized else ok()
        try:
            self._play(handler, record, body, action)
        finally:
            with self._lock:
                self._in_flight -= 1
                record.t_end = time.monotonic()

    def _next_action(self, body: Any) -> Action:
        # called with self._lock held
        if self._queue:
            return self._queue.popleft()
        if not self.fault_rate:
            return ok()
        messages = body.get("messages", []) if isinstance(body, dict) else []
        key = hashlib.sha256(json.dumps(messages[:2], sort_keys=True).encode()).hexdigest()
        nth = self._seen.get(key, 0)
        self._seen[key] = nth + 1
        rng = random.Random(f"{self.seed}:{key}:{nth}")
        streak = self._fault_streak.get(key, 0)
        capped = self.max_consecutive_faults is not None and streak >= self.max_consecutive_faults
        if not capped and rng.random() < self.fault_rate:
            self._fault_streak[key] = streak + 1
            return rng.choice(self.faults)
        self._fault_streak[key] = 0
        return ok()

    def _play(self, handler: _Handler, record: Record, body: Any, action: Action) -> None:
        record.action = action.kind
        if self.latency_max is not None:
            with self._lock:
                delay = self._latency_rng.uniform(self.latency, self.latency_max)
            time.sleep(delay)
        elif self.latency:
            time.sleep(self.latency)
        while action.kind == "slow":
            time.sleep(action.delay)
            action = action.then or ok()
        if action.kind == "reset":
            record.status = -1
            handler._reset()
            return
        if not record.authorized:
            action = unauthorized()
        if action.kind == "status":
            self._send_status(handler, record, action)
            return
        if record.path == EMBEDDINGS and isinstance(body, dict):
            record.status = 200
            handler._send_json(200, self._embeddings(body))
            return
        if record.path != CHAT or not isinstance(body, dict):
            record.status = 404 if record.path != CHAT else 400
            handler._send_json(record.status, _error_body("bad request", "invalid_request_error", None))
            return
        rejected = self._rejects_format(body)
        if rejected is not None:
            self._send_status(handler, record, rejected[0], rejected[1])
            return
        record.status = 200
        handler._send_json(200, self._chat_reply(body, action))

    def _send_status(self, handler: _Handler, record: Record, action: Action, message: str | None = None) -> None:
        record.status = action.status
        default = _STATUS_BODIES.get(action.status, ("error (SECRET provider detail)", "invalid_request_error", None))
        headers = {}
        if action.retry_after is not None:
            headers["Retry-After"] = f"{action.retry_after:g}"
        handler._send_json(action.status, _error_body(message or default[0], default[1], default[2]), headers)

    def _rejects_format(self, body: dict[str, Any]) -> tuple[Action, str] | None:
        kind = (body.get("response_format") or {}).get("type")
        if kind == "json_schema" and not self.json_schema:
            return status(500), "Input should be 'text' or 'json_object'"
        if kind == "json_object" and not self.json_object:
            return status(400), "response_format of type json_object is not supported by this server"
        return None

    def _chat_reply(self, body: dict[str, Any], action: Action) -> dict[str, Any]:
        content: Any = action.content
        if content is None and action.refusal is None:
            produced = self.responder(body)
            if isinstance(produced, Action):
                return self._chat_reply(body, produced)
            content = produced
        if content is not None and not isinstance(content, str):
            content = json.dumps(content)
        prompt = sum(_tokens(str(m.get("content") or "")) + 4 for m in body.get("messages", []))
        if body.get("response_format"):  # a schema costs prompt tokens, as with OpenAI
            prompt += _tokens(json.dumps(body["response_format"]))
        message: dict[str, Any] = {"role": "assistant", "content": content, "refusal": action.refusal}
        reply: dict[str, Any] = {
            "id": f"chatcmpl-{len(self.requests)}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": body.get("model", self.model),
            "choices": [{"index": 0, "message": message, "finish_reason": action.finish_reason, "logprobs": None}],
        }
        if self.usage:
            completion = _tokens(content or action.refusal or "")
            reply["usage"] = {
                "prompt_tokens": prompt,
                "completion_tokens": completion,
                "total_tokens": prompt + completion,
            }
        return reply

    def _embeddings(self, body: dict[str, Any]) -> dict[str, Any]:
        texts = body.get("input", [])
        texts = [texts] if isinstance(texts, str) else list(texts)
        data = []
        for i, text in enumerate(texts):
            vector = _vector(str(text), self.embedding_dim)
            if body.get("encoding_format") == "base64":
                packed: Any = base64.b64encode(struct.pack(f"<{len(vector)}f", *vector)).decode("ascii")
            else:
                packed = vector
            data.append({"object": "embedding", "index": i, "embedding": packed})
        tokens = sum(_tokens(str(t)) for t in texts)
        return {
            "object": "list",
            "data": data,
            "model": body.get("model", self.model),
            "usage": {"prompt_tokens": tokens, "total_tokens": tokens},
        }


def _vector(text: str, dim: int) -> list[float]:
    """A deterministic unit vector for ``text``."""
    digest = b""
    counter = 0
    while len(digest) < dim * 4:
        digest += hashlib.sha256(f"{counter}:{text}".encode()).digest()
        counter += 1
    raw = [v / 2**31 - 1.0 for v in struct.unpack(f"<{dim}I", digest[: dim * 4])]
    norm = math.sqrt(sum(v * v for v in raw)) or 1.0
    return [v / norm for v in raw]


def fast_config(**overrides: Any) -> Any:
    """An ``LLMConfig`` for tests: tiny backoff, short timeout (override any field)."""
    from qagen.config import LLMConfig

    settings: dict[str, Any] = {"backoff_base_s": 0.01, "backoff_max_s": 0.05, "timeout_s": 5.0}
    settings.update(overrides)
    return LLMConfig(**settings)


class ServerProcess:
    """The fake server in a child process, so its CPU use does not slow the client under test.

    ``ServerProcess(latency=0.2, fault_rate=0.1)`` takes the command-line options of
    ``python -m tests.support.llm_server``; ``url``, ``stats()`` (see :meth:`FakeOpenAIServer.stats`)
    and ``reset_log()`` work over HTTP. Use it as a context manager.
    """

    def __init__(
        self,
        latency: float = 0.0,
        fault_rate: float = 0.0,
        seed: int = 0,
        responder: str = "default",
        *,
        latency_max: float | None = None,
        max_consecutive_faults: int | None = None,
    ) -> None:
        self.args = ["--latency", str(latency), "--fault-rate", str(fault_rate), "--seed", str(seed)]
        self.args += ["--responder", responder]
        if latency_max is not None:
            self.args += ["--latency-max", str(latency_max)]
        if max_consecutive_faults is not None:
            self.args += ["--max-consecutive-faults", str(max_consecutive_faults)]
        self.url = ""
        self._proc: Any = None

    def __enter__(self) -> ServerProcess:
        import subprocess
        import sys

        root = str(Path(__file__).resolve().parents[2])  # the repository: the child imports tests.support
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [root, os.environ.get("PYTHONPATH")]))}
        self._proc = subprocess.Popen(
            [sys.executable, "-m", "tests.support.llm_server", *self.args],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env=env,
        )
        self.url = self._proc.stdout.readline().strip()
        if not self.url.startswith("http://"):
            self.__exit__()
            raise RuntimeError("the fake server process did not start")
        return self

    def __exit__(self, *exc: object) -> None:
        import subprocess

        if self._proc is not None:
            with contextlib.suppress(OSError):
                self._proc.stdin.close()
            try:
                self._proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self._proc.kill()
                self._proc.wait()

    def _call(self, method: str, path: str) -> Any:
        import urllib.request

        root = self.url.rsplit("/v1", 1)[0]
        request = urllib.request.Request(root + path, method=method, data=b"{}" if method == "POST" else None)
        with urllib.request.urlopen(request, timeout=10) as response:
            return json.loads(response.read())

    def stats(self) -> dict[str, Any]:
        return self._call("GET", "/_fake/stats")

    def reset_log(self) -> None:
        self._call("POST", "/_fake/reset")


def main(argv: list[str] | None = None) -> None:
    """Serve until standard input closes: ``python -m tests.support.llm_server --latency 0.2``."""
    import argparse
    import sys

    parser = argparse.ArgumentParser(description="A fake OpenAI-compatible server for tests and benchmarks.")
    parser.add_argument("--latency", type=float, default=0.0, help="seconds before each reply")
    parser.add_argument("--fault-rate", type=float, default=0.0, help="share of chat requests given a fault")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--latency-max", type=float, default=None, help="latency drawn uniformly from [--latency, this] per request"
    )
    parser.add_argument(
        "--max-consecutive-faults", type=int, default=None, help="fault one logical request at most this often in a row"
    )
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument(
        "--responder",
        choices=["default", "grounded"],
        default="default",
        help="grounded: replies built from the prompt's passages (tests/support/grounded.py)",
    )
    args = parser.parse_args(argv)
    responder = None
    if args.responder == "grounded":
        from tests.support.grounded import grounded_responder as responder
    server = FakeOpenAIServer(
        responder,
        latency=args.latency,
        latency_max=args.latency_max,
        fault_rate=args.fault_rate,
        seed=args.seed,
        max_consecutive_faults=args.max_consecutive_faults,
        port=args.port,
    )
    with server:
        print(server.url, flush=True)
        sys.stdin.read()


if __name__ == "__main__":
    main()
