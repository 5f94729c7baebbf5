"""What the command line says: every float flag refuses inf and NaN as "a finite number" with its range, one seed
has no spread (null in JSON, said in words), a mean lies between the min and the max, ``--help`` shows every
flag's default, and the readable summary is one aligned table."""

from __future__ import annotations

import argparse
import importlib

import pytest

from safebandit_core import cli

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
    assert cli.main([command, f"{flag}={value}", "--T", "5", "--seeds", "2"]) == 2
    out, err = capsys.readouterr()
    lines = err.strip().splitlines()
    assert out == "" and len(lines) == 1, lines
    named, _, rest = lines[0].removeprefix("error: ").partition(" must be a finite number ")
    assert flag in named.split("/") and rest.endswith(f" (got {value})"), lines[0]  # --noise/--kappa-r names both
    allowed = rest.removesuffix(f" (got {value})")
    assert allowed.startswith(("in [", "in (", ">", "<")), allowed  # the range follows
