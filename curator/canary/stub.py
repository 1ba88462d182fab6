"""A stub model on loopback that logs every request body. It speaks two wires:

- OpenAI chat-completions (``…/chat/completions``, streaming SSE or not), which kimi-code and
  opencode speak to a custom provider;
- the Anthropic Messages API (``…/v1/messages``, streaming SSE or not, and ``…/count_tokens``), which
  Claude Code speaks to ``ANTHROPIC_BASE_URL``;
- the OpenAI Responses API (``…/v1/responses``, SSE), which Codex CLI speaks to a custom provider;
- the Gemini API (``…/models/<m>:generateContent`` and ``:streamGenerateContent?alt=sse``), which
  Gemini CLI speaks to ``GOOGLE_GEMINI_BASE_URL``. A JSON-mode request (its model router) gets the
  smallest object its schema accepts: a plain-text answer would make Gemini retry it, past a minute.
  Its compression requests (system instruction asking for a ``<state_snapshot>``) get a snapshot.

The stub answers every chat request with a fixed text and no tool calls, so each turn ends after one
main request, unless tool calls were scripted (``script_tool_calls``): then each main request (one that
carries tools) is answered with the next scripted call, in the wire's own tool-call shape, until none
is left (Gemini's ``functionCall`` part too); the harness runs the tool and sends its result in the next
request. It can be armed to report a large ``usage.prompt_tokens`` once, on the next request that
carries tools, to make the harness compact (a persistent large value would make OpenCode
compact in an endless loop). Claude Code compacts on ``/compact``: it needs no arming.

Stdlib only; binds 127.0.0.1 on a random free port; ``with StubModel() as stub:`` stops it on exit.
"""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

REPLY_TEXT = "ok (canary stub)"
# Claude Code's compaction asks for "an <analysis> block followed by a <summary> block" and asks again
# when the answer has none: answered in that shape, a compaction costs one request, not two.
CLAUDE_SUMMARY_PROMPT = "CRITICAL: Respond with TEXT ONLY"
SUMMARY_TEXT = "<analysis>canary stub</analysis>\n<summary>ok (canary stub summary)</summary>"
# Gemini CLI's compression asks (twice: write, then verify) for a <state_snapshot> under a system
# instruction that names it; the snapshot it gets back becomes the start of the compressed history.
GEMINI_SNAPSHOT_MARK = "<state_snapshot>"
GEMINI_SNAPSHOT = "<state_snapshot>ok (canary stub summary)</state_snapshot>"
MODEL_ID = "stub-model"
MAX_BODY_BYTES = 64 * 1024 * 1024  # a request is the whole context; refuse anything absurd


class StubModel:
    """The server plus its request log. ``requests`` holds each chat body as parsed JSON, in order."""

    def __init__(self, reply: str = REPLY_TEXT):
        self.reply = reply
        self.requests: list[dict[str, Any]] = []
        self.lock = threading.Lock()
        self.armed_prompt_tokens: int | None = None
        self.tool_calls: list[tuple[str, dict[str, Any]]] = []
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), _handler_for(self))
        self.server.daemon_threads = True
        self.thread: threading.Thread | None = None

    @property
    def port(self) -> int:
        return self.server.server_address[1]

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    @property
    def anthropic_base_url(self) -> str:
        """What ``ANTHROPIC_BASE_URL`` takes: the client appends ``/v1/messages`` itself."""
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> StubModel:
        self.thread = threading.Thread(target=self.server.serve_forever, name="canary-stub", daemon=True)
        self.thread.start()
        return self

    def stop(self) -> None:
        if self.thread is not None:
            self.server.shutdown()
            self.thread.join(timeout=5)
            self.thread = None
        self.server.server_close()

    def __enter__(self) -> StubModel:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def force_compaction_once(self, prompt_tokens: int) -> None:
        """Report ``prompt_tokens`` on the next request that carries a non-empty ``tools`` list."""
        with self.lock:
            self.armed_prompt_tokens = prompt_tokens

    def script_tool_calls(self, *calls: tuple[str, dict[str, Any]]) -> None:
        """Answer the next main requests with these tool calls (name, input), one per request, in order."""
        with self.lock:
            self.tool_calls.extend(calls)

    def next_tool_call(self, body: dict[str, Any]) -> tuple[str, dict[str, Any]] | None:
        """The scripted call this request gets, if it is a main request (it carries tools) and one is left."""
        with self.lock:
            if body.get("tools") and self.tool_calls:
                return self.tool_calls.pop(0)
            return None

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


