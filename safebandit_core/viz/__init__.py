"""Pure figure builders: tidy frames in, plotly figures out (no Streamlit, no JAX).

- :mod:`safebandit_core.viz.common`: shared styling, the policy colour map, the mean-with-band
  line chart and decimation for plotting, reused by every page;
- :mod:`safebandit_core.viz.dose`: the dose-model figures (regret, safe interval, realized cost,
  violation rates, slack, the cost distribution at one round, the dose curve).
"""

from . import common, dose

__all__ = ["common", "dose"]
