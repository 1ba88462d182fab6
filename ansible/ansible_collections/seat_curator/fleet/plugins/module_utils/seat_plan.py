# -*- coding: utf-8 -*-
# Copyright: seat-curator developers
# MIT License (see the collection's README)
"""What the seat modules share: reading the plan seat-curator makes on this host, in Ansible's terms.

Every decision (what is owned, what diverged, what a write may touch) is seat-curator's own planner
and composer, imported on the target host; this file only turns its plan into results, diffs and
the message a DIVERGENT file fails with.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import traceback

from ansible.module_utils.basic import AnsibleModule, missing_required_lib

try:
    from curator.errors import CuratorError
    from generators import composer
    from generators.kimi import resolve_interpreter
    from generators.manifest import load_manifest, parse_manifest
except ImportError:
    IMPORT_ERROR = traceback.format_exc()
else:
    IMPORT_ERROR = None

COMMON_ARGS = dict(
    fleet=dict(type="path", required=True),
    content=dict(type="str"),
    hook_python=dict(type="path"),
)
# A whole host's residents in one call: planned together, written only if none of them diverged.
RESIDENTS_ARGS = dict(resident=dict(type="str"), residents=dict(type="list", elements="str"))
RESIDENTS_RULES = dict(mutually_exclusive=[("resident", "residents")], required_one_of=[("resident", "residents")])

WAYS_OUT = {
    "repair": "repair: true rewrites only the owned values and keeps the rest of the file",
    "adopt": "adopt: true adds the absent owned keys and keeps the rest of the file",
    "other": ("set it aside (seat-curator set-aside --fleet {fleet} --resident {resident} {path}) "
              "or keep it by hand (keep = [\"{name}\"] on the resident in the manifest)"),
}


def run_module(extra_args, run, **rules):
    """Parse the options, check seat-curator is importable here, call ``run(module)`` and exit with
    its result; a seat-curator error fails the task with its one line (every file left as it was)."""
    module = AnsibleModule(argument_spec=dict(COMMON_ARGS, **extra_args), supports_check_mode=True, **rules)
    if IMPORT_ERROR is not None:
        module.fail_json(msg=missing_required_lib("seat-curator"), exception=IMPORT_ERROR)
    try:
        result = run(module)
    except CuratorError as err:
        module.fail_json(msg=str(err), code=err.code)
    module.exit_json(**result)


def load(params):
    """(the fleet, the interpreter this host's hook commands name, the resident's plans)."""
    if params["content"] is not None:
        fleet = parse_manifest(params["content"], params["fleet"])
    else:
        fleet = load_manifest(params["fleet"])
    interpreter = params["hook_python"] or fleet.hook_python or resolve_interpreter()
    # An empty list is no resident at all (never "every resident": that would be another host's seats).
    ids = params["residents"] if params.get("residents") is not None else [params["resident"]]
    plans = [plan for rid in dict.fromkeys(ids) for plan in composer.plan_fleet(fleet, rid, interpreter=interpreter)]
    return fleet, interpreter, plans


def to_write(plans, adopt, repair):
    """(artifact, its bytes now, its bytes after this run) for every file this run would write."""
    out = []
    for plan in plans:
        for art in plan.artifacts:
            if art.status == composer.PENDING:
                out.append((art, b"", art.emitted.content))
            elif art.status == composer.OUTDATED and art.update is not None:  # an earlier seat-curator's script
                out.append((art, art.update.before, art.update.after))
            elif art.status == composer.DIVERGENT and repair and art.repair is not None:
                out.append((art, art.repair.before, art.repair.after))
            elif art.status == composer.DIVERGENT and adopt and art.adoption is not None:
                out.append((art, art.adoption.before, art.adoption.after))
    return out


def blocking(plans, adopt, repair):
    """The DIVERGENT files this run cannot write past."""
    return [art for plan in plans for art in plan.divergent()
            if not (repair and art.repair is not None) and not (adopt and art.adoption is not None)]


def divergent_message(arts, fleet_path, plans):
    """One message naming each blocking file, its owned keys and the way out for it."""
    lines = []
    owner = {id(art): plan.agent_id for plan in plans for art in plan.artifacts}
    for art in arts:
        resident = owner.get(id(art), "ID")
        if art.repair is not None:
            way = WAYS_OUT["repair"]
        elif art.adoption is not None:
            way = WAYS_OUT["adopt"]
        else:
            way = WAYS_OUT["other"].format(fleet=fleet_path, resident=resident, path=art.path, name=art.path.name)
        keys = ", ".join(art.owned_keys) or "(path)"
        reason = art.reason.split("; `provision --")[0]  # the way out is said below, in this module's terms
        lines.append("%s is DIVERGENT [owned keys: %s]: %s; the way out: %s" % (art.path, keys, reason, way))
    return "; ".join(lines) + "; nothing was written"


def file_diffs(writes):
    """Ansible's diff form, one entry per file: before/after with ``<path> (content)`` headers."""
    diffs = []
    for art, before, after in writes:
        header = "%s (content)" % art.path
        diffs.append({"before_header": header, "after_header": header,
                      "before": before.decode("utf-8", "replace"), "after": after.decode("utf-8", "replace")})
    return diffs


def file_results(plans):
    return [{"path": str(art.path), "owner": art.owner, "status": art.status, "reason": art.reason,
             "owned_keys": list(art.owned_keys)} for plan in plans for art in plan.artifacts]
