"""A stub model on loopback: OpenAI chat-completions (streaming SSE) that logs every request body.

Both harnesses speak this protocol to a custom provider. The stub answers every chat request with a
fixed text and no tool calls, so each turn ends after one main request. It can be armed to report a
large ``usage.prompt_tokens`` once, on the next request that carries tools, to make the harness
compact (a persistent large value would make OpenCode compact in an endless loop).

Stdlib only; binds 127.0.0.1 on a random free port; ``with StubModel() as stub:`` stops it on exit.
"""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

REPLY_TEXT = "ok (canary stub)"
MODEL_ID = "stub-model"
MAX_BODY_BYTES = 64 * 1024 * 1024  # a request is the whole context; refuse anything absurd


class StubModel:
    """The server plus its request log. ``requests`` holds each chat body as parsed JSON, in order."""

    def __init__(self, reply: str = REPLY_TEXT):
        self.reply = reply
        self.requests: list[dict[str, Any]] = []
        self.lock = threading.Lock()
        self.armed_prompt_tokens: int | None = None
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), _handler_for(self))
        self.server.daemon_threads = True
        self.thread: threading.Thread | None = None

    @property
    def port(self) -> int:
        return self.server.server_address[1]

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def start(self) -> "StubModel":
        self.thread = threading.Thread(target=self.server.serve_forever, name="canary-stub", daemon=True)
        self.thread.start()
        return self

    def stop(self) -> None:
        if self.thread is not None:
            self.server.shutdown()
            self.thread.join(timeout=5)
            self.thread = None
        self.server.server_close()

    def __enter__(self) -> "StubModel":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def force_compaction_once(self, prompt_tokens: int) -> None:
        """Report ``prompt_tokens`` on the next request that carries a non-empty ``tools`` list."""
        with self.lock:
            self.armed_prompt_tokens = prompt_tokens

    def take_requests(self) -> list[dict[str, Any]]:
        """Return and clear the requests logged so far (one step's worth)."""
        with self.lock:
            taken, self.requests = self.requests, []
        return taken

    def record(self, body: dict[str, Any]) -> int:
        """Log one chat request; return the prompt-token count to report for it."""
        with self.lock:
            self.requests.append(body)
            tokens = 10
            if self.armed_prompt_tokens is not None and body.get("tools"):
                tokens, self.armed_prompt_tokens = self.armed_prompt_tokens, None
            return tokens


def _sse(payload: dict[str, Any] | str) -> bytes:
    data = payload if isinstance(payload, str) else json.dumps(payload, separators=(",", ":"))
    return f"data: {data}\n\n".encode()


def _chunk(delta: dict[str, Any], finish: str | None = None, usage: dict[str, int] | None = None) -> dict[str, Any]:
    chunk: dict[str, Any] = {
        "id": "chatcmpl-canary",
        "object": "chat.completion.chunk",
        "created": int(time.time()),
        "model": MODEL_ID,
        "choices": [] if usage else [{"index": 0, "delta": delta, "finish_reason": finish}],
    }
    if usage:
        chunk["usage"] = usage
    return chunk


def _handler_for(stub: StubModel) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:  # keep the harness's output clean
            pass

        def send_json(self, status: int, payload: dict[str, Any]) -> None:
            body = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_GET(self) -> None:
            if self.path.rstrip("/").endswith("/models"):
                self.send_json(200, {"object": "list", "data": [{"id": MODEL_ID, "object": "model", "owned_by": "canary"}]})
            else:
                self.send_json(404, {"error": {"message": f"no route {self.path}"}})

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            if not self.path.rstrip("/").endswith("/chat/completions") or not 0 < length <= MAX_BODY_BYTES:
                self.send_json(404, {"error": {"message": f"no route {self.path}"}})
                return
            try:
                body = json.loads(self.rfile.read(length))
            except ValueError:
                self.send_json(400, {"error": {"message": "body is not JSON"}})
                return
            if not isinstance(body, dict):
                self.send_json(400, {"error": {"message": "body is not a JSON object"}})
                return
            prompt_tokens = stub.record(body)
            usage = {"prompt_tokens": prompt_tokens, "completion_tokens": 4, "total_tokens": prompt_tokens + 4}
            if body.get("stream"):
                self.stream(usage)
            else:
                self.send_json(200, {
                    "id": "chatcmpl-canary", "object": "chat.completion", "created": int(time.time()),
                    "model": MODEL_ID, "usage": usage,
                    "choices": [{"index": 0, "finish_reason": "stop",
                                 "message": {"role": "assistant", "content": stub.reply}}],
                })

        def stream(self, usage: dict[str, int]) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Cache-Control", "no-cache")
            self.send_header("Connection", "close")
            self.end_headers()
            for event in (
                _sse(_chunk({"role": "assistant", "content": ""})),
                _sse(_chunk({"content": stub.reply})),
                _sse(_chunk({}, finish="stop")),
                _sse(_chunk({}, usage=usage)),
                _sse("[DONE]"),
            ):
                self.wfile.write(event)
            self.wfile.flush()
            self.close_connection = True

    return Handler
