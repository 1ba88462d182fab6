"""The fleet manifest (``fleet.toml``): who the residents are and what the fleet owns for each.

The format is documented in ``docs/fleet-manifest.md``. Parsing is tomlkit; every error names the
key and the line it sits on, and loading never writes anything.
"""

from __future__ import annotations

import os
import re
import tomllib
import unicodedata
from pathlib import Path
from typing import Any, Literal, NoReturn, TypeVar, overload

import tomlkit
from tomlkit.exceptions import ParseError, TOMLKitError

from curator.errors import CuratorError
from curator.fsio import read_bytes
from generators.errors import PreparationError, UnsupportedError
# The model, the line finder and the example live in their own modules; importable from here as before.
from generators.fleet_model import CURATOR_SERVER as CURATOR_SERVER
from generators.fleet_model import Fleet, FleetHook, McpServer, Resident
from generators.fleet_model import servers_key as servers_key
from generators.fleet_model import servers_of as servers_of
from generators.manifest_example import example_manifest as example_manifest
from generators.manifest_lines import locate

HARNESSES = ("kimi-code", "opencode", "claude-code", "codex", "gemini-cli")
PERMISSION_MODES = ("manual", "yolo", "auto")
# kimi-code's full event list: any other event makes the whole config.toml fail to load.
KIMI_EVENTS = (
    "PreToolUse", "PostToolUse", "PostToolUseFailure", "PermissionRequest", "PermissionResult",
    "UserPromptSubmit", "UserPromptQueued", "TurnStarted", "Stop", "StopFailure", "Interrupt",
    "SessionStart", "SessionEnd", "SessionHeartbeat", "SubagentStart", "SubagentStop",
    "TaskStarted", "PreCompact", "PostCompact", "Notification",
)
DEFAULT_MCP_PREFIX = "neo-mjs-"
_SERVER_NAME = re.compile(r"[A-Za-z0-9_-]+")  # used with fullmatch: `$` would let a final newline through
# identity.md holds the agent id; its template is 276 characters without it, and the spec caps the
# whole page under 600, so an id up to 128 characters leaves the page well inside (at most 404).
AGENT_ID_MAX = 128
# Unicode categories an agent id may not hold: control, format (bidi overrides, zero-width marks,
# BOMs), line and paragraph separators, surrogates, private use, unassigned.
_BANNED_CATEGORIES = {"Cc": "a control character", "Cf": "an invisible format character (e.g. a bidi override)",
                      "Zl": "a line separator", "Zp": "a paragraph separator", "Cs": "a surrogate",
                      "Co": "a private-use character", "Cn": "an unassigned code point"}


class ManifestError(PreparationError):
    """A manifest that cannot be used; the message names the file, the key and the line."""




# ---------------------------------------------------------------------------------------- loading


def load_manifest(path: str | Path) -> Fleet:
    path = Path(path).expanduser().absolute()
    try:
        raw = read_bytes(path)
    except CuratorError as err:
        raise ManifestError(err.message, path=path) from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as err:
        raise ManifestError(f"not UTF-8 (byte {err.start})", path=path) from None
    return parse_manifest(text, path)


def parse_manifest(text: str, path: str | Path) -> Fleet:
    """A UTF-8 byte-order mark is accepted (editors add one); it is not part of the TOML."""
    path = Path(path).absolute()
    text = text.removeprefix("\ufeff")
    try:
        doc = tomlkit.parse(text).unwrap()
    except (TOMLKitError, RecursionError, ValueError) as err:  # ParseError is a TOMLKitError
        raise ManifestError(_toml_error(text, err), path=path) from None
    return _Reader(text, path).fleet(doc)