def _event(name: str, payload: dict[str, Any]) -> bytes:
    return f"event: {name}\ndata: {json.dumps(payload, separators=(',', ':'))}\n\n".encode()


def _anthropic_message(reply: str, input_tokens: int) -> dict[str, Any]:
    return {"id": "msg_canary", "type": "message", "role": "assistant", "model": MODEL_ID,
            "content": [{"type": "text", "text": reply}], "stop_reason": "end_turn", "stop_sequence": None,
            "usage": {"input_tokens": input_tokens, "output_tokens": 4}}


def _anthropic_events(reply: str, input_tokens: int) -> list[bytes]:
    """A Messages stream: message_start, one text block, message_delta with the stop reason, message_stop."""
    start = _anthropic_message("", input_tokens)
    start.update(content=[], stop_reason=None)
    start["usage"]["output_tokens"] = 1
    return [
        _event("message_start", {"type": "message_start", "message": start}),
        _event("content_block_start", {"type": "content_block_start", "index": 0,
                                       "content_block": {"type": "text", "text": ""}}),
        _event("content_block_delta", {"type": "content_block_delta", "index": 0,
                                       "delta": {"type": "text_delta", "text": reply}}),
        _event("content_block_stop", {"type": "content_block_stop", "index": 0}),
        _event("message_delta", {"type": "message_delta", "delta": {"stop_reason": "end_turn", "stop_sequence": None},
                                 "usage": {"output_tokens": 4}}),
        _event("message_stop", {"type": "message_stop"}),
    ]


def _responses_events(reply: str, input_tokens: int, call: tuple[str, dict[str, Any]] | None = None,
                      n: int = 0) -> list[bytes]:
    """A Responses stream: created, the finished message item (or the scripted function call),
    completed with the usage."""
    item: dict[str, Any] = {"type": "message", "role": "assistant", "id": "msg_canary", "status": "completed",
                            "content": [{"type": "output_text", "text": reply, "annotations": []}]}
    if call is not None:
        item = {"type": "function_call", "id": f"fc_canary{n:04d}", "call_id": f"call_canary{n:04d}",
                "name": call[0], "arguments": json.dumps(call[1]), "status": "completed"}
    usage = {"input_tokens": input_tokens, "output_tokens": 4, "total_tokens": input_tokens + 4}
    return [
        _event("response.created", {"type": "response.created", "response": {"id": "resp_canary"}}),
        _event("response.output_item.done", {"type": "response.output_item.done", "output_index": 0, "item": item}),
        _event("response.completed", {"type": "response.completed",
                                      "response": {"id": "resp_canary", "usage": usage}}),
    ]


def _smallest(schema: Any) -> Any:
    """The smallest value ``schema`` (a JSON schema) accepts: every required property, minimal."""
    if not isinstance(schema, dict):
        return {}
    kind = schema.get("type")
    kind = kind[0] if isinstance(kind, list) and kind else kind
    if kind in ("object", "OBJECT") or "properties" in schema:
        props = schema.get("properties") or {}
        return {name: _smallest(props.get(name)) for name in schema.get("required", list(props))}
    if "enum" in schema and schema["enum"]:
        return schema["enum"][0]
    return {"string": "x", "STRING": "x", "integer": 1, "INTEGER": 1, "number": 1, "NUMBER": 1,
            "boolean": False, "BOOLEAN": False, "array": [], "ARRAY": []}.get(str(kind), "x")


