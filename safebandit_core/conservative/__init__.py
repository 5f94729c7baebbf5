"""Conservative bandits of seed 001 (sample-path reward constraint): GenCB on CMAB, CLB and CCCB, and its baselines.

- :mod:`.settings`: :class:`ConservativeSettings` and the registries (problems, policies, labels);
- :mod:`.instances`: the problem instance of a settings (means, features, derived μ_0);
- :mod:`.gencb`: the GenCB wrapper (Algorithm 1) and its rule; :mod:`.baselines`: the other rules;
- :mod:`.cmab`, :mod:`.clb`, :mod:`.cccb`, :mod:`.ridge`: the standard policies UCB, LinUCB, C2UCB;
- :mod:`.env`: Bernoulli (or given) outcomes and the feedback rule;
- :mod:`.family`: the :class:`~safebandit_core.model.Family` and :func:`run_on_stream` (one policy on
  an explicit, pre-drawn table of outcomes).
"""

from .family import FAMILY, decode_super, run_on_stream
from .instances import Instance, describe_instance, make_instance
from .settings import BASELINE, LABELS, MAX_CCCB_ARMS, POLICIES, PROBLEMS, UNCONSTRAINED, ConservativeSettings

__all__ = ["BASELINE", "FAMILY", "LABELS", "MAX_CCCB_ARMS", "POLICIES", "PROBLEMS", "UNCONSTRAINED",
           "ConservativeSettings", "Instance", "decode_super", "describe_instance", "make_instance", "run_on_stream"]
