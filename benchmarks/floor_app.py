"""Streamlit's own floor, for ``make bench``: a page with a heading and one line of text, no widget and no chart.

What any Streamlit page costs a browser on this machine (its first visit and its reload), measured in the same run
as the model pages, so that their rows can be read against it (benchmarks/bench_browser.py)."""

import streamlit as st

st.title("A one-line page")
st.markdown("Streamlit's own start-up in the browser, and nothing else.")
