"""The demo fleet: six seats, one or more of each harness, provisioned by the generators.

- ``@neo-kimi-iris`` (kimi-code): a healthy seat, well under the target, every pointer good.
- ``@neo-opencode-wren`` (opencode): a grown seat over the 17 KB target, with near-duplicate entries
  (merge candidates), long entries (trim candidates), a dangling pointer, a dangling anchor and an
  orphaned detail file.
- ``@neo-kimi-kestrel`` (kimi-code): born from the template, then hand-edited: its ``config.toml``
  changed an owned key and its hook script is not the current generation, so it is DIVERGENT.
- ``@neo-claude-vega`` (claude-code): a seat written mostly in Korean, over the byte target yet
  loaded whole by Claude Code, which counts characters (a Hangul syllable is 3 bytes, 1 character):
  the two budgets disagree, honestly. Its detail files are Claude Code's own kind (frontmatter,
  ``[[name]]`` links, one naming a memory not written yet).
- ``@neo-codex-orion`` (codex): born from the template; its hook is trusted by hash in its
  ``config.toml``, as the fleet writes it.
- ``@neo-gemini-lyra`` (gemini-cli): born from the template, then its bearer wrote a line in
  identity.md naming a peer as ``@neo-codex-orion`` outside backticks: Gemini would take it as an
  import, and ``check`` says so (the ``gemini-cli`` profile's caution).

The bearer files of iris, wren and vega are laid down before provisioning, exactly as a bearer's own
files would be there: the composer reports them MATCH and never touches them.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

import platformdirs

from curator.errors import InputError
from curator.fsio import atomic_write, exclusive_create
from generators.composer import ResidentPlan, apply_fleet, plan_fleet
from generators.manifest import Fleet, load_manifest

HEALTHY, GROWN, DIVERGENT_SEAT = "@neo-kimi-iris", "@neo-opencode-wren", "@neo-kimi-kestrel"
CLAUDE_SEAT = "@neo-claude-vega"
CODEX_SEAT, GEMINI_SEAT = "@neo-codex-orion", "@neo-gemini-lyra"
# What lyra's bearer added to identity.md: a peer's id written bare, which Gemini reads as an import.
LYRA_IDENTITY_LINE = "I pair with @neo-codex-orion on the memory layer.\n"
EXAMPLE_SEATS = {HEALTHY: "iris", GROWN: "wren", CLAUDE_SEAT: "vega"}

MANIFEST = """\
# Demo fleet for seat-curator (format: docs/fleet-manifest.md in the seat-curator repository).
# Relative paths resolve from this file's directory.

instance_root = "seats"
mcp_prefix = "neo-mjs-"
default_model = "kimi-k2"
default_permission_mode = "manual"

[mcp.neo-mjs-memory-core]
command = "npx"
args = ["-y", "@neo.mjs/memory-core-mcp"]
enabled = true

[mcp.neo-mjs-github-workflow]
url = "https://mcp.example.invalid/github"
enabled = false

[[residents]]
agent_id = "@neo-kimi-iris"
harness = "kimi-code"
repo = "repos/iris"
mcp = { neo-mjs-github-workflow = true }

[[residents]]
agent_id = "@neo-opencode-wren"
harness = "opencode"
repo = "repos/wren"

[[residents]]
agent_id = "@neo-kimi-kestrel"
harness = "kimi-code"
repo = "repos/kestrel"

[[residents]]
agent_id = "@neo-claude-vega"
harness = "claude-code"
repo = "repos/vega"

[[residents]]
agent_id = "@neo-codex-orion"
harness = "codex"
repo = "repos/orion"