def _gemini_reply(text: str, prompt_tokens: int) -> dict[str, Any]:
    return {"candidates": [{"content": {"role": "model", "parts": [{"text": text}]}, "finishReason": "STOP",
                            "index": 0}],
            "usageMetadata": {"promptTokenCount": prompt_tokens, "candidatesTokenCount": 4,
                              "totalTokenCount": prompt_tokens + 4}}


def _gemini_tool_reply(call: tuple[str, dict[str, Any]], prompt_tokens: int) -> dict[str, Any]:
    """A Gemini answer whose one part is a ``functionCall``: the CLI runs the tool and sends its result."""
    reply = _gemini_reply("", prompt_tokens)
    reply["candidates"][0]["content"]["parts"] = [{"functionCall": {"name": call[0], "args": call[1]}}]
    return reply


def _anthropic_tool_events(call: tuple[str, dict[str, Any]], input_tokens: int, n: int) -> list[bytes]:
    """A Messages stream whose one content block is a ``tool_use``; stop reason ``tool_use``."""
    name, arguments = call
    start = _anthropic_message("", input_tokens)
    start.update(content=[], stop_reason=None)
    return [
        _event("message_start", {"type": "message_start", "message": start}),
        _event("content_block_start", {"type": "content_block_start", "index": 0, "content_block": {
            "type": "tool_use", "id": f"toolu_canary{n:04d}", "name": name, "input": {}}}),
        _event("content_block_delta", {"type": "content_block_delta", "index": 0, "delta": {
            "type": "input_json_delta", "partial_json": json.dumps(arguments)}}),
        _event("content_block_stop", {"type": "content_block_stop", "index": 0}),
        _event("message_delta", {"type": "message_delta", "delta": {"stop_reason": "tool_use", "stop_sequence": None},
                                 "usage": {"output_tokens": 4}}),
        _event("message_stop", {"type": "message_stop"}),
    ]


def _openai_tool_chunks(call: tuple[str, dict[str, Any]], usage: dict[str, int], n: int) -> list[bytes]:
    """A chat-completions stream whose one answer is a function call; finish reason ``tool_calls``."""
    name, arguments = call
    return [
        _sse(_chunk({"role": "assistant", "content": None})),
        _sse(_chunk({"tool_calls": [{"index": 0, "id": f"call_canary{n:04d}", "type": "function",
                                     "function": {"name": name, "arguments": json.dumps(arguments)}}]})),
        _sse(_chunk({}, finish="tool_calls")),
        _sse(_chunk({}, usage=usage)),
        _sse("[DONE]"),
    ]


def is_gemini_compression(body: dict[str, Any]) -> bool:
    """One of Gemini CLI's two compression requests: no tools, a system instruction asking for a snapshot."""
    instruction = body.get("systemInstruction")
    parts = instruction.get("parts") if isinstance(instruction, dict) else None
    return isinstance(parts, list) and any(isinstance(p, dict) and GEMINI_SNAPSHOT_MARK in str(p.get("text", ""))
                                           for p in parts) and not body.get("tools")


