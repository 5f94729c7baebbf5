"""Non-linear dose model: HPC-UCB over a finite function class (Safety by Design (2026), §6, Algorithm 2).

Its controls come from the family's fields, the rest from its page spec (:mod:`safebandit_ui.specs.nonlinear`).
"""

from safebandit_ui import stopping

stopping.session_thread()  # first: exit waits for this run, also when Streamlit runs the page without app.py

from safebandit_ui import model_page

model_page.render(
    "nonlinear",
    "Non-linear dose model",
    "The dose model of Safety by Design (2026) with **non-linear** reward and cost functions: the learner knows a "
    "finite class F of candidate functions of the context and must find the true two (§6, Algorithm 2). It fits "
    "each class by least squares, keeps the functions that still fit the data, and doses for the most hopeful "
    "reward and the most pessimistic cost among them.",
)
