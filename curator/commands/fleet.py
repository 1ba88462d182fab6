"""Fleet commands: init-fleet, plan, provision, set-aside (the workspace composer from the shell).

Exit codes for ``plan`` tell CI what it found: 0 everything MATCH, 2 files to write (PENDING: to
create; OUTDATED: an earlier seat-curator's script, to write this version of), 3 something DIVERGENT,
1 an error. ``provision`` exits 3 on divergence and writes nothing; it exits 0
only when the plan after writing is clean.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from curator.fsio import exclusive_create, remove_dead_temps
from generators import composer
from generators.errors import DivergentError, PreparationError
from generators.manifest import example_manifest, load_manifest
from generators.set_aside_loss import describe as describe_loss

DEFAULT_MANIFEST = "fleet.toml"


def register(subparsers: argparse._SubParsersAction) -> None:
    init = subparsers.add_parser("init-fleet", help="write an example fleet.toml (one resident per harness: kimi-code, opencode, claude-code, codex, gemini-cli)")
    init.add_argument("dir", metavar="DIR", help="directory to root the example fleet in (created if missing)")
    init.set_defaults(func=run_init_fleet)

    plan = subparsers.add_parser("plan", help="show what provisioning would create, and any divergence (writes nothing)")
    _fleet_args(plan)
    plan.set_defaults(func=run_plan)

    provision = subparsers.add_parser("provision", help="create every pending seat file; refuses if anything diverged")
    _fleet_args(provision)
    provision.add_argument("--adopt", action="store_true",
                           help="add the fleet's owned keys into existing files that lack them (plan lists them "
                                "as adoptable), keeping everything else; the diffs are printed before writing")
    provision.add_argument("--repair", action="store_true",
                           help="rewrite, in place, the owned values of files whose owned keys hold other values "
                                "(plan lists them as repairable), keeping every other byte; the diffs are printed first")
    provision.set_defaults(func=run_provision)

    aside = subparsers.add_parser("set-aside", help="rename a DIVERGENT file to <name>.divergent-<UTC stamp>")
    aside.add_argument("--fleet", required=True, metavar="F", help="the fleet manifest (fleet.toml)")
    aside.add_argument("--resident", required=True, metavar="ID", help="the resident's agent id")
    aside.add_argument("path", metavar="PATH", help="the divergent file, as printed by `plan`")
    aside.set_defaults(func=run_set_aside)


def _fleet_args(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--fleet", default=DEFAULT_MANIFEST, metavar="F", help="the fleet manifest (default: ./fleet.toml)")
    parser.add_argument("--resident", metavar="ID", help="only this resident (agent id)")
    parser.add_argument("--json", action="store_true", help="machine-readable output")
    parser.add_argument("--hook-python", metavar="PATH",
                        help="this host's interpreter for the hook commands (default: the manifest's hook_python, "
                             "else the interpreter running seat-curator)")


def run_init_fleet(args: argparse.Namespace) -> int:
    root = Path(args.dir).expanduser().absolute()
    target = root / DEFAULT_MANIFEST
    try:
        content = example_manifest(root).encode("utf-8")
    except UnicodeEncodeError:  # a name of bytes that are not UTF-8: TOML cannot spell it
        raise PreparationError("the directory's name is not valid UTF-8; a fleet.toml cannot name it",
                               path=ascii(str(root))) from None
    try:
        root.mkdir(parents=True, exist_ok=True)
        remove_dead_temps(root, {DEFAULT_MANIFEST: content})  # a killed init's, holding these very bytes
        created = exclusive_create(target, content, mode=0o644)
    except OSError as err:
        raise PreparationError(f"cannot write the manifest: {err.strerror or err}", path=target) from None
    if not created:
        raise PreparationError("already exists; not overwritten", path=target)
    print(f"wrote {target}")
    print(f"next: seat-curator plan --fleet {target}")
    return 0


def run_plan(args: argparse.Namespace) -> int:
    fleet = load_manifest(args.fleet)
    plans = composer.plan_fleet(fleet, args.resident, interpreter=_hook_python(args))
    _print(plans, args.json)
    return composer.plan_exit_code(plans)


def run_provision(args: argparse.Namespace) -> int:
    fleet = load_manifest(args.fleet)
    planned = None
    if args.adopt or args.repair:  # the diffs first; apply re-plans and writes only what it re-checked
        planned = composer.plan_fleet(fleet, args.resident, interpreter=_hook_python(args))
        adoptions = [a.adoption for p in planned for a in p.artifacts if args.adopt and a.adoption is not None]
        repairs = [a.repair for p in planned for a in p.artifacts if args.repair and a.repair is not None]
        if not args.json:
            for verb, what, items in (("adopting", "adding", adoptions), ("repairing", "rewriting", repairs)):
                for item in items:
                    print(f"{verb} {item.path}: {what} {', '.join(item.added_keys)}")
                    sys.stdout.write(_indented(item.diff))
    try:
        plans = composer.apply_fleet(fleet, plans=planned, adopt=args.adopt, repair=args.repair) if planned else \
            composer.apply_fleet(fleet, args.resident, interpreter=_hook_python(args))
    except DivergentError:
        if args.json:  # the report still goes out, so a script sees which files diverged
            _print(composer.plan_fleet(fleet, args.resident, interpreter=_hook_python(args)), True)
        raise
    _print(plans, args.json, done=True)
    return 0


def _hook_python(args: argparse.Namespace) -> str | None:
    """The --hook-python given (absolute, like the manifest's hook_python), or None."""
    if args.hook_python is None:
        return None
    if not Path(args.hook_python).is_absolute() or "\x00" in args.hook_python:
        raise PreparationError(f"--hook-python must be an absolute interpreter path, got {args.hook_python!r}")
    return args.hook_python


def run_set_aside(args: argparse.Namespace) -> int:
    fleet = load_manifest(args.fleet)
    resident = fleet.resident(args.resident)
    target = Path(args.path).expanduser().absolute()
    art = next((a for a in composer.plan_fleet(fleet, args.resident)[0].artifacts if a.path == target), None)
    found = target.read_bytes() if art is not None and art.status == composer.DIVERGENT and target.is_file() else None
    moved = composer.set_aside(fleet, resident, args.path)
    print(f"set aside: {args.path} -> {moved}")
    if art is not None and found is not None:
        print(describe_loss(art, found))
    print("next: seat-curator provision re-creates the fleet's version; compare the two by hand")
    return 0


def _print(plans: list[composer.ResidentPlan], as_json: bool, *, done: bool = False) -> None:
    if as_json:
        json.dump({"residents": [p.to_json() for p in plans]}, sys.stdout, indent=2)
        sys.stdout.write("\n")
        return
    for plan in plans:
        print(f"{plan.agent_id} ({plan.harness}) {plan.status}")
        print(f"  home {plan.instance_home}")
        for art in plan.artifacts:
            print(f"  {art.status:<9} {art.owner:<6} {art.path}")
            if art.status == composer.DIVERGENT:
                print(f"            {art.reason}")
                if art.owned_keys:
                    print(f"            owned: {', '.join(art.owned_keys)}")
                if art.adoption is not None:
                    print("            adoptable; `provision --adopt` would write:")
                    sys.stdout.write(_indented(art.adoption.diff))
                elif art.repair is not None:
                    print("            repairable; `provision --repair` would write:")
                    sys.stdout.write(_indented(art.repair.diff))
                else:
                    sys.stdout.write(_indented(art.diff))
            elif art.status in (composer.KEPT, composer.OUTDATED, composer.UPDATED):
                print(f"            {art.reason}")
    # A plan's absent files are PENDING (to create); provision reports the ones it wrote as CREATED.
    statuses = (composer.MATCH, composer.CREATED if done else composer.PENDING, composer.DIVERGENT)
    counts = [f"{sum(a.status == s for p in plans for a in p.artifacts)} {s}" for s in statuses]
    for status in (composer.UPDATED if done else composer.OUTDATED, composer.KEPT):  # named only when present
        found = sum(a.status == status for p in plans for a in p.artifacts)
        counts += [f"{found} {status}"] if found else []
    adoptable = sum(a.adoption is not None and a.status == composer.DIVERGENT for p in plans for a in p.artifacts)
    repairable = sum(a.repair is not None and a.status == composer.DIVERGENT for p in plans for a in p.artifacts)
    adopted = sum(a.status == composer.ADOPTED for p in plans for a in p.artifacts)
    repaired = sum(a.status == composer.REPAIRED for p in plans for a in p.artifacts)
    extra = (f" ({adoptable} adoptable)" if adoptable else "") + (f" ({repairable} repairable)" if repairable else "")
    extra += (f", {adopted} ADOPTED" if adopted else "") + (f", {repaired} REPAIRED" if repaired else "")
    print(f"{len(plans)} resident(s): {', '.join(counts)}{extra}")


def _indented(text: str) -> str:
    return "".join(f"            {line}\n" for line in text.splitlines())
