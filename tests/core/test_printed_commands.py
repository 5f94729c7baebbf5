"""Every command line the product shows runs.

Collected, not copied: the README's command-line examples (its ```bash blocks), each model page's
"the same run from the command line" (:func:`safebandit_core.cli.command_for` over every family's
default and first audience settings), the presets, battery and sweeps pages' lines
(:mod:`safebandit_ui.tools`), and the README.txt of every export bundle: those the app writes for
each settings kind and those ``sweep --out`` and ``preset --out`` write. Each runs in-process at a
small size (:func:`small`) and must exit 0; with ``--json`` it must print one JSON object.
"""

from __future__ import annotations

import dataclasses
import io
import json
import re
import shlex
import subprocess
import sys
import zipfile
from importlib import resources
from pathlib import Path

import pandas as pd
import pytest

from safebandit_core import cli, clikit, export, jsondoc, presets, sweep
from safebandit_core.battery import BatteryReplaySettings
from safebandit_core.battery import cli as battery_cli
from safebandit_core.dose.settings import S000_BASE
from safebandit_ui import registry, tools, warmup
from tests.conftest import ROOT

PROG = "-m safebandit_core"
SIZES = {"--T": "200", "--seeds": "1", "--dim": "16"}
"""What :func:`small` sets: 200 rounds, one seed, a 16-wide battery embedding."""
SIZED = {"dose", "nonlinear", "conservative", "meanvar", "battery", "logged"}
"""Commands whose size flags :func:`small` adds when the line leaves them at the (large) defaults."""
DISTRIBUTED = {"--coordinator": 1, "--num-processes": 1, "--process-id": 1, "--distributed": 1,
               "--connect-timeout": 1, "--heartbeat-timeout": 1}
NOT_RUNS = ("devices",)
"""Commands whose ``--json`` lists something other than a run (``devices``: the devices JAX sees)."""
PLACEHOLDERS = {"HOST:PORT": "127.0.0.1:7311", "N": "2", "I": "0"}


def small(argv: list[str]) -> list[str]:
    """``argv`` at a test's size: ``--T``, ``--seeds`` and ``--dim`` set to :data:`SIZES` (added to the model
    commands and to ``preset --preset`` when absent), ``--full`` dropped, and the flags that join several
    processes dropped (:func:`distributed_part` checks those separately). Everything else is kept as shown."""
    out, i = [], 0
    while i < len(argv):
        arg = argv[i]
        if arg in DISTRIBUTED:
            i += 1 + DISTRIBUTED[arg]
            continue
        if arg == "--full":
            i += 1
            continue
        out.append(arg)
        if arg in SIZES and i + 1 < len(argv):
            out.append(SIZES[arg])
            i += 2
            continue
        i += 1
    if out and (out[0] in SIZED or (out[0] == "preset" and "--preset" in out)):
        for flag in ("--T", "--seeds"):
            if flag not in out:
                out += [flag, SIZES[flag]]
    return out


def distributed_part(argv: list[str]) -> list[str] | None:
    """``argv`` with its placeholders (HOST:PORT, N, I) filled in, when it joins several processes; else None."""
    if not any(a in DISTRIBUTED for a in argv):
        return None
    return [PLACEHOLDERS.get(a, a) for a in argv]


def commands_in(text: str) -> list[list[str]]:
    """The arguments after ``python -m safebandit_core`` of every such command in ``text`` (one per line, with
    backslash continuations joined; a trailing ``&`` dropped)."""
    found = []
    for line in text.replace("\\\n", " ").splitlines():
        if PROG not in line:
            continue
        words = shlex.split(line.split(PROG, 1)[1])
        found.append([w for w in words if w != "&"])
    return found


def readme_commands() -> list[list[str]]:
    """The commands in the ```bash blocks of the README and of the docs it points to."""
    text = "\n".join(p.read_text() for p in (ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))))
    blocks = re.findall(r"```bash\n(.*?)```", text, flags=re.S)
    found = [c for block in blocks for c in commands_in(block)]
    assert len(found) >= 12, "the command-line examples of the README and docs/ were not found"
    return found


