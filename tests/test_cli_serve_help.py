"""``calpress serve --help`` documents every option with its help text, its default and its
environment variable, all taken from config.SETTINGS; the settings without a flag follow, each
with its variable and default."""

from __future__ import annotations

import re

import pytest

from calpress.cli import main
from calpress.config import SETTINGS

BY_ENV = {setting.env: setting for setting in SETTINGS}


@pytest.fixture()
def serve_help(capsys, monkeypatch) -> str:
    monkeypatch.setenv("COLUMNS", "100")
    with pytest.raises(SystemExit) as stopped:
        main(["serve", "--help"])
    assert stopped.value.code == 0
    return capsys.readouterr().out


def option_entries(text: str) -> dict[str, str]:
    """The "options:" section as {--flag: its help on one line}."""
    section = text.split("\noptions:\n", 1)[1].split("\n\n", 1)[0]
    entries: dict[str, str] = {}
    current = None
    for line in section.splitlines():
        if line.startswith("  -"):
            names = line.strip().split("  ", 1)[0]  # "-h, --help", "--host HOST"
            current = re.findall(r"--[\w-]+", names)[-1]
            entries[current] = line
        elif current is not None:
            entries[current] += " " + line.strip()
    return {flag: " ".join(text.split()) for flag, text in entries.items()}


def test_every_serve_option_names_its_help_default_and_variable(serve_help):
    entries = option_entries(serve_help)
    assert set(entries) == {"--help", "--host", "--port", "--workers", "--threads", "--share-port",
                            "--data-dir", "--database-url", "--site-url"}
    for flag, entry in entries.items():
        if flag == "--help":
            continue
        found = re.search(r"\[default: (.+?); (?:env: (CALPRESS_\w+)|no environment variable.*)\]", entry)
        assert found, entry
        env = found.group(2)
        if env is None:  # the one flag that is no setting
            assert flag == "--share-port"
            continue
        setting = BY_ENV[env]
        # The flag is the setting's, its help the setting's text, its default the setting's.
        assert flag == "--" + setting.name.replace("_", "-")
        assert " ".join(setting.help.split()) in entry
        assert found.group(1) == (str(setting.default) if setting.default != "" else "empty")


def test_the_settings_without_a_flag_follow_with_their_defaults(serve_help):
    epilog = serve_help.split("Other settings (environment variables only):\n", 1)[1]
    listed = dict(re.findall(r"^  (CALPRESS_\w+) \[default: (.*)\]$", epilog, re.MULTILINE))
    flags = set(option_entries(serve_help))
    for setting in SETTINGS:
        if "--" + setting.name.replace("_", "-") in flags:
            assert setting.env not in listed
            continue
        assert listed[setting.env] == (str(setting.default) if setting.default != "" else "empty")
        assert " ".join(setting.help.split())[:40] in " ".join(epilog.split())
