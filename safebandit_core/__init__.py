"""safebandit_core: safe bandit algorithms of two papers, in JAX, for a Python API, a CLI and the app.

- :mod:`safebandit_core.dose`: heteroscedastic dose model (HPC-UCB, On-Expectation, ε-Greedy);
- :mod:`safebandit_core.conservative`: GenCB, MV-CUCB and their baselines;
- :mod:`safebandit_core.device`: devices and precision.
"""

from . import device

__all__ = ["device"]
__version__ = "0.1.0"
