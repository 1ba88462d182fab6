#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: seat-curator developers
# MIT License (see the collection's README)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
---
module: seat
short_description: Provision one resident's seat on this host from a seat-curator fleet manifest
description:
  - Runs seat-curator's own planner and composer on the target host for one resident of a fleet
    manifest (C(fleet.toml)) present there, exactly as C(seat-curator provision --resident ID) would.
  - Check mode is C(seat-curator plan) (nothing is written); C(changed) says what a real run would write.
  - Diff mode returns each file this run writes (or would write) with C(<path> (content)) headers.
  - C(changed) is true only when bytes change; a second run reports C(changed=false).
  - Bearer files (MEMORY.md and the other memory files) are created once and never read or written again.
  - Every write is validated (schema-checked, its owned keys proven), atomic, and refused when the
    file changed on disk since it was planned.
  - A DIVERGENT fleet-owned file fails the task, naming the file, its owned keys and the way out,
    and nothing is written for the resident.
  - Requires seat-curator installed for the Python interpreter Ansible uses on the target host.
options:
  resident:
    description: The resident's C(agent_id) in the manifest (or use O(residents)).
    type: str
  residents:
    description:
      - Several residents of this host in one call (the example playbook passes the host's list).
      - They are planned together and written only if none of them has a DIVERGENT file, as
        C(seat-curator provision) does for a fleet; one module start serves them all.
    type: list
    elements: str
  adopt:
    description: Add the fleet's owned keys to existing files that only lack them (C(provision --adopt)).
    type: bool
    default: false
  repair:
    description:
      - Rewrite, in place, the owned values of files whose owned keys hold other values
        (C(provision --repair)); every other key, comment and line ending is kept byte for byte.
    type: bool
    default: false
extends_documentation_fragment:
  - seat_curator.fleet.seat
author:
  - seat-curator developers (@seat-curator)
attributes:
  check_mode:
    description: Check mode plans (C(seat-curator plan)) and writes nothing.
    support: full
  diff_mode:
    description: Each file written (or to be written) as before/after with C(<path> (content)) headers.
    support: full
"""

EXAMPLES = r"""
- name: Provision a resident's seat
  seat_curator.fleet.seat:
    fleet: /srv/fleet/fleet.toml
    resident: "@neo-kimi-iris"

- name: Provision, repairing hand-edited owned values in place
  seat_curator.fleet.seat:
    fleet: /srv/fleet/fleet.toml
    resident: "@neo-kimi-iris"
    repair: true
"""

RETURN = r"""
status:
  description: The resident's status after this run (the worst file status).
  returned: always
  type: str
  sample: MATCH
files:
  description: Every file of the seat with its status (PENDING, OUTDATED, CREATED, UPDATED, ADOPTED, REPAIRED, KEPT, MATCH, DIVERGENT).
  returned: always
  type: list
  elements: dict
  sample: [{"path": "/srv/fleet/instances/x/kimi-code/config.toml", "owner": "fleet", "status": "CREATED",
            "reason": "created now (mode 0600)", "owned_keys": ["default_model"]}]
hook_python:
  description: The interpreter the seat's hook commands name.
  returned: always
  type: str
"""

from ansible_collections.seat_curator.fleet.plugins.module_utils.seat_plan import (blocking, divergent_message,
                                                                                   file_diffs, file_results, load,
                                                                                   RESIDENTS_ARGS, RESIDENTS_RULES,
                                                                                   run_module, to_write)

try:
    from generators import composer
except ImportError:
    pass  # run_module says so

WRITTEN = ("CREATED", "UPDATED", "ADOPTED", "REPAIRED")


def worst(plans):
    return next((s for s in composer.STATUSES if any(p.status == s for p in plans)), composer.MATCH)


def run(module):
    params = module.params
    fleet, interpreter, plans = load(params)
    adopt, repair = params["adopt"], params["repair"]
    stuck = blocking(plans, adopt, repair)
    if stuck:
        module.fail_json(msg=divergent_message(stuck, fleet.path, plans),
                         files=file_results(plans), status="DIVERGENT", hook_python=interpreter)
    writes = to_write(plans, adopt, repair)
    result = {"changed": bool(writes), "hook_python": interpreter}
    if module._diff:
        result["diff"] = file_diffs(writes)
    if module.check_mode or not writes:
        result.update(files=file_results(plans), status=worst(plans))
        return result
    after = composer.apply_fleet(fleet, plans=plans, adopt=adopt, repair=repair)
    result.update(changed=any(a.status in WRITTEN for p in after for a in p.artifacts),
                  files=file_results(after), status=worst(after))
    return result


def main():
    run_module(dict(RESIDENTS_ARGS, adopt=dict(type="bool", default=False), repair=dict(type="bool", default=False)),
               run, **RESIDENTS_RULES)


if __name__ == "__main__":
    main()
