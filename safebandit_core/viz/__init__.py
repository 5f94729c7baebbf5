"""Pure figure builders: tidy frames in, plotly figures out (no Streamlit, no JAX).

- :mod:`.common`: shared styling, the policy colour map, the mean-with-band line chart and
  decimation for plotting, reused by every page;
- :mod:`.dose`: the dose-model figures (regret, safe interval, realized cost, violation rates,
  slack, the cost distribution at one round, the dose curve);
- :mod:`.conservative`, :mod:`.mv`: GenCB and MV-CUCB figures (regret with min–max band and the
  baseline, reward line, slack, default pulls, the mean–variance plane);
- :mod:`.replay`: the papers' figures re-made, heatmaps of sweeps, theory overlays;
- :mod:`.battery`: the NASA battery data, fit quality and replay.
"""

from . import battery, common, conservative, dose, mv, replay

__all__ = ["battery", "common", "conservative", "dose", "mv", "replay"]
