"""One name per thing: the commands ``meanvar``, ``logged`` and ``preset`` and the kind ``meanvar``, and the older
names (``mv``, ``data``, ``replay``; kind ``mv``) that scripts, saved files and bundles written before still use.

The one run uses the conformance suite's mean-variance shape (K = 5, T = 150, 2 seeds).
"""

from __future__ import annotations

import importlib
import json

import pytest

from safebandit_core import cli, export, families, settings
from safebandit_core.meanvar import MVSettings
from safebandit_core.sweep import SweepSpec
from safebandit_ui import registry
from tests.support import only_command

RENAMED = {"mv": "meanvar", "data": "logged", "replay": "preset"}
"""Old command name -> the command's name now."""
SMALL = ["--K", "5", "--T", "150", "--seeds", "2", "--rho", "60", "--base-seed", "1", "--device", "cpu",
         "--precision", "float64", "--json"]


@pytest.mark.parametrize(("old", "new"), RENAMED.items())
def test_an_old_command_name_reaches_the_renamed_command(old, new):
    args = cli.build_parser().parse_args([old])
    assert args._module is importlib.import_module(cli.commands()[new])
    assert old in cli.command_aliases()[new] and old not in cli.commands()


def test_help_names_each_command_once_by_its_new_name_with_the_old_in_brackets():
    text = cli.build_parser().format_help()
    usage = text.split("\n\n")[0]
    for old, new in RENAMED.items():
        assert f"{new} ({old})" in text
        assert f",{new}," in usage and f",{old}," not in usage and f"{{{old}," not in usage


def test_the_old_command_runs_the_same_as_the_new(monkeypatch, capsys):
    monkeypatch.setattr(cli, "commands", only_command("meanvar"))
    docs = []
    for name in ("meanvar", "mv"):
        assert cli.main([name, *SMALL]) == 0
        docs.append(json.loads(capsys.readouterr().out))
    new, old = ({k: v for k, v in d.items() if k != "seconds"} for d in docs)
    assert new["kind"] == "meanvar" and new["rows"] and new == old


def test_an_mv_settings_file_loads_as_meanvar():
    wanted = MVSettings(K=7, alpha=0.2, mu0=0.6, rho=12.5, T=300, seeds=3, base_seed=4)
    saved = {**settings.to_dict(wanted), "kind": "mv"}
    assert export.load_settings(json.dumps(saved)) == ("meanvar", wanted)
    assert families.get("mv") is families.get("meanvar")
    assert families.command_of("mv") == "meanvar" and registry.page_of_kind("mv") == "pages/meanvar.py"


def test_a_sweep_saved_with_the_mv_kind_loads():
    spec = SweepSpec("meanvar", MVSettings(K=4, T=120, seeds=2), (0.05, 0.2), (10.0,))
    saved = spec.to_dict()
    saved["model"], saved["base"] = "mv", {**saved["base"], "kind": "mv"}
    kind, loaded = export.load_settings(json.dumps(saved))
    assert kind == "sweep" and loaded.kind == "meanvar" and loaded == spec


def test_an_unknown_kind_is_still_refused_by_name():
    with pytest.raises(settings.SettingsError) as err:
        export.load_settings(json.dumps({"kind": "meanvariance", "K": 5}))
    assert err.value.field == "kind" and "meanvar" in str(err.value)


def test_the_code_names_the_papers_by_their_titles_not_by_seed_numbers():
    """The two papers are *Safety by Design* and *One-size-fits-all* wherever the code, the app or the docs name
    them; "seed 000" and "seed 001" are the file names they were handed over under, which no reader knows."""
    root = registry.ROOT
    sources = [*root.glob("safebandit_core/**/*.py"), *root.glob("safebandit_ui/**/*.py"), *root.glob("pages/*.py"),
               root / "app.py", root / "README.md", *root.glob("docs/*.md")]
    found = [f"{p.relative_to(root)}:{i}" for p in sources for i, line in enumerate(p.read_text().splitlines(), 1)
             if "seed 000" in line.lower() or "seed 001" in line.lower()]
    assert found == []
