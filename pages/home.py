"""Home: what a safe bandit is, in plain words, and a link to every page."""

from safebandit_ui import stopping

stopping.session_thread()  # first: exit waits for this run, also when Streamlit runs the page without app.py

import streamlit as st

from safebandit_ui import registry, shell

shell.require_entrypoint()
st.title("safebandit lab")
st.markdown(
    "A **bandit algorithm** learns by trying. Every round it picks an action — a dose, a treatment, an "
    "advert — sees what came of it, and uses that to choose better next time. The catch is that it must "
    "try things it is unsure about in order to learn.\n\n"
    "A **safe bandit** learns under a rule that has to hold *while* it learns, not only on average at the "
    "end. In a dose-finding study, for example, each patient's side effect (the *cost*) should stay below "
    "a limit τ. An algorithm that only keeps the *average* cost below τ can still overshoot often, because "
    "larger doses make outcomes more variable as well as larger. The algorithms here keep the *realized* "
    "cost of each round below τ with high probability while they learn which dose works best."
)
st.markdown(
    "Two numbers tell a run's story on every page: **regret** (how much reward was lost against a "
    "clairvoyant that knows the truth and obeys the same rule; lower is better, and flat means it has "
    "learned) and the **violation rate** (how often the rule was broken; it should stay below the allowed δ)."
)

st.subheader("The pages")
for section, pages in registry.grouped().items():
    shown = [p for p in pages if not p.default]
    if not shown:
        continue
    st.markdown(f"**{section}**")
    for p in shown:
        st.page_link(p.path, label=p.title, icon=p.icon)
        st.caption(p.blurb)

st.info(
    "The sidebar's **Compute** settings (device, precision, base seed) apply to every page. Every page's "
    "settings are stored in the address bar, so copying the link shares exactly what you see.",
    icon=":material/lightbulb:",
)