def _last_user_text(body: dict[str, Any]) -> str:
    found = body.get("messages")
    last = found[-1] if isinstance(found, list) and found and isinstance(found[-1], dict) else {}
    content = last.get("content")
    if isinstance(content, list):
        return "".join(p.get("text", "") for p in content if isinstance(p, dict) and isinstance(p.get("text"), str))
    return content if isinstance(content, str) else ""


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

        def read_body(self) -> dict[str, Any] | None:
            """The request's JSON object; None (and the error already answered) when there is none."""
            try:
                length = int(self.headers.get("Content-Length") or 0)
            except ValueError:
                length = 0
            if not 0 < length <= MAX_BODY_BYTES:
                self.send_json(400, {"error": {"message": "no body, or an absurd one"}})
                return None
            try:
                body = json.loads(self.rfile.read(length))
            except ValueError:
                self.send_json(400, {"error": {"message": "body is not JSON"}})
                return None
            if not isinstance(body, dict):
                self.send_json(400, {"error": {"message": "body is not a JSON object"}})
                return None
            return body

        def do_POST(self) -> None:
            route = self.path.split("?", 1)[0].rstrip("/")
            if route.endswith("/messages/count_tokens"):
                if self.read_body() is not None:  # a size estimate, not a turn: not logged
                    self.send_json(200, {"input_tokens": 10})
                return
            if route.endswith("/v1/messages"):
                self.messages()
                return
            if route.endswith("/responses"):
                self.openai_responses()
                return
            if route.endswith((":generateContent", ":streamGenerateContent")):
                self.gemini(route.endswith(":streamGenerateContent"))
                return
            if not route.endswith("/chat/completions"):
                self.send_json(404, {"error": {"message": f"no route {self.path}"}})
                return
            body = self.read_body()
            if body is None:
                return
            prompt_tokens = stub.record(body)
            usage = {"prompt_tokens": prompt_tokens, "completion_tokens": 4, "total_tokens": prompt_tokens + 4}
            call = stub.next_tool_call(body)
            if call is not None:  # scripted: streamed, as both harnesses ask for it
                self.send_stream(_openai_tool_chunks(call, usage, len(stub.requests)))
            elif body.get("stream"):
                self.stream(usage)
            else:
                self.send_json(200, {
                    "id": "chatcmpl-canary", "object": "chat.completion", "created": int(time.time()),
                    "model": MODEL_ID, "usage": usage,
                    "choices": [{"index": 0, "finish_reason": "stop",
                                 "message": {"role": "assistant", "content": stub.reply}}],
                })

        def messages(self) -> None:
            """The Anthropic Messages API, as Claude Code calls it (``POST /v1/messages?beta=true``)."""
            body = self.read_body()
            if body is None:
                return
            input_tokens = stub.record(body)
            reply = SUMMARY_TEXT if _last_user_text(body).startswith(CLAUDE_SUMMARY_PROMPT) else stub.reply
            call = stub.next_tool_call(body) if body.get("stream") else None
            if call is not None:
                self.send_stream(_anthropic_tool_events(call, input_tokens, len(stub.requests)))
            elif not body.get("stream"):
                self.send_json(200, _anthropic_message(reply, input_tokens))
            else:
                self.send_stream(_anthropic_events(reply, input_tokens))

        def openai_responses(self) -> None:
            """The Responses API, as Codex CLI calls it (always streaming)."""
            body = self.read_body()
            if body is not None:
                call = stub.next_tool_call(body)
                self.send_stream(_responses_events(stub.reply, stub.record(body), call, len(stub.requests)))

        def gemini(self, streaming: bool) -> None:
            """Gemini's generateContent: a JSON-mode side call (not logged) gets its schema's smallest
            object; a turn is logged and answered with one SSE event."""
            body = self.read_body()
            if body is None:
                return
            config = body.get("generationConfig") or {}
            schema = config.get("responseJsonSchema") or config.get("responseSchema")
            if schema is not None or config.get("responseMimeType") == "application/json":
                self.send_json(200, _gemini_reply(json.dumps(_smallest(schema)), 10))
                return
            call = stub.next_tool_call(body)
            tokens = stub.record(body)
            text = GEMINI_SNAPSHOT if is_gemini_compression(body) else stub.reply
            reply = _gemini_reply(text, tokens) if call is None else _gemini_tool_reply(call, tokens)
            if streaming:
                self.send_stream([_sse(reply)])
            else:
                self.send_json(200, reply)

        def stream(self, usage: dict[str, int]) -> None:
            self.send_stream([
                _sse(_chunk({"role": "assistant", "content": ""})),
                _sse(_chunk({"content": stub.reply})),
                _sse(_chunk({}, finish="stop")),
                _sse(_chunk({}, usage=usage)),
                _sse("[DONE]"),
            ])

        def send_stream(self, events: list[bytes]) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Cache-Control", "no-cache")
            self.send_header("Connection", "close")
            self.end_headers()
            for event in events:
                self.wfile.write(event)
            self.wfile.flush()
            self.close_connection = True

    return Handler
