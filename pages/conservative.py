"""Conservative bandits (One-size-fits-all, AAAI 2021): GenCB against its expected-reward baselines.

Its controls come from the family's fields, the rest from its page spec (:mod:`safebandit_ui.specs.conservative`).
"""

from safebandit_ui import stopping

stopping.session_thread()  # first: exit waits for this run, also when Streamlit runs the page without app.py

from safebandit_ui import model_page

model_page.render(
    "conservative",
    "Conservative bandits: never fall behind the safe default",
    "A learner must try unfamiliar options, but may never fall more than a share α behind what the trusted "
    "**default** would have earned. **GenCB** wraps a standard learner (UCB, LinUCB, C2UCB) and explores only when "
    "even a worthless pull keeps it above that line.",
)
