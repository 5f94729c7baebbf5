"""safebandit_core: safe bandit algorithms of two papers, in JAX, for a Python API, a CLI and the app.

The shape: every model kind is a :class:`~safebandit_core.model.Family` (settings, policies,
one composed scan), every run is a :class:`~safebandit_core.model.Run` with outputs shaped
(policy, seed, t); :mod:`safebandit_core.families` is the registry, and ``simulate``, ``run``,
``tidy`` and ``summary`` (re-exported here) work on any family's settings.

- :mod:`.dose`: heteroscedastic dose model (HPC-UCB, On-Expectation, ε-Greedy);
- :mod:`.conservative`: GenCB (CMAB, CLB, CCCB) and its baselines;
- :mod:`.meanvar`: MV-CUCB and MV-UCB;
- :mod:`.battery`: the NASA battery experiment (logged data → fitted environment → dose replay);
- :mod:`.logged`: a user's own log of contexts, doses, benefits and side effects, fitted and replayed;
- :mod:`.sweep`, :mod:`.presets`: grids over any family, sharded across devices; the papers' experiments;
- :mod:`.export`, :mod:`.cli`: bundles and settings files, the command line; :mod:`.viz`: figures;
- :mod:`.device`, :mod:`.runner`, :mod:`.settings`, :mod:`.results`, :mod:`.linalg`: the plumbing.
"""

from . import device, families, model
from .families import run, simulate, summary, tidy

__all__ = ["device", "families", "model", "run", "simulate", "summary", "tidy"]
__version__ = "0.1.0"
