"""Benchmarks for ``make bench``: every ``bench_*`` module's ``bench(quick)`` rows in one table."""