def page_commands() -> list[list[str]]:
    """The lines the pages show for their default settings (and each model's first audience scenario)."""
    settings = [*warmup.defaults("cpu"), *(job.settings for job in warmup.presentation("cpu"))]
    lines = [cli.command_for(s) for s in settings]
    assert all(lines), "a model page shows no command line"
    battery = BatteryReplaySettings(dim=16, base_seed=0, T=200, seeds=1)
    lines += [battery_cli.rerun_command(battery, tau) for tau in battery.taus]
    lines += [tools.preset_command(presets.PresetRun(preset=name, seeds=1, T=200), "cpu") for name in presets.names()
              if name.startswith("s000-table1")]
    lines.append(tools.sweep_command("sweep.json"))
    return [c for line in lines for c in commands_in(line)]


def app_bundle_commands(folder: Path) -> list[tuple[list[str], Path]]:
    """The command in the README.txt of a bundle the app exports, for each settings kind it exports, with the
    folder it runs in (``folder/<kind>``, holding the bundle's settings.json)."""
    runs = [*warmup.defaults("cpu"), BatteryReplaySettings(dim=16, base_seed=0),
            presets.PresetRun(preset="s000-table1", seeds=1, T=200), small_sweep()]
    found = []
    for s in runs:
        data = export.settings_dict(s)
        kind = data["kind"]
        bundle = export.bundle({}, pd.DataFrame(), data, {}, page=registry.title_of_kind(kind))
        readme = zip_readme(bundle)
        assert f"app's {registry.title_of_kind(kind)} page" in readme
        cmds = commands_in(readme)
        assert len(cmds) == 1, f"the {kind} bundle's README gives no command to run it again"
        with zipfile.ZipFile(io.BytesIO(bundle)) as zf:
            zf.extract(export.SETTINGS_FILE, folder / kind)
        found.append((cmds[0], folder / kind))
    return found


def zip_readme(data: bytes) -> str:
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        return zf.read("README.txt").decode()


def small_sweep() -> sweep.SweepSpec:
    return sweep.SweepSpec("dose", dataclasses.replace(S000_BASE, T=200, seeds=1), xs=(0.1, 0.5))


@pytest.fixture
def workdir(tmp_path, monkeypatch) -> Path:
    """A folder holding the files the shown commands name: ``sweep.json`` and ``my_log.csv`` (the built-in
    synthetic log, its side-effect column called ``toxicity`` as in the README's examples)."""
    (tmp_path / "sweep.json").write_text(json.dumps(export.settings_dict(small_sweep())))
    with resources.files("safebandit_core.logged").joinpath("examples", "dose_log.csv.gz").open("rb") as fh:
        log = pd.read_csv(fh, compression="gzip")
    log.rename(columns={"side_effect": "toxicity"}).to_csv(tmp_path / "my_log.csv", index=False)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def run(argv: list[str], capsys) -> str:
    """Run one command in-process; it must exit 0, and with ``--json`` print exactly one JSON object."""
    capsys.readouterr()
    code = cli.main(argv)
    out, err = capsys.readouterr()
    assert code == 0, f"{shlex.join(argv)} exited {code}: {err.strip()[-500:]}"
    if "--json" in argv:
        doc = json.loads(out)
        assert isinstance(doc, dict), shlex.join(argv)
        if argv[0] not in NOT_RUNS:
            assert jsondoc.problems(doc) == [], shlex.join(argv)
            unnamed = set(doc) - set(jsondoc.ENVELOPE) - own_keys(argv[0])
            assert not unnamed, f"{shlex.join(argv)} prints keys its --help does not name: {unnamed}"
    return out


def own_keys(command: str) -> set[str]:
    """The keys a command's ``--json`` help names beside the shared ones (:func:`safebandit_core.jsondoc.help_for`)."""
    parser = cli.build_parser()._subparsers._group_actions[0].choices[command]
    text = " ".join(next(a.help for a in parser._actions if "--json" in a.option_strings).split())
    named = re.search(r"this command's own keys: ([\w, ]+)", text)
    assert named is not None, f"{command} --help no longer names the keys --json prints"
    return {k.strip() for k in named.group(1).split(",")}


