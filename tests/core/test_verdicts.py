"""The paper-vs-run verdicts on small hand-made inputs (no run): C1's bands and stated tolerance, C5's
level-off test, the paper table's per-row position, the ``replay`` lines' units, and the command line's
words (the papers by title, never by a seed number)."""

from __future__ import annotations

import ast
import json
import re

import pandas as pd
import pytest

from safebandit_core import cli, clikit, preset_cli, presets, theory
from safebandit_core.conservative import presets as conservative_presets
from safebandit_core.dose import presets as dose_presets
from tests.conftest import ROOT

SEED_NAME = re.compile(r"seed[ _-]?00[01]", re.IGNORECASE)
TABLE1 = presets.get("s000-table1")
HP, OE = (next(n for n in TABLE1.paper_numbers if n.policy == p) for p in ("hpucb", "on_expectation"))


def rates(values: list[float], hi: float | None = None, delta: float = 0.01) -> pd.DataFrame:
    """Per-cell rows of one policy: violation rate, its 95 % upper end and δ."""
    return pd.DataFrame({"violation_rate": values, "violation_rate_hi": [hi if hi is not None else v for v in values],
                         "delta": delta})


def test_c1_counts_rows_against_the_papers_band_and_states_its_tolerance():
    hp = rates([0.0001, 0.0003, 0.0002, 0.0004], hi=0.002)
    oe = rates([0.14, 0.20, 0.25, 0.28])  # two within 12–23 %, two above, all within what the verdict accepts
    v = dose_presets.violation_verdict(hp, oe, 10_000, HP, OE)
    assert v.verdict == presets.CONSISTENT
    assert "2 within, 2 above of 4 rows" in v.ours and "12 % – 23 %" in v.ours
    assert "10 % – 30 %" in v.why and "≤ 0.1 %" in v.why  # the tolerance the verdict used, in its words

    outside = dose_presets.violation_verdict(hp, rates([0.14, 0.35]), 10_000, HP, OE)
    assert outside.verdict == presets.INCONSISTENT and "outside 10 % – 30 %" in outside.why
    assert "1 within, 1 above" in outside.ours
    hp_bad = dose_presets.violation_verdict(rates([0.0001, 0.002]), oe, 10_000, HP, OE)
    assert hp_bad.verdict == presets.INCONSISTENT and "HPC-UCB above 0.1 %" in hp_bad.why
    early = dose_presets.violation_verdict(hp, rates([0.05, 0.15]), 1000, HP, OE)
    assert early.verdict == presets.NOT_SHOWN and "1 below" in early.ours


def test_paper_number_positions_and_units():
    assert [OE.position(v) for v in (0.11, 0.12, 0.2, 0.23, 0.25)] == ["below", "within", "within", "within", "above"]
    assert OE.accepted == (0.10, 0.30) and HP.accepted == (0.0, 0.001)
    plain = presets.PaperNumber("gencb", "cum_regret", "100", 90.0, 110.0, "")
    assert plain.accepted == (90.0, 110.0)
    assert presets.format_value("violation_rate", 0.0002) == "0.02 %"
    assert presets.format_value("cum_regret", 1234.5) == "1234"
    assert presets.format_range("violation_rate", 0.1, 0.3) == "10 % – 30 %"


def n0(half: list[float], end: list[float]) -> pd.DataFrame:
    return pd.DataFrame({"half": half, "end": end})


def test_c5_tests_the_papers_claim_not_the_baselines_growth():
    flat = n0([3994.0, 2100.0], [3994.0, 2100.0])
    # The false verdict of before: the baseline levelled off too (ratio 1.0), which the paper does not deny.
    base_flat = n0([76_000.0, 50_000.0], [76_368.0, 50_100.0])
    v = conservative_presets.default_pulls_verdict(flat, base_flat, "ConUCB", short=False)
    assert v.verdict == presets.CONSISTENT, v
    assert "1.00–1.00" in v.ours and "3,047 vs ConUCB 63,234" in v.ours
    assert "10 %" in v.why and "below ConUCB's in every cell" in v.why

    more = conservative_presets.default_pulls_verdict(flat, n0([100.0, 3000.0], [200.0, 5000.0]), "ConUCB", short=False)
    assert more.verdict == presets.INCONSISTENT and "1 of 2 cells" in more.why

    growing = n0([1000.0, 2000.0], [1500.0, 2050.0])  # the first cell grew by 50 %
    short = conservative_presets.default_pulls_verdict(growing, base_flat, "ConUCB", short=True)
    assert short.verdict == presets.NOT_SHOWN
    late = conservative_presets.default_pulls_verdict(growing, base_flat, "ConUCB", short=False)
    assert late.verdict == presets.INCONSISTENT and "1 of 2 cells" in late.why and "1.50" in late.ours

    few = n0([2.0], [3.0])  # one more pull on a tiny count still counts as levelled off
    assert conservative_presets.default_pulls_verdict(few, None, None, short=False).verdict == presets.CONSISTENT


