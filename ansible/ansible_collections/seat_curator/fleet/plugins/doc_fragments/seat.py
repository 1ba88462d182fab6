# -*- coding: utf-8 -*-
# Copyright: seat-curator developers
# MIT License (see the collection's README)

from __future__ import absolute_import, division, print_function

__metaclass__ = type


class ModuleDocFragment(object):
    """The options every seat module takes: which manifest, which resident, which interpreter."""

    DOCUMENTATION = r"""
options:
  fleet:
    description: Path of the fleet manifest on the target host.
    type: path
    required: true
  content:
    description:
      - The manifest's text, read as if it were at O(fleet) (relative paths resolve from there).
      - Lets check mode plan a host the manifest has not been copied to yet, so nothing is written.
    type: str
  hook_python:
    description:
      - Absolute path of the interpreter on the target host that generated hook commands run.
      - Default is the manifest's C(hook_python), else the interpreter running this module on the
        target host (never the controller's).
    type: path
requirements:
  - seat-curator installed for the target host's Python interpreter
"""
