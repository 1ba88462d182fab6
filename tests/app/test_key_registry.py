"""The key registry (curator.keys): the rule its default keys follow, and the user's overrides file."""

from __future__ import annotations

from curator.keys import ACTIONS, REGISTRY, TARGETS, display_keys, for_target, load_keymap

# Targets where a text widget can have focus while their keys are live: the app's keys work in every
# focus, the index screen's while the editor (or the archive search box) has focus.
TEXT_FOCUS_TARGETS = ("app", "index", "editor", "archive_search")


def types_a_character(key: str) -> bool:
    """A key that a text field would insert: one printable character, or a named printable key."""
    return len(key) == 1 or key in ("space", "slash", "question_mark", "full_stop", "comma", "minus")


def test_no_key_that_types_a_character_is_a_command_where_text_can_have_focus():
    offending = [(a.id, k) for a in ACTIONS if a.target in TEXT_FOCUS_TARGETS
                 for k in a.keys.split(",") if types_a_character(k)]
    assert offending == []


def test_no_alt_keys_by_default_they_arrive_as_escape_then_a_letter_in_tmux():
    assert [a.id for a in ACTIONS if "alt+" in a.keys] == []


def test_every_action_names_a_known_target_and_a_description():
    for action in ACTIONS:
        assert action.target in TARGETS, action.id
        assert action.id.startswith(action.target + "."), action.id
        assert action.description.strip(), action.id


def test_a_target_binds_each_key_once():
    for target in TARGETS:
        keys = [k for a in for_target(target) for k in a.keys.split(",")]
        assert len(keys) == len(set(keys)), (target, keys)


def test_the_reprovision_preview_is_one_key_in_every_focus():
    action = REGISTRY["app.reprovision"]
    assert action.target == "app" and action.priority and "," not in action.keys


def test_overrides_file_rebinds_by_id_and_reports_what_it_ignores(tmp_path):
    path = tmp_path / "keys.toml"
    path.write_text('[keys]\n"index.undo_change" = "ctrl+t"\n"app.reprovision" = " f4 , ctrl+o "\n'
                    '"no.such" = "x"\n"index.save" = ""\n', encoding="utf-8")
    overrides, problems = load_keymap(path)
    assert overrides == {"index.undo_change": "ctrl+t", "app.reprovision": "f4,ctrl+o"}
    assert len(problems) == 2
    assert "KEYMAP_UNKNOWN_ACTION" in problems[0] and "no.such" in problems[0] and str(path) in problems[0]
    assert "KEYMAP_INVALID" in problems[1] and "index.save" in problems[1]


def test_a_broken_or_missing_overrides_file_means_the_default_keys(tmp_path):
    assert load_keymap(tmp_path / "absent.toml") == ({}, [])
    bad = tmp_path / "keys.toml"
    bad.write_bytes(b"[keys\n")
    overrides, problems = load_keymap(bad)
    assert overrides == {} and len(problems) == 1 and problems[0].startswith("KEYMAP_INVALID") and str(bad) in problems[0]
    bad.write_bytes(b"\xff\xfe[keys]")
    overrides, problems = load_keymap(bad)
    assert overrides == {} and str(bad) in problems[0]
    fifo = tmp_path / "fifo.toml"
    import os
    os.mkfifo(fifo)
    overrides, problems = load_keymap(fifo)  # never blocks on a FIFO
    assert overrides == {} and problems and str(fifo) in problems[0]


def test_keymap_path_follows_xdg_config_home(tmp_path, monkeypatch):
    from curator.keys import keymap_path

    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    assert keymap_path() == tmp_path / "seat-curator" / "keys.toml"


def test_display_keys_names_keys_as_typed():
    assert display_keys("slash") == "/" and display_keys("n,escape") == "n / esc"
