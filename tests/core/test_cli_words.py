"""What the command line says: every float flag refuses inf and NaN as "a finite number" with its range, one seed
has no spread (null in JSON, said in words), a mean lies between the min and the max, ``--help`` shows every
flag's default, and the readable summary is one aligned table."""

from __future__ import annotations

import argparse
import importlib
import json
import re

import pytest

from safebandit_core import cli, clikit, jsondoc

ONE_PER_FAMILY = ("dose", "nonlinear", "conservative", "meanvar", "battery", "logged")


def float_flags(command: str) -> list[str]:
    """The flags of ``command`` that parse a float."""
    parser = argparse.ArgumentParser()
    importlib.import_module(cli.commands()[command]).add_arguments(parser)
    return [a.option_strings[-1] for a in parser._actions if a.type is float]


FLOAT_FLAGS = [(c, f) for c in ONE_PER_FAMILY for f in float_flags(c)]


def test_every_family_has_float_flags() -> None:
    assert {c for c, _ in FLOAT_FLAGS} == set(ONE_PER_FAMILY) and len(FLOAT_FLAGS) > 30


@pytest.mark.parametrize(("command", "flag"), FLOAT_FLAGS, ids=[f"{c} {f}" for c, f in FLOAT_FLAGS])
@pytest.mark.parametrize("value", ["inf", "-inf", "nan"])
def test_a_non_finite_number_is_refused_as_not_finite(command: str, flag: str, value: str,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main([command, flag, value, "--T", "5", "--seeds", "2"]) == 2  # "-inf" a value, not a flag
    out, err = capsys.readouterr()
    lines = err.strip().splitlines()
    assert out == "" and len(lines) == 1, lines
    named, _, rest = lines[0].removeprefix("error: ").partition(" must be a finite number ")
    assert flag in named.split("/") and rest.endswith(f" (got {value})"), lines[0]  # --noise/--kappa-r names both
    allowed = rest.removesuffix(f" (got {value})")
    assert allowed.startswith(("in [", "in (", ">", "<")), allowed  # the range follows


def run_json(argv: list[str], capsys: pytest.CaptureFixture[str]) -> dict:
    assert cli.main([*argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


@pytest.mark.parametrize("argv", [["dose", "--T", "60", "--policy", "all"],
                                  ["conservative", "--K", "6", "--T", "60"]], ids=["dose", "conservative"])
def test_one_seed_has_no_spread_in_json_and_says_so_in_words(argv: list[str],
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    one = run_json([*argv, "--seeds", "1"], capsys)
    two = run_json([*argv, "--seeds", "2"], capsys)
    assert jsondoc.problems(one) == [] and jsondoc.problems(two) == []
    spreads = {k for r in two["rows"] for k in r if k.endswith(("_std", "_ci95"))}
    assert {"cum_regret_std", "cum_regret_ci95"} <= spreads
    for row in one["rows"]:
        assert {k for k in row if k.endswith(("_std", "_ci95"))} == spreads
        assert all(row[k] is None for k in spreads)
        assert all(row[k] is not None for k in row if k not in spreads)
    for row in two["rows"]:
        assert all(isinstance(row[k], float) for k in spreads if k.endswith("_std"))
        assert all(len(row[k]) == 2 and row[k][0] <= row[k][1] for k in spreads if k.endswith("_ci95"))
    assert cli.main([*argv, "--seeds", "1"]) == 0
    text = capsys.readouterr().out
    assert clikit.NO_SPREAD in text and "cum_regret_std" not in text and "_ci95" not in text
    assert cli.main([*argv, "--seeds", "2"]) == 0
    text = capsys.readouterr().out
    assert clikit.NO_SPREAD not in text and "cum_regret_std" in text and "cum_regret_ci95" in text


def test_one_seed_json_keeps_every_other_number(capsys: pytest.CaptureFixture[str]) -> None:
    """The nulls are the only change: every other figure is the family's summary, digit for digit."""
    from safebandit_core import families
    from safebandit_core.dose.settings import DoseSettings

    doc = run_json(["dose", "--T", "80", "--seeds", "1", "--policy", "all", "--device", "cpu"], capsys)
    frame = families.summary(families.run(DoseSettings(T=80, seeds=1, policies=("hpucb", "on_expectation",
                                                                                 "eps_greedy")), device="cpu"))
    for row, (_, want) in zip(doc["rows"], frame.iterrows(), strict=True):
        for key in ("cum_regret_mean", "violation_rate", "violations", "min_slack"):
            assert row[key] == want[key], key


def test_help_shows_every_flags_default_for_every_command() -> None:
    parser = cli.build_parser()
    commands = parser._subparsers._group_actions[0].choices
    assert set(cli.commands()) <= set(commands)
    for name in cli.commands():
        sub = commands[name]
        formatter = sub._get_formatter()
        text = " ".join(sub.format_help().split())
        for action in sub._actions:
            if not action.option_strings or action.default is argparse.SUPPRESS:
                continue
            shown = formatter._get_help_string(action)
            assert re.search(r"\(default\b|\bdefault:", shown), f"{name} {action.option_strings[-1]}: {shown}"
            if "%(default)s" in shown:
                shown = shown.replace("%(default)s", str(action.default))
            assert " ".join(shown.split()) in text, f"{name} {action.option_strings[-1]}"


def test_help_states_the_default_value_itself() -> None:
    sub = cli.build_parser()._subparsers._group_actions[0].choices["dose"]
    text = " ".join(sub.format_help().split())
    assert "safety threshold tau > 0 (default: 0.5)" in text
    assert "(default hpucb)" in text and "(default hpucb) (default" not in text  # stated once, not twice
    assert "--json print one JSON object" in text and "(default: off)" in text
    assert "reward noise std, overrides --noise (default: not given)" in text


def test_numbers_keep_four_significant_digits_and_shares_read_in_percent() -> None:
    assert [clikit.number_text(x) for x in (29754.53229579584, 1.6046567163905046, 0.012345, -0.44896, 0.0)] == \
        ["29,755", "1.605", "0.01235", "-0.4490", "0"]
    assert clikit.number_text(2079.8570380340266) == "2,080" and clikit.number_text(1.5e12) == "1.500e+12"
    assert clikit.number_text(9.99996) == "10.00" and clikit.number_text(-0.00099996) == "-0.001000"
    assert clikit.number_text(0.1, trim=True) == "0.1" and clikit.number_text(30.0, trim=True) == "30"
    assert clikit.cell_text("violation_rate", 0.02219) == "2.2 %"
    assert clikit.cell_text("violation_rate_ci95", [0.004, 0.0403]) == "[0.4 %, 4.0 %]"
    assert clikit.cell_text("cum_regret_ci95", [28.03, 30.64]) == "[28.03, 30.64]"
    assert [clikit.cell_text("x", v) for v in (True, False, None, 20000, "mlp")] == ["yes", "no", "—", "20,000",
                                                                                      "mlp"]


def test_the_table_aligns_names_left_and_numbers_right() -> None:
    lines = clikit.table([["HPC-UCB", "29.33", "0.0 %"], ["ε-Greedy", "102.8", "12.5 %"]],
                         ["policy", "regret", "violation_rate"])
    assert lines == ["  policy    regret  violation_rate",
                     "  --------  ------  --------------",
                     "  HPC-UCB    29.33           0.0 %",
                     "  ε-Greedy   102.8          12.5 %"]


def test_readable_output_is_one_table_per_command(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["dose", "--T", "60", "--seeds", "2", "--policy", "all"]) == 0
    lines = capsys.readouterr().out.splitlines()
    head = next(i for i, line in enumerate(lines) if line.startswith("  policy "))
    header, rule, rows = lines[head], lines[head + 1], lines[head + 2: head + 5]
    assert set(rule.strip()) == {"-", " "} and [r.split("  ")[1] for r in rows] == ["HPC-UCB", "On-Expectation",
                                                                                     "ε-Greedy"]
    ends = [m.end() for m in re.finditer(r"-+", rule)]
    assert [m.end() for m in re.finditer(r"\S+", header)][1:] == ends[1:]  # every header right-aligned on its rule
    for row in rows:
        assert "=" not in row and "{" not in row
        for end in ends[1:]:
            assert row[end - 1] != " ", row  # every number ends where its column does
        for number in re.findall(r"\d[\d,]*\.?\d*(?:e[+-]\d+)?", row):
            digits = number.replace(",", "").replace(".", "").lstrip("0").split("e")[0]
            assert len(digits) <= clikit.SIGNIFICANT or "." not in number, number


@pytest.mark.parametrize("value", ["-0.001", "-1e-3", "-.5", "-2E+1"])
def test_a_negative_number_in_any_notation_is_a_value(value: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["dose", "--tau", value]) == 2
    assert capsys.readouterr().err.strip() == f"error: --tau must be > 0 (got {float(value)})"
