"""The composer's three failure codes (spec §6), as CuratorError values the CLI prints in one line."""

from __future__ import annotations

from curator.errors import CuratorError


class PreparationError(CuratorError):
    """Bad arguments or a bad manifest: nothing was written."""

    code = "FLEET_WORKSPACE_PREPARATION_FAILED"


class UnsupportedError(CuratorError):
    """Unknown harness, no enabled MCP servers, or a catalog entry that cannot be emitted."""

    code = "FLEET_WORKSPACE_UNSUPPORTED"


class DivergentError(CuratorError):
    """A fleet-owned surface drifted (or a path is unsafe): fail closed, write nothing."""

    code = "FLEET_WORKSPACE_DIVERGENT"
    exit_code = 3
