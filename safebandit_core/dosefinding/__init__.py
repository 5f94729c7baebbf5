"""Phase-I dose finding (CLINICAL.md): 3+3, BOIN and CRM, vectorised over trials on common random numbers.

- :mod:`.rules`: BOIN's boundaries and the CRM's skeleton and grid (host-side, float64);
- :mod:`.designs`: the three designs as jitted JAX scans over cohorts, ``vmap``-ed over trials;
- :mod:`.scenarios`: a truth vector as given, or derived from the heteroscedastic dose model;
- :mod:`.oc`: operating characteristics with Monte-Carlo intervals;
- :mod:`.api`: :func:`simulate` (the Python entry point) and one trial's path;
- :mod:`.bandit`: HPC-UCB beside the designs on the dose model's patients;
- :mod:`.table`: the operating characteristics as the page shows them and as their CSV;
- :mod:`.cli`: ``python -m safebandit_core dosefinding``.
"""

from .. import exports

_EXPORTS = {"simulate": ".api", "DoseFindingResult": ".api", "TrialPath": ".api", "DESIGNS": ".designs",
            "truth_from_dose_model": ".scenarios", "true_mtd": ".scenarios"}
__all__ = sorted(_EXPORTS)
__getattr__, __dir__ = exports(__name__, _EXPORTS)
