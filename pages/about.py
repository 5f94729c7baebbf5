"""About: the papers, what the app implements from them (user-facing), and the device in use."""

from safebandit_ui import stopping

stopping.session_thread()  # first: exit waits for this run, also when Streamlit runs the page without app.py

import streamlit as st

from safebandit_ui import shell

ctx = shell.current()

st.title("About")
st.markdown(
    "This lab re-implements the algorithms of two papers in JAX and lets you run them, change their "
    "settings and watch them learn. Every run is reproducible: the same settings and base seed give the "
    "same numbers, and every policy in a comparison sees exactly the same patients (contexts and noise)."
)

st.subheader("The papers")
st.markdown(
    "1. *Safety by Design (2026)*: A. Pacchiano, *Safety by Design: Realized-Cost Constraints for Contextual "
    "Bandits with Continuous Actions*, arXiv:2608.26755. It introduces **HPC-UCB** "
    "(called HPUCB in its experiments).\n"
    "2. *One-size-fits-all conservative bandits (AAAI 2021)*: Y. Du, S. Wang and L. Huang, *A One-Size-Fits-All "
    "Solution to Conservative Bandit Problems*, AAAI 2021. It introduces **GenCB** (for conservative multi-armed, "
    "linear and combinatorial bandits) "
    "and **MV-CUCB** (for a mean-variance version)."
)

st.subheader("What the dose model does, exactly")
st.markdown(
    "Each round a context $X_t$ (say, a patient's measurements, a unit vector in $d$ dimensions) arrives and "
    "the learner picks a dose $\\alpha_t \\in [0, 1]$. A known, increasing dose curve $g$ turns the dose "
    "into an effect $g(\\alpha_t)$, and the effect scales both the benefit and the side effect, noise included:"
)
st.latex(r"R_t = g(\alpha_t)\,(\langle X_t,\theta^*\rangle + \xi^r_t), \qquad "
         r"C_t = g(\alpha_t)\,(\langle X_t,\mu^*\rangle + \xi^c_t)")
st.markdown(
    "The noises are Gaussian with standard deviations $\\kappa_r$ and $\\kappa_c$, so a bigger dose gives a "
    "bigger *and* more variable cost. The rule is on the realized cost of every round:"
)
st.latex(r"\Pr(C_t \le \tau) \ge 1 - \delta \quad\text{for every round } t.")
st.markdown(
    "- **HPC-UCB** estimates $\\mu^*$ and $\\theta^*$ by ridge regression on the rounds with a non-zero dose, "
    "takes the most pessimistic cost consistent with the data (confidence $1-\\delta'$), adds the noise margin "
    "$b_\\delta = \\kappa_c\\sqrt{2\\log(1/\\delta)}$, and plays the largest dose whose cost then stays below "
    "$\\tau$ — or dose 0 when even the most optimistic reward is negative. Round 1 plays a dose that is safe "
    "whatever the truth.\n"
    "- **On-Expectation** is the expected-cost policy of Pacchiano et al.: it picks a distribution over doses "
    "whose *expected* cost under pessimistic estimates stays below $\\tau$. Since reward and cost both scale "
    "with $g(\\alpha)$, its linear program depends only on $E[g(\\alpha)]$ and is solved by one deterministic "
    "dose: HPC-UCB's rule with $b_\\delta = 0$, which is what runs here. It overshoots often; the paper reports "
    "12 % to 23 % violations for it against 0.02 % for HPC-UCB.\n"
    "- **ε-Greedy** plays the round-1 safe dose with probability ε and HPC-UCB's dose otherwise.\n\n"
    "**Regret** compares with a clairvoyant that knows $\\mu^*$ and $\\theta^*$ and obeys the same rule: it "
    "plays the largest truly safe dose $\\alpha^*_{\\max,t}$ when the true benefit is positive, 0 otherwise. "
    "A round's regret is $(g(\\alpha^*_t) - g(\\alpha_t))\\langle X_t, \\theta^*\\rangle$; it is negative "
    "when a policy doses beyond the truly safe dose $\\alpha^*_{\\max,t}$: it earns more than the clairvoyant "
    "by taking more risk than the rule allows. Such a round is not necessarily a violation (that is the event "
    "$C_t > \\tau$, which depends on the noise), but a policy that does it often violates often: negative regret "
    "is not a gain. Where the paper leaves a choice "
    "open (for instance the noise levels of its synthetic experiment), the app shows the value it uses as a "
    "control you can change."
)

st.subheader("Device in use")
st.markdown(
    f"Runs on this page's session use **{ctx.device_label}** in **{ctx.precision}**, base seed "
    f"**{ctx.base_seed}**. Change them in the sidebar."
)
st.caption("Devices this server sees: " + ", ".join(i.label for i in shell.devices()) + ".")
