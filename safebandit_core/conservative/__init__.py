"""Conservative bandits of One-size-fits-all (sample-path reward constraint): GenCB on CMAB, CLB and CCCB, and its
baselines.

- :mod:`.settings`: :class:`ConservativeSettings` and the registries (problems, policies, labels);
- :mod:`.instances`: the problem instance of a settings (means, features, derived μ_0);
- :mod:`.gencb`: the GenCB wrapper (Algorithm 1) and its rule; :mod:`.baselines`: the other rules;
- :mod:`.cmab`, :mod:`.clb`, :mod:`.cccb`, :mod:`.ridge`: the standard policies UCB, LinUCB, C2UCB;
- :mod:`.env`: Bernoulli (or given) outcomes and the feedback rule;
- :mod:`.family`: the :class:`~safebandit_core.model.Family` and :func:`run_on_stream` (one policy on
  an explicit, pre-drawn table of outcomes).
"""

from .. import exports

_EXPORTS = {
    "FAMILY": ".family", "decode_super": ".family", "run_on_stream": ".family", "Instance": ".instances",
    "describe_instance": ".instances", "make_instance": ".instances", "BASELINE": ".settings",
    "ConservativeSettings": ".settings", "LABELS": ".settings", "MAX_CCCB_ARMS": ".settings",
    "POLICIES": ".settings", "PROBLEMS": ".settings", "UNCONSTRAINED": ".settings"
}
__all__ = sorted(_EXPORTS)
__getattr__, __dir__ = exports(__name__, _EXPORTS)
