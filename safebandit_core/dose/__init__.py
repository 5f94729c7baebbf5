"""The heteroscedastic dose model of seed 000: HPC-UCB, On-Expectation and ε-Greedy."""

from .curves import KINDS as CURVE_KINDS
from .policies import LABELS, NAMES
from .sim import DoseSettings, run, run_on_stream, simulate, summary, tidy_frame, warnings_for

__all__ = ["CURVE_KINDS", "LABELS", "NAMES", "DoseSettings", "run", "run_on_stream", "simulate", "summary",
           "tidy_frame", "warnings_for"]