def _toml_error(text: str, err: Exception) -> str:
    """One line with the line and column. tomllib's report comes first: it places every error
    (tomlkit gives none for some, e.g. a duplicate key, and a late one for others)."""
    try:
        tomllib.loads(text)
    except tomllib.TOMLDecodeError as strict:
        match = re.search(r"^(.*?) \(at line (\d+), column (\d+)\)", str(strict))
        if match:
            return f"invalid TOML at line {match.group(2)}, column {match.group(3)}: {_one_line(match.group(1))}"
    except RecursionError:
        pass
    if isinstance(err, ParseError):
        return f"invalid TOML at line {err.line}, column {err.col}: {_one_line(str(err).split(' at line ')[0])}"
    return f"invalid TOML: {_one_line(str(err)) or type(err).__name__}"


def _one_line(message: str) -> str:
    return " ".join(message.split())


_T = TypeVar("_T")


class _Reader:
    """Turns the unwrapped TOML into a Fleet, naming key and line on the first bad value."""

    def __init__(self, text: str, path: Path):
        self.text = text
        self.path = path
        self.base = path.parent

    # -- errors

    def fail(self, where: tuple, message: str, *, unsupported: bool = False) -> NoReturn:
        line = locate(self.text, where)
        at = f" (line {line})" if line else ""
        cls = UnsupportedError if unsupported else ManifestError
        raise cls(f"{_dotted(where)}{at}: {message}", path=self.path)

    # -- typed getters

    @overload
    def get(self, table: dict, where: tuple, key: str, kind: type[_T], *, required: Literal[True]) -> _T: ...
    @overload
    def get(self, table: dict, where: tuple, key: str, kind: type[_T], *, default: _T) -> _T: ...
    @overload
    def get(self, table: dict, where: tuple, key: str, kind: type[_T]) -> _T | None: ...

    def get(self, table: dict, where: tuple, key: str, kind: type | tuple[type, ...], *, required: bool = False,
            default: object = None) -> object:
        """``table[key]`` if it is a ``kind``; ``default`` if absent (a failure if ``required``)."""
        if key not in table:
            if required:
                self.fail(where, f"missing required key {key!r}")
            return default
        value = table[key]
        if kind is int and isinstance(value, bool) or not isinstance(value, kind):
            names = kind.__name__ if isinstance(kind, type) else " or ".join(k.__name__ for k in kind)
            self.fail(where + (key,), f"expected {_type_word(names)}, got {_describe(value)}")
        return value

    def str_list(self, table: dict, where: tuple, key: str) -> list[str]:
        values = self.get(table, where, key, list, default=[])
        for index, value in enumerate(values):
            if not isinstance(value, str):
                self.fail(where + (key,), f"item {index} must be a string, got {_describe(value)}")
        return values

    def str_table(self, table: dict, where: tuple, key: str) -> dict[str, str]:
        values = self.get(table, where, key, dict, default={})
        for name, value in values.items():
            if not isinstance(value, str):
                self.fail(where + (key, name), f"expected a string, got {_describe(value)}")
        return dict(values)

    def only_keys(self, table: dict, where: tuple, allowed: tuple[str, ...]) -> None:
        for key in table:
            if key not in allowed:
                self.fail(where + (key,), f"unknown key (allowed: {', '.join(allowed)})")

    def abspath(self, value: str, where: tuple = ()) -> Path:
        # Lexical normalisation only: symlinks stay visible so the composer can refuse them.
        if "\x00" in value:
            self.fail(where, "a path cannot hold a NUL character")
        return Path(os.path.normpath(self.base / os.path.expanduser(value)))

    def command_path(self, value: str, where: tuple = ()) -> str:
        """A bare name stays a PATH lookup; anything with a slash is a path, resolved like the rest."""
        value = os.path.expanduser(value)
        if "\x00" in value:
            self.fail(where, "a path cannot hold a NUL character")
        return value if "/" not in value else str(self.abspath(value, where))

    # -- the document

    def fleet(self, doc: dict) -> Fleet:
        top = ()
        self.only_keys(doc, top, ("instance_root", "mcp_prefix", "default_model", "default_permission_mode",
                                  "hook_python", "curator_python", "auto_dream", "harness_cli", "mcp", "hooks",
                                  "residents"))
        instance_root = self.get(doc, top, "instance_root", str, required=True)
        prefix = self.get(doc, top, "mcp_prefix", str, default=DEFAULT_MCP_PREFIX)
        if not prefix:
            self.fail(("mcp_prefix",), "must not be empty (it marks the MCP entries the fleet owns)")
        model = self.get(doc, top, "default_model", str, required=True)
        mode = self.get(doc, top, "default_permission_mode", str, default="manual")
        if mode not in PERMISSION_MODES:
            self.fail(("default_permission_mode",), f"{mode!r} is not one of {', '.join(PERMISSION_MODES)}")
        hook_python, curator_python = (self.interpreter(doc, key) for key in ("hook_python", "curator_python"))
        harness_cli = self.str_table(doc, top, "harness_cli")
        for name in harness_cli:
            if name not in HARNESSES:
                self.fail(("harness_cli", name), f"unknown harness (known: {', '.join(HARNESSES)})")
        catalog = self.catalog(self.get(doc, top, "mcp", dict, default={}), prefix)
        hooks = tuple(self.hook(i, h) for i, h in enumerate(self.get(doc, top, "hooks", list, default=[])))
        residents = self.get(doc, top, "residents", list, default=[])
        parsed = []
        seen: set[str] = set()
        for index, entry in enumerate(residents):
            resident = self.resident(index, entry)
            if resident.agent_id in seen:
                self.fail(("residents", index, "agent_id"), f"duplicate agent_id {resident.agent_id!r}")
            seen.add(resident.agent_id)
            parsed.append(resident)
        return Fleet(
            path=self.path,
            instance_root=self.abspath(instance_root, ("instance_root",)),
            mcp_prefix=prefix,
            catalog=catalog,
            default_model=model,
            default_permission_mode=mode,
            hooks=hooks,
            residents=tuple(parsed),
            harness_cli={k: self.command_path(v, ("harness_cli", k)) for k, v in harness_cli.items()},
            hook_python=os.path.expanduser(hook_python) if hook_python else None,
            curator_python=os.path.expanduser(curator_python) if curator_python else None,
            auto_dream=self.get(doc, top, "auto_dream", bool, default=False),
        )

    def interpreter(self, doc: dict, key: str) -> str | None:
        value = self.get(doc, (), key, str)
        if value is not None and "\x00" in value:
            self.fail((key,), "a path cannot hold a NUL character")
        if value is not None and not os.path.isabs(os.path.expanduser(value)):
            self.fail((key,), "must be an absolute interpreter path")
        return value

    def catalog(self, table: dict, prefix: str) -> dict[str, McpServer]:
        servers = {}
        for name, entry in table.items():
            where = ("mcp", name)
            if not isinstance(entry, dict):
                self.fail(where, f"expected a table, got {_describe(entry)}")
            if not _SERVER_NAME.fullmatch(name):
                self.fail(where, "server names may hold only letters, digits, '-' and '_'", unsupported=True)
            if not name.startswith(prefix):
                self.fail(where, f"must start with the mcp_prefix {prefix!r}: the fleet owns only prefixed entries",
                          unsupported=True)
            self.only_keys(entry, where, ("enabled", "command", "args", "env", "cwd", "url", "headers"))
            command = self.get(entry, where, "command", str)
            url = self.get(entry, where, "url", str)
            if (command is None) == (url is None):
                self.fail(where, "needs exactly one of 'command' (local) or 'url' (remote)", unsupported=True)
            if url is not None and any(k in entry for k in ("args", "env", "cwd")):
                self.fail(where, "a remote ('url') server takes no args/env/cwd", unsupported=True)
            if command is not None and "headers" in entry:
                self.fail(where, "a local ('command') server takes no headers", unsupported=True)
            servers[name] = McpServer(
                name=name,
                enabled=self.get(entry, where, "enabled", bool, default=True),
                command=command,
                args=tuple(self.str_list(entry, where, "args")),
                env=self.str_table(entry, where, "env"),
                cwd=self.get(entry, where, "cwd", str),
                url=url,
                headers=self.str_table(entry, where, "headers"),
            )
        return servers

    def hook(self, index: int, entry: Any) -> FleetHook:
        where = ("hooks", index)
        if not isinstance(entry, dict):
            self.fail(where, f"expected a table, got {_describe(entry)}")
        self.only_keys(entry, where, ("event", "command", "matcher", "timeout"))
        event = self.get(entry, where, "event", str, required=True)
        if event not in KIMI_EVENTS:
            self.fail(where + ("event",), f"{event!r} is not a kimi-code hook event")
        timeout = self.get(entry, where, "timeout", int)
        if timeout is not None and not 1 <= timeout <= 600:
            self.fail(where + ("timeout",), f"{timeout} is outside 1-600 seconds")
        return FleetHook(
            event=event,
            command=self.get(entry, where, "command", str, required=True),
            matcher=self.get(entry, where, "matcher", str),
            timeout=timeout,
        )

    def resident(self, index: int, entry: Any) -> Resident:
        where = ("residents", index)
        if not isinstance(entry, dict):
            self.fail(where, f"expected a table, got {_describe(entry)}")
        self.only_keys(entry, where, ("agent_id", "harness", "repo", "mcp", "allowed_paths", "model", "keep",
                                      "auto_dream"))
        agent_id = self.get(entry, where, "agent_id", str, required=True)
        problem = agent_id_problem(agent_id)
        if problem:
            self.fail(where + ("agent_id",), problem)
        harness = self.get(entry, where, "harness", str, required=True)
        if harness not in HARNESSES:
            self.fail(where + ("harness",), f"unknown harness {harness!r} (supported: {', '.join(HARNESSES)})",
                      unsupported=True)
        repo = self.get(entry, where, "repo", str, required=True)
        # Sparse overrides: unknown names are ignored, anything but literal true means off.
        overrides = {name: value is True for name, value in self.get(entry, where, "mcp", dict, default={}).items()}
        return Resident(
            agent_id=agent_id,
            harness=harness,
            repo=self.abspath(repo, where + ("repo",)),
            mcp_overrides=overrides,
            allowed_paths=tuple(self.abspath(p, where + ("allowed_paths",))
                                for p in self.str_list(entry, where, "allowed_paths")),
            model=self.get(entry, where, "model", str),
            keep=tuple(self.str_list(entry, where, "keep")),
            auto_dream=self.get(entry, where, "auto_dream", bool),
        )


