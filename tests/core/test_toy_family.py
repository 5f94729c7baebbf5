"""A family defined in the tests gets the command line, sweeps, export, the warm-up and the conformance suite by
registering it, with no other edit (the design's test of "a family is its folder plus one registry entry")."""

from __future__ import annotations

import inspect
import json
import shlex

import pytest

from safebandit_core import cli, export, families, jsondoc, lessons, presets, sweep
from safebandit_core.settings import to_dict, to_json
from safebandit_ui import registry, warmup
from tests.core import test_conformance as conformance
from tests.toy import FAMILY, ToySettings, registered

SMALL = FAMILY.example


@pytest.fixture
def toy():
    """The toy family registered for one test, and removed again after it."""
    with registered() as fam:
        yield fam
    assert FAMILY.kind not in families.FAMILIES


def test_registration_is_undone():
    assert FAMILY.kind not in families.FAMILIES and "toy" not in cli.commands()


def test_a_registered_family_gets_a_command(toy, capsys):
    assert cli.commands()["toy"] == "tests.toy.cli"
    line = cli.command_for(SMALL)
    assert line == "python -m safebandit_core toy --T 60 --seeds 2 --base-seed 5 --json"
    assert cli.main(shlex.split(line)[3:]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["kind"] == "toy" and out["T"] == 60 and jsondoc.problems(out) == []
    assert [r["policy"] for r in out["rows"]] == ["greedy", "first"]
    run = families.run(SMALL)
    assert [r["cum_regret_mean"] for r in out["rows"]] == families.summary(run)["cum_regret_mean"].tolist()
    assert "toy" in cli.build_parser().format_help()


def test_a_registered_family_sweeps(toy):
    spec = sweep.SweepSpec("toy", toy.sweep_base(), (0.3, 0.4), (0.6, 0.7))
    assert spec.axes == ("p0", "p1") and sweep.SweepSpec.from_dict(spec.to_dict()) == spec
    result = sweep.run_sweep(spec)
    cells = sweep.cell_summary(result)
    assert len(cells) == 4 * len(toy.policies(spec.base))
    single = families.summary(families.run(ToySettings(p0=0.4, p1=0.7, T=50, seeds=2)))
    last = cells[(cells["p0"] == 0.4) & (cells["p1"] == 0.7)]
    assert last["cum_regret_mean"].tolist() == pytest.approx(single["cum_regret_mean"].tolist(), rel=1e-9)
    assert cli.command_for(spec) == "python -m safebandit_core sweep --settings settings.json --json"


def test_a_registered_familys_presets_are_found_beside_its_settings(toy):
    """``tests/toy/presets.py`` is read because the family is registered, and runs and gives its verdict like a
    paper's preset; unregistered, the family's presets are gone again."""
    assert presets.names()[-1] == "toy-gap" and "toy_greedy_wins" in presets.checks()
    result = presets.run_preset(presets.PresetRun.quick("toy-gap"))
    table = presets.claim_table(result)
    assert table["claim"].tolist() == ["T1"] and table["verdict"].tolist() == [presets.CONSISTENT]
    assert len(result.cell_summary()) == 2 * 2
    families.unregister(FAMILY.kind)
    assert "toy-gap" not in presets.names()
    families.register(FAMILY)


def test_a_registered_familys_lesson_scenes_are_found_beside_its_settings(toy):
    """``tests/toy/lessons.py`` joins the lecture after the shipped scenes, and its claims are computed from its
    runs; unregistered, it is gone again."""
    assert lessons.scenes()[-1].slug == "toy-gap" and lessons.scenes()[0].slug == lessons.LECTURE[0]
    scene = lessons.by_slug()["toy-gap"]
    runs = lessons.compute(scene)
    claims = [c for step in (0, 1) for c in scene.notice(runs, step)]
    assert [c.key for c in claims] == ["greedy_wins_0", "greedy_wins_1"] and all(c.holds for c in claims)
    families.unregister(FAMILY.kind)
    assert "toy-gap" not in lessons.by_slug()
    families.register(FAMILY)


def test_a_registered_family_exports_and_restores(toy):
    run = families.run(SMALL)
    frame, summary = families.tidy(run), families.summary(run)
    data = export.bundle({"per_round": frame}, summary, export.settings_dict(SMALL), {})
    assert export.read_bundle(data).settings == to_dict(SMALL)
    assert export.load_settings(data) == ("toy", SMALL)
    assert export.load_settings(to_json(SMALL)) == ("toy", SMALL)
    untagged = {k: v for k, v in to_dict(SMALL).items() if k != "kind"}
    assert export.load_settings(json.dumps(untagged)) == ("toy", SMALL)
    assert "toy" in export.kinds() and export.rerun_command(to_dict(SMALL)) == cli.command_for(SMALL)
    assert registry.title_of_kind("toy") == "matching"  # no page: item 4's generic renderer would give it one


def test_a_registered_family_is_warmed_up(toy):
    warm = [s for s in warmup.defaults("cpu") if isinstance(s, ToySettings)]
    assert warm == [ToySettings(base_seed=0, precision="float64")]


CHECKS = [f for name, f in vars(conformance).items()
          if name.startswith("test_") and list(inspect.signature(f).parameters) == ["case"]]
"""Every check of the conformance suite that takes one family's case."""


def test_every_conformance_check_is_run():
    assert len(CHECKS) >= 7


@pytest.mark.parametrize("check", CHECKS, ids=lambda f: f.__name__.removeprefix("test_"))
def test_a_registered_family_passes_the_conformance_suite(toy, check):
    check((toy, SMALL, families.run(SMALL)))