def summary_rows(values: dict[str, float]) -> pd.DataFrame:
    rows = []
    for policy, value in values.items():
        number = HP if policy == "hpucb" else OE
        rows.append({"preset": "s000-table1", "cell": 0, "policy": policy, "label": policy,
                     "settings": json.dumps({"d": 5, "tau": 0.1, "T": 10_000, "seeds": 5}), "metric": "violation_rate",
                     "value": value, "ci_low": value / 2, "ci_high": value * 2, "paper_value": number.text,
                     "paper_low": number.low, "paper_high": number.high})
    return pd.DataFrame(rows)


def test_paper_table_says_where_each_row_lies_and_what_the_verdict_accepts():
    table = presets.paper_table(summary_rows({"hpucb": 0.0001, "on_expectation": 0.25}))
    assert list(table["vs the paper"]) == ["below", "above"]
    assert list(table["the verdict accepts"]) == ["0 % – 0.1 %", "10 % – 30 %"]
    assert list(table["this run"]) == ["0.01 %", "25 %"] and table["95 % interval"][1] == "12.5 % – 50 %"


def test_replay_lines_print_rates_in_percent_beside_the_papers_percent(capsys):
    rows = presets.summary_rows(summary_rows({"hpucb": 0.0003, "on_expectation": 0.2}))
    preset_cli._print_table(["head"], rows)
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "head" and out[1].split() == ["settings", "policy", "metric", "value", "95", "%", "CI", "paper",
                                                   "ours"]
    cells = [re.split(r"\s{2,}", line.strip()) for line in out[3:]]
    assert cells[0][2:] == ["violation_rate", "0.03 %", "[0.015 %, 0.06 %]", "0.02 %", "above"], cells[0]
    assert "0.0003" not in out[3]
    assert cells[1][2:] == ["violation_rate", "20 %", "[10 %, 40 %]", "12 % – 23 % (range over τ)", "within"], cells[1]
    assert len({line.index("violation_rate") for line in out[3:]}) == 1  # one column, aligned
    preset_cli._print_table([], rows, one_seed=True)
    out = capsys.readouterr().out.splitlines()
    assert re.split(r"\s{2,}", out[2].strip())[4] == "—" and out[-1] == f"  {clikit.NO_SPREAD}"


@pytest.mark.parametrize("command", [None, *cli.commands()])
def test_help_texts_name_the_papers_by_title(command, capsys):
    with pytest.raises(SystemExit):
        cli.main(["--help"] if command is None else [command, "--help"])
    text = capsys.readouterr().out
    assert "usage" in text and not SEED_NAME.search(text), text


def test_no_user_visible_string_of_the_core_names_a_paper_by_seed_number():
    """Every string constant of the package but docstrings (those are for readers of the code)."""
    found = []
    for path in sorted((ROOT / "safebandit_core").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        docs = {id(node.body[0].value) for node in ast.walk(tree)
                if isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
                and node.body and isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant)}
        found += [f"{path.name}:{node.lineno}" for node in ast.walk(tree)
                  if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docs
                  and SEED_NAME.search(node.value)]
    assert found == [], found


def test_the_theory_overlay_flags_a_slope_far_from_a_half_and_says_where_it_goes():
    note = theory.slope_note(0.70, 4000)
    assert note is not None and "0.70 at T = 4,000" in note and "burn-in" in note
    assert "0.56 at T = 10,000" in note and "d = 5" in note
    assert theory.slope_note(0.56, 10_000) is None and theory.slope_note(0.45, 10_000) is None
    low = theory.slope_note(0.30, 10_000)
    assert low is not None and "below ½" in low and "upper bound" in low
    assert "No slope" in theory.slope_note(float("nan"), 1000)