def agent_id_problem(agent_id: str) -> str | None:
    """Why ``agent_id`` cannot be used, or None. It lands raw in identity.md and seat-pointers.md
    (inside backticks), and so in the model's context: nothing in it may end the code span, break a
    line, hide or reorder text, or push identity.md past its 600-character contract."""
    if not agent_id.strip():
        return "must not be empty"
    if agent_id != agent_id.strip():
        return "must not start or end with whitespace"
    if len(agent_id) > AGENT_ID_MAX:
        return f"{len(agent_id)} characters, over the {AGENT_ID_MAX}-character limit"
    if "`" in agent_id:
        return "must not hold a backtick (it is quoted in backticks in the seat's files)"
    for index, char in enumerate(agent_id):
        kind = _BANNED_CATEGORIES.get(unicodedata.category(char))
        if kind:
            return f"holds {kind} (U+{ord(char):04X}) at character {index + 1}"
    return None


def _type_word(name: str) -> str:
    return {"str": "a string", "int": "an integer", "bool": "true or false", "list": "an array",
            "dict": "a table"}.get(name, name)


def _describe(value: Any) -> str:
    kind = {str: "a string", bool: "a boolean", int: "an integer", float: "a float", list: "an array",
            dict: "a table"}.get(type(value), type(value).__name__)
    return f"{kind} ({value!r})" if isinstance(value, (str, int, float, bool)) else kind


def _dotted(where: tuple) -> str:
    out = ""
    for part in where:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "manifest"
