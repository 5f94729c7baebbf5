"""safebandit_core: safe bandit algorithms of two papers, in JAX, for a Python API, a CLI and the app.

- :mod:`safebandit_core.dose`: heteroscedastic dose model (HPC-UCB, On-Expectation, ε-Greedy);
  ``dose.run_on_stream`` replays one policy on an explicit stream;
- :mod:`safebandit_core.conservative`: GenCB (CMAB, CLB, CCCB), MV-CUCB and their baselines;
  ``conservative.run_on_stream`` replays one policy on a pre-drawn outcome table;
- :mod:`safebandit_core.data`: the NASA battery loader, context embedder, fit and experiment;
- :mod:`safebandit_core.presets`, :mod:`safebandit_core.sweep`: the papers' experiments as data,
  and sweeps over settings grids (sharded across devices when several are visible);
- :mod:`safebandit_core.export`: zip bundles of a run and settings files that re-create it;
- :mod:`safebandit_core.device`: devices and precision; :mod:`safebandit_core.viz`: figures.
"""

from . import conservative, device, dose, export, presets, sweep

__all__ = ["conservative", "device", "dose", "export", "presets", "sweep"]
__version__ = "0.1.0"
