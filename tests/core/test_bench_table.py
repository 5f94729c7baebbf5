"""``python -m benchmarks --markdown``: the bench's rows as the README's Markdown table."""

from __future__ import annotations

from benchmarks.__main__ import markdown


def test_rows_become_one_markdown_table_with_every_column():
    rows = [{"benchmark": "browser: dose: reload", "seconds": 1.534, "target_s": 0.7, "met": "NO",
             "note": "in view 1.16 s"},
            {"benchmark": "browser: nonlinear: size", "seconds": float("inf"), "target_s": "-", "met": "-",
             "note": "Class size |F| → 63"},
            {"benchmark": "core vs per-round Cholesky", "setting": "d=8", "seconds": 0.05}]
    assert markdown(rows).splitlines() == [
        "| benchmark | seconds | target_s | met | note | setting |",
        "|---|---|---|---|---|---|",
        "| browser: dose: reload | 1.53 | 0.70 | NO | in view 1.16 s | - |",
        "| browser: nonlinear: size | inf | - | - | Class size \\|F\\| → 63 | - |",
        "| core vs per-round Cholesky | 0.05 | - | - | - | d=8 |",
    ]
