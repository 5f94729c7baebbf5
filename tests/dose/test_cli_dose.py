"""The ``dose`` command line: its JSON contract, its files, and one-line messages for bad input."""

from __future__ import annotations

import json
import subprocess
import sys

import pandas as pd
import pytest

from safebandit_core import jsondoc
from tests.conftest import ROOT


def cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "safebandit_core", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=300)


def test_json_contract_and_out_file(tmp_path):
    out = tmp_path / "run.parquet"
    res = cli("dose", "--policy", "hpucb", "--d", "3", "--T", "200", "--tau", "0.5", "--delta", "0.05",
              "--delta-prime", "0.05", "--noise", "0.3", "--seeds", "2", "--device", "cpu", "--json", "--out", str(out))
    assert res.returncode == 0, res.stderr
    doc = json.loads(res.stdout)
    assert jsondoc.problems(doc) == []
    for key in ("d", "T", "seeds", "tau", "delta", "device", "seconds"):
        assert key in doc
    (row,) = doc["rows"]
    for key in ("policy", "violation_rate", "cum_regret_mean", "cum_regret_std", "cum_regret_ci95"):
        assert key in row
    assert row["policy"] == "hpucb" and doc["d"] == 3 and doc["T"] == 200 and doc["seeds"] == 2
    assert 0.0 <= row["violation_rate"] <= 1.0
    assert doc["device"].startswith("cpu")
    frame = pd.read_parquet(out)
    assert len(frame) == 200 * 2
    assert {"policy", "seed", "t", "alpha", "cost", "est_upper", "true_upper", "regret"} <= set(frame.columns)


def test_text_output_and_csv(tmp_path):
    out = tmp_path / "run.csv"
    res = cli("dose", "--policy", "all", "--d", "2", "--T", "50", "--seeds", "1", "--out", str(out))
    assert res.returncode == 0, res.stderr
    assert "violation_rate" in res.stdout
    frame = pd.read_csv(out)
    assert set(frame["policy"]) == {"hpucb", "on_expectation", "eps_greedy"}
    assert set(frame["label"]) == {"HPC-UCB", "On-Expectation", "ε-Greedy"}
    assert list(frame.columns[:5]) == ["kind", "policy", "label", "seed", "t"]


@pytest.mark.parametrize(
    "args,flag,allowed",
    [
        (["--tau", "0"], "--tau", "> 0"),
        (["--tau", "-1"], "--tau", "> 0"),
        (["--delta", "1"], "--delta", "(0, 1)"),
        (["--delta-prime", "0"], "--delta-prime", "(0, 1)"),
        (["--d", "0"], "--d", "[1, 4096]"),
        (["--T", "0"], "--T", "[1, 1000000]"),
        (["--noise", "-0.1"], "--noise", ">= 0"),
        (["--policy", "thompson"], "--policy", "hpucb"),
        (["--g", "power", "--g-power", "20"], "--g-power", "[0.1, 10.0]"),
        (["--g", "emax", "--g-ec50", "0"], "--g-ec50", "(0.0, 10.0]"),
        (["--g", "sigmoid"], "--g", "linear"),
        (["--out", "x.txt"], "--out", ".csv"),
    ],
)
def test_bad_input_exits_2_with_one_line(args, flag, allowed):
    res = cli("dose", *args)
    assert res.returncode == 2
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1, res.stderr
    assert flag in lines[0] and allowed in lines[0]
    assert "Traceback" not in res.stderr and res.stdout == ""
