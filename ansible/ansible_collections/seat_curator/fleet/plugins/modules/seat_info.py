#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: seat-curator developers
# MIT License (see the collection's README)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
---
module: seat_info
short_description: Read one resident's seat on this host - meter, load simulation, pointer problems, plan
description:
  - Runs seat-curator's own analysis on the target host (what C(seat-curator check --json) reports)
    and its planner (what C(seat-curator plan) reports), and returns them. Writes nothing.
  - As Ansible asks of C(_info) modules, the results are returned as values (register them), not
    as C(ansible_facts); the example playbook sets them as facts per host.
  - Requires seat-curator installed for the Python interpreter Ansible uses on the target host.
options:
  resident:
    description: The resident's C(agent_id) in the manifest.
    type: str
    required: true
extends_documentation_fragment:
  - seat_curator.fleet.seat
author:
  - seat-curator developers (@seat-curator)
attributes:
  check_mode:
    description: Check mode plans (C(seat-curator plan)) and writes nothing.
    support: full
"""

EXAMPLES = r"""
- name: Read a seat
  seat_curator.fleet.seat_info:
    fleet: /srv/fleet/fleet.toml
    resident: "@neo-kimi-iris"
  register: iris

- name: Fail when the hot index is past the read limit
  ansible.builtin.assert:
    that: iris.meter.zone != "over-limit"
"""

RETURN = r"""
memory_dir:
  description: The seat's memory directory.
  returned: always
  type: str
born:
  description: Whether the seat's MEMORY.md exists (false before its first provision).
  returned: always
  type: bool
meter:
  description: The hot index's bytes and lines, target, read limit, zone and headroom (empty before birth).
  returned: always
  type: dict
load:
  description: Per harness profile, what the load simulation loads and drops (empty before birth).
  returned: always
  type: dict
pointers:
  description: Pointer problems - dangling, escaping, orphaned, unreadable, unwritten (empty before birth).
  returned: always
  type: dict
warnings_found:
  description: The analysis's warnings about the seat.
  returned: always
  type: list
  elements: str
status:
  description: The seat's plan status (MATCH, PENDING, OUTDATED, DIVERGENT, KEPT).
  returned: always
  type: str
files:
  description: Every file of the seat with its plan status.
  returned: always
  type: list
  elements: dict
"""

from ansible_collections.seat_curator.fleet.plugins.module_utils.seat_plan import file_results, load, run_module

try:
    from curator.analysis import analyze
    from curator.commands.check import to_json
except ImportError:
    pass  # run_module says so

METER_KEYS = ("bytes", "lines", "target", "read_limit", "zone", "headroom_target", "headroom_read_limit",
              "identity_bytes")


def run(module):
    plan = load(module.params)[2][0]
    result = {"changed": False, "memory_dir": str(plan.memory_dir), "status": plan.status,
              "files": file_results([plan]), "born": (plan.memory_dir / "MEMORY.md").is_file(),
              "meter": {}, "load": {}, "pointers": {}, "warnings_found": []}
    if result["born"]:
        report = to_json(analyze(plan.memory_dir))
        result.update(meter={key: report[key] for key in METER_KEYS}, load=report["profiles"],
                      pointers=report["pointers"], warnings_found=report["warnings"])
    return result


def main():
    run_module(dict(resident=dict(type="str", required=True)), run)


if __name__ == "__main__":
    main()