[[residents]]
agent_id = "@neo-gemini-lyra"
harness = "gemini-cli"
repo = "repos/lyra"
"""

MANIFEST_FIRST_LINE = MANIFEST.partition("\n")[0].encode("utf-8")

# What the kestrel seat's operator changed by hand after birth.
HAND_EDIT_NOTE = "# hand-edited: ran without prompts for a long refactor (2026-11-20)\n"
STALE_HOOK_LINE = "# identity-anchor hook, generation of 2026-10 (before the wake-route reminder)\n"


@dataclass(frozen=True)
class DemoFleet:
    root: Path
    fleet_path: Path
    plans: list[ResidentPlan]
    reused: bool

    def memory_dir(self, agent_id: str) -> Path:
        return next(p.memory_dir for p in self.plans if p.agent_id == agent_id)


def example_memory(name: str) -> dict[str, bytes]:
    """The bundled memory files of one example seat, by file name."""
    folder = resources.files("curator").joinpath("examples", "seats", name, "memory")
    return {item.name: item.read_bytes() for item in folder.iterdir() if item.name.endswith(".md")}


def default_root() -> Path:
    """One demo per user, reopened on every run instead of a new temp dir each time."""
    return platformdirs.user_data_path("seat-curator") / "demo"


def is_demo(root: Path) -> bool:
    """``root`` holds a demo this module built (its manifest starts with the demo's own first line)."""
    try:
        with open(root / "fleet.toml", "rb") as manifest:
            return manifest.read(len(MANIFEST_FIRST_LINE)) == MANIFEST_FIRST_LINE
    except OSError:
        return False


def build_demo(root: str | Path | None = None, *, fresh: bool = False) -> DemoFleet:
    """Build (or reopen) the demo fleet in ``root`` (``default_root()`` when None). ``fresh`` removes
    an earlier demo there first — only a directory ``is_demo`` recognises, never anything else."""
    root = Path(root or default_root()).expanduser().absolute()
    fleet_path = root / "fleet.toml"
    if fresh and root.exists():
        if not is_demo(root):
            raise InputError("is not a demo this command built; --fresh removes only those", path=root)
        shutil.rmtree(root)
    if fleet_path.is_file():  # an earlier demo: reopen it as it is now, never rebuild over it
        fleet = load_manifest(fleet_path)
        return DemoFleet(root, fleet_path, plan_fleet(fleet), reused=True)
    if root.exists() and (not root.is_dir() or any(root.iterdir())):
        raise InputError("exists and is not an empty directory or an earlier demo; choose another --dir", path=root)
    root.mkdir(parents=True, exist_ok=True)
    exclusive_create(fleet_path, MANIFEST.encode("utf-8"), mode=0o644)
    fleet = load_manifest(fleet_path)
    for resident in fleet.residents:  # every seat works in a repo, as in a real fleet (the canary runs there)
        resident.repo.mkdir(parents=True, exist_ok=True)
    _lay_down_bearer_files(fleet)
    apply_fleet(fleet)
    _hand_edit_kestrel(fleet)
    _bearer_names_a_peer(fleet)
    return DemoFleet(root, fleet_path, plan_fleet(fleet), reused=False)


def _lay_down_bearer_files(fleet: Fleet) -> None:
    for plan in plan_fleet(fleet):
        example = EXAMPLE_SEATS.get(plan.agent_id)
        if example is None:
            continue
        plan.memory_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
        for name, content in sorted(example_memory(example).items()):
            exclusive_create(plan.memory_dir / name, content, mode=0o600)


def _hand_edit_kestrel(fleet: Fleet) -> None:
    plan = next(p for p in plan_fleet(fleet, DIVERGENT_SEAT))
    config = plan.instance_home / "config.toml"
    text = config.read_text(encoding="utf-8")
    edited = text.replace('default_permission_mode = "manual"', HAND_EDIT_NOTE + 'default_permission_mode = "yolo"', 1)
    if edited == text:
        raise InputError("demo: could not find default_permission_mode to hand-edit", path=config)
    atomic_write(config, edited.encode("utf-8"))
    hook = plan.instance_home / "hooks" / "identity_anchor_hook.py"
    source = hook.read_bytes()
    first, _, rest = source.partition(b"\n")
    atomic_write(hook, first + b"\n" + STALE_HOOK_LINE.encode("utf-8") + rest)


def _bearer_names_a_peer(fleet: Fleet) -> None:
    identity = plan_fleet(fleet, GEMINI_SEAT)[0].memory_dir / "identity.md"
    atomic_write(identity, identity.read_bytes() + b"\n" + LYRA_IDENTITY_LINE.encode("utf-8"))


def describe(demo: DemoFleet, command: str = "seat-curator") -> str:
    """What was built, where, how to remove it, and the commands (run as ``command``) to try on it."""
    lines = [
        f"{'Reopened' if demo.reused else 'Built'} the demo fleet in {demo.root}",
        f"  manifest: {demo.fleet_path}",
    ]
    for plan in demo.plans:
        counts: dict[str, int] = {}
        for art in plan.artifacts:
            counts[art.status] = counts.get(art.status, 0) + 1
        summary = ", ".join(f"{n} {s}" for s, n in sorted(counts.items()))
        lines.append(f"  {plan.agent_id} ({plan.harness}): {summary}")
        lines.append(f"    memory: {plan.memory_dir}")
    wren, vega = demo.memory_dir(GROWN), demo.memory_dir(CLAUDE_SEAT)
    lines += [
        f"  every run reopens it as it is; start over with `{command} demo --fresh`, remove it with "
        f"`rm -r {demo.root}`",
        "Try:",
        f"  {command} check {wren}",
        f"  {command} candidates {wren}",
        f"  {command} check {vega}    # over the byte target, yet Claude Code loads it whole",
        f"  {command} check {demo.memory_dir(GEMINI_SEAT)} --profile gemini-cli    # an @word Gemini would import",
        f"  {command} plan --fleet {demo.fleet_path}",
        f"  {command} tui --fleet {demo.fleet_path}",
    ]
    return "\n".join(lines) + "\n"