def test_small_rewrites_sizes_and_drops_the_process_flags():
    assert small(["dose", "--T", "10000", "--seeds", "5", "--json"]) == ["dose", "--T", "200", "--seeds", "1",
                                                                        "--json"]
    assert small(["preset", "--preset", "x", "--full"]) == ["preset", "--preset", "x", "--T", "200", "--seeds", "1"]
    assert small(["preset", "--list"]) == ["preset", "--list"]
    assert small(["sweep", "--settings", "s.json", "--coordinator", "HOST:PORT", "--num-processes", "N",
                  "--process-id", "I"]) == ["sweep", "--settings", "s.json"]
    assert distributed_part(["sweep", "--coordinator", "HOST:PORT", "--num-processes", "N", "--process-id", "I"]) \
        == ["sweep", "--coordinator", "127.0.0.1:7311", "--num-processes", "2", "--process-id", "0"]
    assert commands_in(".venv/bin/python -m safebandit_core dose --T 5 \\\n  --json &\nwait") == [
        ["dose", "--T", "5", "--json"]]


def test_every_printed_command_runs(workdir, capsys, monkeypatch):
    shown = [(argv, workdir) for argv in readme_commands() + page_commands()] + app_bundle_commands(workdir)
    multi = [d for d in (distributed_part(argv) for argv, _ in shown) if d is not None]
    assert len(multi) >= 3, "the README's and the sweeps page's several-process lines were not found"
    for argv in multi:  # the several-process lines parse and their flags check (joining needs other processes)
        args = cli.build_parser().parse_args(argv)
        assert clikit.distributed_options(args) is not None, argv
    done: set[tuple[str, ...]] = set()
    for argv, folder in ((small(argv), folder) for argv, folder in shown):
        if tuple(argv) not in done:
            done.add(tuple(argv))
            monkeypatch.chdir(folder)
            run(argv, capsys)
    assert {a[0] for a in done} == set(cli.commands()), "some command is shown nowhere"


def test_the_bundles_the_command_line_writes_name_real_pages_and_commands_that_run(workdir, capsys):
    titles = {p.title for p in registry.PAGES}
    run(["sweep", "--settings", "sweep.json", "--out", "out", "--json"], capsys)
    run(["preset", "--preset", "s000-table1", "--T", "200", "--seeds", "1", "--out", "out"], capsys)
    bundles = sorted((workdir / "out").glob("*.zip"))
    assert len(bundles) == 2
    for path in bundles:
        data = path.read_bytes()
        readme = zip_readme(data)
        (page,) = re.findall(r"app's (.+?) page", readme)
        assert page in titles, f"{path.name} names the page {page!r}, which the app does not have"
        folder = workdir / path.stem
        folder.mkdir()
        with zipfile.ZipFile(io.BytesIO(data)) as zf:
            zf.extract(export.SETTINGS_FILE, folder)
        (argv,) = commands_in(readme)
        kind, _ = export.load_settings(data)
        with pytest.MonkeyPatch.context() as mp:
            mp.chdir(folder)
            doc = json.loads(run(small(argv), capsys))
        assert doc.get("model", doc.get("preset")) is not None, kind


def test_every_json_help_names_the_one_schema():
    choices = cli.build_parser()._subparsers._group_actions[0].choices
    helps = {name: next(a.help for a in p._actions if "--json" in a.option_strings)
             for name, p in choices.items() if name not in NOT_RUNS}
    aliases = {old for names in cli.command_aliases().values() for old in names}
    assert set(helps) == (set(cli.commands()) | aliases) - set(NOT_RUNS)
    for name, text in helps.items():
        assert text.startswith(jsondoc.HELP), name


def test_the_preset_json_is_the_object_its_help_describes(workdir, capsys):
    doc = json.loads(run(["preset", "--preset", "s000-table1", "--T", "200", "--seeds", "1", "--json"], capsys))
    assert set(doc) == set(jsondoc.ENVELOPE) | own_keys("preset") - {"compute_seconds"}  # that one with --resume


def test_the_module_runs_as_a_program():
    res = subprocess.run([sys.executable, "-m", "safebandit_core", "--help"], cwd=ROOT, capture_output=True,
                         text=True, timeout=120)
    assert res.returncode == 0, res.stderr
    assert all(name in res.stdout for name in cli.commands())
