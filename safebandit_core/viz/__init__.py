"""Pure figure builders: tidy frames in, plotly figures out (no Streamlit).

- :mod:`.common`: shared styling, the policy colour map, the mean-with-band line chart and
  decimation for plotting, reused by every page;
- :mod:`.dose`: the dose-model figures (regret, safe interval, realized cost, violation rates,
  slack, the cost distribution at one round, the dose curve);
- :mod:`.conservative`, :mod:`.meanvar`: GenCB and MV-CUCB figures (regret with min–max band and the
  baseline, reward line, slack, default pulls, the mean–variance plane);
- :mod:`.presets`: the papers' figures re-made, heatmaps of sweeps, theory overlays;
- :mod:`.nonlinear`: the non-linear dose model's figures (the confidence set of candidate functions);
- :mod:`.steps`: the step-through of one run, played in the browser from plotly frames;
- :mod:`.scrub`: a safety knob scrubbed in the browser between precomputed frames;
- :mod:`.battery`: the NASA battery data, fit quality and replay;
- :mod:`.logged`: a log's fit (observed against predicted, residuals against the dose);
- :mod:`.dosefinding`: the clinical designs side by side (doses chosen, patients per dose, one trial's path).

Import the module a figure comes from (``from safebandit_core.viz import dose as vd``): this package imports
none of them itself. Every module takes frames and plain numbers only and imports no JAX, directly or through
another local module (tests/core/test_boundaries.py follows every import); the core's simulation modules import
no figure module.
"""
