"""Conservative mean-variance bandits, MV-CBP (One-size-fits-all, AAAI 2021, §4): MV-CUCB against MV-UCB.

Its controls come from the family's fields, the rest from its page spec (:mod:`safebandit_ui.specs.meanvar`).
"""

from safebandit_ui import stopping

stopping.session_thread()  # first: exit waits for this run, also when Streamlit runs the page without app.py

from safebandit_ui import model_page

model_page.render(
    "meanvar",
    "Mean-variance bandits: safe and steady",
    "When a steady outcome matters as much as a good one (a portfolio, a dosing schedule), the learner scores arms "
    "by **mean-variance** and must keep its own run's mean-variance close to that of a known, riskless "
    "**default**. **MV-CUCB** does so with certainty when ρ is large enough; **MV-UCB** learns without the rule.",
)
