"""Dose model: HPC-UCB against On-Expectation and ε-Greedy under a realized-cost constraint (Safety by Design).

Its controls come from the dose family's fields, the rest from its page spec (:mod:`safebandit_ui.specs.dose`).
"""

from safebandit_ui import stopping

stopping.session_thread()  # first: exit waits for this run, also when Streamlit runs the page without app.py

from safebandit_ui import model_page

model_page.render(
    "dose",
    "Dose model: safe by design",
    "Each round a patient arrives and the learner picks a dose α_t ∈ [0, 1]. The dose scales both "
    "the benefit and the side effect, **noise included**, so a bigger dose is riskier twice over. **HPC-UCB** keeps "
    "each round's realized side effect below τ with probability 1 − δ; **On-Expectation** only keeps its average "
    "below τ; **ε-Greedy** mixes in a known-safe dose.",
)
