"""The hook scripts compile part of their code only when it is needed (a string they exec), so the type
checker reads its names from a stub beside the script (``*_deferred.pyi``, imported under ``if
TYPE_CHECKING:``). These tests hold each stub to the code the string defines: the same names, the same
parameters and annotations."""

from __future__ import annotations

import ast

import pytest

from generators.script_source import SCRIPTS_DIR

# script -> the module-level string it compiles on demand, and the stub that declares what it defines
DEFERRED = {"identity_anchor_hook.py": ("_BOUNDARY", "identity_anchor_deferred"),
            "cap_guard_hook.py": ("_GUARD", "cap_guard_deferred")}


def _annotation(node: ast.expr | None) -> str:
    """An annotation as source, a quoted one unquoted (the scripts quote what Python 3.6 cannot evaluate)."""
    if node is None:
        return ""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        node = ast.parse(node.value, mode="eval").body
    return ast.unparse(node)


def _signature(func: ast.FunctionDef) -> list[tuple[str, str]]:
    args = func.args
    params = [*args.posonlyargs, *args.args, *args.kwonlyargs]
    return [(a.arg, _annotation(a.annotation)) for a in params] + [("return", _annotation(func.returns))]


def _parts(script: str) -> tuple[list[ast.stmt], list[ast.stmt]]:
    """The stub's declarations and the statements of the deferred string."""
    variable, stub = DEFERRED[script]
    tree = ast.parse((SCRIPTS_DIR / script).read_text(encoding="utf-8"))
    checker_only = [s for node in tree.body if isinstance(node, ast.If) and isinstance(node.test, ast.Name)
                    and node.test.id == "TYPE_CHECKING" for s in node.body]
    imported = {alias.name for s in checker_only if isinstance(s, ast.ImportFrom)
                and s.module == f"generators.scripts.{stub}" for alias in s.names}
    declared = ast.parse((SCRIPTS_DIR / f"{stub}.pyi").read_text(encoding="utf-8")).body
    names = {s.name if isinstance(s, ast.FunctionDef) else s.target.id for s in declared
             if isinstance(s, ast.FunctionDef) or (isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name))}
    assert imported == names, f"{script} imports {sorted(imported)} of its stub, which declares {sorted(names)}"
    (source,) = [node.value.value for node in tree.body if isinstance(node, ast.Assign)
                 and [t.id for t in node.targets if isinstance(t, ast.Name)] == [variable]
                 and isinstance(node.value, ast.Constant)]
    return declared, ast.parse(source).body


@pytest.mark.parametrize("script", sorted(DEFERRED))
def test_declared_functions_match_the_deferred_code(script):
    declared, deferred = _parts(script)
    defined = {s.name: s for s in deferred if isinstance(s, ast.FunctionDef)}
    stubs = [s for s in declared if isinstance(s, ast.FunctionDef)]
    assert stubs, f"{script} declares none of the functions its deferred code defines"
    for stub in stubs:
        assert stub.name in defined, f"{script}: {stub.name} is declared but the deferred code does not define it"
        assert _signature(stub) == _signature(defined[stub.name]), f"{script}: {stub.name} drifted"


def test_declared_constants_are_assigned_by_the_deferred_code():
    declared, deferred = _parts("identity_anchor_hook.py")  # (the cap guard's callers use no constant of it)
    assigned = {t.id for s in deferred if isinstance(s, ast.Assign) for t in s.targets if isinstance(t, ast.Name)}
    names = {s.target.id for s in declared if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name)}
    assert {"TRIGGER_BOOT", "TRIGGER_RELOAD", "NOTE_IDENTITY"} <= names <= assigned
