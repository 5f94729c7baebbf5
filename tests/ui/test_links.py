"""Links with values a control cannot take: the page runs, one note names each ignored value and what the control
takes, the value leaves the URL, and the valid parts of the link stay."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st_
from streamlit.testing.v1 import AppTest

from safebandit_core.conservative import ConservativeSettings
from safebandit_ui import links, registry, scrub, shell
from tests.ui.helpers import ROOT, app

pytestmark = pytest.mark.usefixtures("fresh_module_caches")
DOSE = "pages/dose.py"
GARBAGE = ["inf", "-inf", "nan", "1e309", "-1e309", "", "DROP", "1" * 5000, "0x1f", "[1](https://x.example)", "1.5e"]


def notes(at: AppTest) -> str:
    """The text of every warning on the page."""
    return "\n".join(w.value for w in at.warning)


def params(at: AppTest) -> dict:
    return dict(at.query_params)


def open_with(link: dict, page: str | None = None, state: dict | None = None) -> AppTest:
    """``app.py`` opened at ``page`` (as the URL ``/page?link`` does) with widget values ``state``."""
    at = app(state)
    for k, v in link.items():
        at.query_params[k] = v
    if page:
        at.switch_page(page)
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    return at


def test_home_with_a_non_finite_base_seed_runs_and_says_what_was_ignored():
    at = open_with({shell.SEED_KEY: "inf", shell.PRECISION_KEY: "float32"})
    assert at.title[0].value == "safebandit lab"
    assert "Ignored `base_seed=inf` from the link: **Base seed** is a whole number from 0 to " \
           f"{shell.MAX_BASE_SEED:,}." in notes(at)
    assert shell.SEED_KEY not in params(at)
    assert at.sidebar.number_input(key=shell.SEED_KEY).value == 0
    assert at.sidebar.selectbox(key=shell.PRECISION_KEY).value == "float32"  # the valid part stays


@pytest.fixture(scope="module")
def dose_from_a_bad_link() -> AppTest:
    """The dose page from one link with a bad value for each kind of control, and some good ones."""
    link = {"T": "inf", "seeds": "1e309", shell.SEED_KEY: "inf", "kappa_r": "nan", "delta": "0.9", "g": "cubic",
            "policies": ["hpucb", "DROP"], "band": "minmax", "d": "6"}
    return open_with(link, DOSE, {"T": 1000})


def test_non_finite_integers_are_ignored_and_named_with_their_range(dose_from_a_bad_link):
    at, text = dose_from_a_bad_link, notes(dose_from_a_bad_link)
    assert "Ignored `T=inf` from the link: **Rounds T** is a whole number from 100 to 1,000,000." in text
    assert "Ignored `seeds=1e309` from the link: **Runs** is a whole number from 1 to 1,000." in text
    assert "Ignored `base_seed=inf`" in text
    assert at.number_input(key="T").value == 1000 and at.number_input(key="seeds").value == 5


def test_a_nan_and_an_out_of_range_slider_value_are_ignored(dose_from_a_bad_link):
    at, text = dose_from_a_bad_link, notes(dose_from_a_bad_link)
    assert "Ignored `kappa_r=nan` from the link: **Benefit noise** is a number from 0 to 1." in text
    assert "Ignored `delta=0.9` from the link: **Allowed violation probability δ** is a number from 0.005 to " \
           "0.5." in text
    assert at.slider(key="delta").value == 0.05 and not {"kappa_r", "delta"} & set(params(at))


def test_a_bad_option_is_ignored_and_a_good_one_among_bad_ones_stays(dose_from_a_bad_link):
    at, text = dose_from_a_bad_link, notes(dose_from_a_bad_link)
    assert "Ignored `g=cubic` from the link: **Shape** is one of linear: g(α) = α, power: g(α) = αᵖ, Emax" in text
    assert "Ignored `policies=DROP` from the link: **Compare** is any of HPC-UCB, On-Expectation, ε-Greedy." in text
    assert "policies=hpucb" not in text
    assert at.multiselect(key="policies").value == ["hpucb"]
    assert at.radio(key="band").value == "minmax" and at.number_input(key="d").value == 6


def test_one_note_lists_every_ignored_value_and_the_url_keeps_only_the_good_ones(dose_from_a_bad_link):
    at = dose_from_a_bad_link
    assert len([w for w in at.warning if "from the link" in w.value]) == 1
    assert len(re.findall("Ignored `", notes(at))) == 7
    kept = params(at)
    assert not {"seeds", shell.SEED_KEY, "g", "kappa_r", "delta"} & set(kept)
    assert kept["T"] == "1000"  # the widget's own value (set in the session), no longer the link's
    assert kept["policies"] in ("HPC-UCB", ["HPC-UCB"])


def test_a_long_value_is_echoed_cut_and_never_as_markdown():
    at = open_with({shell.SEED_KEY: "[x](https://example.org)" + "9" * 10_000})
    text = notes(at)
    assert "`base_seed=[x](https://example.org)…`" in text and len(text) < 300


def test_presentation_words_are_a_switch_not_an_error():
    at = open_with({shell.PRESENT_KEY: "maybe"})
    assert "Ignored `present=maybe` from the link: **Presentation mode** is true or false." in notes(at)
    assert not at.sidebar.toggle(key=shell.PRESENT_KEY).value


# The rules themselves, for every kind of control, over any text.

RULES = {
    "integer": links.numbers(True, 100, 100_000),
    "float": links.numbers(False, 0.001, 0.5),
    "range": links.numbers(False, 0.0, 1.0, count=2),
    "select": links.choices(("a", "b"), {"a": "A", "b": "B"}.get),
    "multi": links.choices(("a", "b"), {"a": "A", "b": "B"}.get, many=True, limit=1),
    "switch": links.switch(),
    "text": links.text(40),
}


@given(st_.sampled_from(sorted(RULES)), st_.lists(st_.one_of(st_.sampled_from(GARBAGE), st_.text(max_size=50)),
                                                   min_size=1, max_size=3))
def test_a_rule_keeps_only_values_the_control_takes(name, values):
    kept, bad = RULES[name].accept(values)
    again, none = RULES[name].accept(kept) if kept else ([], [])
    assert again == kept and none == []  # what is kept passes again, unchanged
    for v in kept:
        if name in ("integer", "float", "range"):
            x = float(v)
            assert x == x and abs(x) != float("inf")
            assert (100 <= x <= 100_000 and x.is_integer()) if name == "integer" else 0 <= x <= 1
    if name in ("select", "multi"):
        assert set(kept) <= {"A", "B"} and len(kept) <= 1
    assert bad or kept


def test_rules_for_each_number_form():
    whole = links.numbers(True, 1, 1000)
    assert whole.accept(["1e3"]) == (["1000"], []) and whole.accept(["2.5"]) == ([], ["2.5"])
    assert whole.accept(["1e309"]) == ([], ["1e309"]) and whole.accept(["1001"]) == ([], ["1001"])
    assert links.numbers(False, 0, 1).accept(["nan"]) == ([], ["nan"])
    assert links.choices((1, 2, 5), lambda k: f"{k} × T").accept(["5"]) == (["5 × T"], [])
    assert links.switch().accept(["ON"]) == (["true"], [])


def test_every_url_bound_widget_goes_through_links():
    """A widget bound with a bare ``bind="query-params"`` would read the link unchecked."""
    sources = [ROOT / "app.py", *sorted((ROOT / "pages").glob("*.py")), *sorted((ROOT / "safebandit_ui").glob("*.py"))]
    raw = [str(p.relative_to(ROOT)) for p in sources if p.name != "links.py" and 'bind="query-params"' in p.read_text()]
    assert raw == []


@pytest.mark.slow
@pytest.mark.parametrize("page", [p.path for p in registry.PAGES])
def test_every_bound_control_of_every_page_survives_garbage(page, monkeypatch, streamlit_warnings):
    """Each page's bound keys (recorded from a first visit) with garbage values: no error, and each rejection of a
    control drawn in that run named (a control may not be drawn: ``?policies=`` empties a selection, and the page
    then asks for one instead of drawing its results). The first visit, as a new visitor opens the page's address
    (no state, no URL parameters), logs no Streamlit warning: not the "created with a default value but also had its
    value set via the Session State API" of a widget, nor any other.

    The scrub chart's grid is not computed here (``scrub.MAX_WORK`` at 0: the section draws its knob, then a note):
    its default grids would run in background threads that outlive the test at the suite's slow compile level, about
    a minute of a worker's time, while the chart is the scrub tests' (test_scrub_page.py, test_scrub_browser.py)."""
    monkeypatch.setattr(scrub, "MAX_WORK", 0)
    seen: dict[str, links.Rule] = {}
    check = links.check
    monkeypatch.setattr(links, "check", lambda key, label, rule, clearable=False: (
        seen.setdefault(key, rule), check(key, label, rule, clearable))[1])
    open_with({}, None if page == "pages/home.py" else page)
    logged = [f"{r.name}: {r.getMessage()}" for r in streamlit_warnings.records]
    assert logged == [], logged
    assert seen, f"{page} has no URL-bound control"
    link = {k: GARBAGE[i % len(GARBAGE)] for i, k in enumerate(sorted(seen))}
    rules, seen = seen, {}
    at = open_with(link, None if page == "pages/home.py" else page)
    text = notes(at)
    for key in seen:
        if link[key] and not rules[key].accept([link[key]])[0]:
            assert f"Ignored `{key}=" in text, (key, link[key])
            assert key not in params(at)


def test_a_sweep_link_with_a_models_older_name_opens_that_sweep():
    """A sweeps link shared before mean-variance's kind was renamed (``mv`` → ``meanvar``) opens the same sweep:
    the model, both axes and the values, with no note, and the link now spelled with the new names."""
    at = open_with({"sweep_kind": "mv", "sweep_x_mv": "rho", "sweep_y_mv": "alpha", "sweep_mv_rho": "20, 40",
                    "sweep_mv_alpha": "0.1, 0.2"}, "pages/sweeps.py")
    assert at.selectbox(key="sweep_kind").value == "meanvar"
    assert at.selectbox(key="sweep_x_meanvar").value == "rho" and at.selectbox(key="sweep_y_meanvar").value == "alpha"
    assert at.text_input(key="sweep_meanvar_rho").value == "20, 40"
    assert at.text_input(key="sweep_meanvar_alpha").value == "0.1, 0.2"
    assert notes(at) == ""
    link = params(at)
    assert link["sweep_kind"] != "mv" and not any(k.endswith("_mv") or "_mv_" in k for k in link), link


def test_a_new_name_in_the_same_link_wins_over_the_old_one():
    """A link holding both spellings keeps the current one's value (the old one is dropped, not merged)."""
    at = open_with({"sweep_kind": "meanvar", "sweep_x_mv": "alpha", "sweep_x_meanvar": "rho"}, "pages/sweeps.py")
    assert at.selectbox(key="sweep_x_meanvar").value == "rho"
    assert "sweep_x_mv" not in params(at)


def test_the_same_setting_on_both_sweep_axes_is_no_choice_and_a_link_asking_for_it_is_named():
    """The Y axis offers every setting but the X axis' one (a setting swept against itself crashed the page on a
    duplicate key); moving X onto Y's setting moves Y to another, and a link asking for both is ignored with a note."""
    at = open_with({}, "pages/sweeps.py")
    x, y = at.selectbox(key="sweep_x_dose"), at.selectbox(key="sweep_y_dose")
    assert x.value not in y.options
    at.selectbox(key="sweep_x_dose").set_value(y.value).run()
    assert not at.exception, [e.message for e in at.exception]
    assert at.selectbox(key="sweep_x_dose").value != at.selectbox(key="sweep_y_dose").value
    at = open_with({"sweep_kind": "meanvar", "sweep_x_meanvar": "rho", "sweep_y_meanvar": "rho"}, "pages/sweeps.py")
    assert at.selectbox(key="sweep_x_meanvar").value == "rho" and at.selectbox(key="sweep_y_meanvar").value == "alpha"
    assert "sweep_y_meanvar=rho" in notes(at) and "**Y axis**" in notes(at)


# Nothing in a link is dropped or corrected without a word.

CONSERVATIVE, MEANVAR, NONLINEAR = "pages/conservative.py", "pages/meanvar.py", "pages/nonlinear.py"


@pytest.mark.parametrize(("page", "key", "given", "widget", "used"), [
    (DOSE, "tau", ["0.3", "0.4"], "slider", 0.4),
    (DOSE, "T", ["600", "400", "800"], "number_input", 800),
    (DOSE, "g", ["linear", "power"], "selectbox", "power"),
    (DOSE, "band", ["minmax", "std"], "radio", "std"),
    (CONSERVATIVE, "mu0_auto", ["true", "false"], "toggle", False),
])
def test_a_repeated_parameter_of_a_single_valued_control_is_named_with_the_value_used(page, key, given, widget,
                                                                                      used):
    """Streamlit takes the last of a repeated parameter; the note says so, with that value, for each kind of
    single-valued control."""
    at = open_with({key: given}, page)
    assert f"`{key}` is given {len(given)} times; used `{key}={given[-1]}`." in notes(at)
    assert getattr(at, widget)(key=key).value == used


def test_a_multi_valued_parameter_is_no_repetition():
    """A multi-select takes each value: two policies are two choices, not a repeat."""
    at = open_with({"policies": ["hpucb", "on_expectation"]}, DOSE)
    assert "given 2 times" not in notes(at)
    assert at.multiselect(key="policies").value == ["hpucb", "on_expectation"]


def test_a_parameter_no_control_of_the_page_reads_is_named_and_taken_out():
    at = open_with({"foo": "1", "T": "400", "seeds": "2"}, DOSE)
    assert "Ignored `foo=1` from the link: it is not a setting of this page." in notes(at)
    assert "foo" not in params(at) and at.number_input(key="T").value == 400


def test_a_control_not_drawn_with_the_current_settings_is_named_as_such():
    """``K_lin`` is the linear problems' K: on the default problem (CMAB) it is not drawn, and the note says that,
    not that the page does not know it. With its problem in the link, it is read."""
    at = open_with({"K_lin": "20", "T": "400", "seeds": "2"}, CONSERVATIVE)
    assert "Ignored `K_lin=20` from the link: its control is not shown with the current settings" in notes(at)
    at = open_with({"problem": "clb", "K_lin": "20", "T": "400", "seeds": "2"}, CONSERVATIVE)
    assert notes(at) == "" and at.number_input(key="K_lin").value == 20


def test_the_conservative_pages_alpha_is_checked_under_its_name():
    """``/conservative?alpha=-1`` was ignored without a word while the page read ``cb_alpha``."""
    at = open_with({"alpha": "-1", "T": "400", "seeds": "2"}, CONSERVATIVE)
    assert "Ignored `alpha=-1` from the link: **α (tolerated loss)** is a number from 0.005 to 0.5." in notes(at)
    assert at.slider(key="alpha").value == pytest.approx(ConservativeSettings().alpha)


@pytest.mark.parametrize(("page", "old", "new"), [
    (CONSERVATIVE, {"cb_alpha": "0.2", "cb_T": "600", "cb_seeds": "2", "cb_mu0_auto": "false", "cb_mu0": "0.5"},
     {"alpha": 0.2, "T": 600, "seeds": 2, "mu0_auto": False, "mu0": 0.5}),
    (MEANVAR, {"mv_rho": "40", "mv_T": "400", "mv_seeds": "2", "mv_policies": "mvcucb"},
     {"rho": 40.0, "T": 400, "seeds": 2, "policies": ["mvcucb"]}),
    (NONLINEAR, {"nl_tau": "0.4", "nl_T": "200", "nl_seeds": "2", "nl_size": "16", "nl_class": "logistic"},
     {"tau": 0.4, "T": 200, "seeds": 2, "size": 16, "function_class": "logistic"}),
])
def test_a_link_with_the_old_prefixed_names_opens_the_same_view_without_a_note(page, old, new):
    """Links shared while the pages' keys had a prefix (``cb_``, ``mv_``, ``nl_``) set the same controls, with no
    note, and the link is now spelled with the settings' names."""
    at = open_with(old, page)
    assert notes(at) == ""
    for key, value in new.items():
        widget = next(w for w in at.get_by_key(key) if hasattr(w, "value"))
        assert widget.value == (pytest.approx(value) if isinstance(value, float) else value), key
    assert not set(old) & set(params(at))


def test_a_shared_key_does_not_carry_one_pages_value_into_another_pages_range():
    """``T`` is a setting of both the dose page (up to 1,000,000 rounds) and the conservative one (up to 100,000):
    a dose value beyond the conservative range stays on the dose page when the visitor moves on."""
    at = open_with({"T": "400", "seeds": "2"}, DOSE)
    at.number_input(key="T").set_value(150_000)
    at.query_params.clear()  # moving by the menu: the new page's address has no parameters
    at.switch_page(CONSERVATIVE).run()
    assert not at.exception, [e.message for e in at.exception]
    assert at.number_input(key="T").value == ConservativeSettings().T and notes(at) == ""


def test_a_page_the_app_does_not_have_is_named_with_the_page_opened_instead():
    """Streamlit runs the default page for an unknown page without a word on the page; the note names both."""
    at = app()
    at._page_hash = "no-such-page"  # AppTest's way of asking for a page the navigation does not have
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    assert at.title[0].value == "safebandit lab"
    assert f"opened **{registry.home_title()}** instead." in notes(at)
    at._page_hash = ""  # the browser now shows the page it got
    at.run()
    assert notes(at) == ""  # named once


def test_a_sweep_axis_of_another_model_is_named_as_not_shown():
    """A sweeps link holds the axes of the model it sweeps; another model's axis is this page's, drawn only when that
    model is chosen."""
    at = open_with({"sweep_kind": "dose", "sweep_x_meanvar": "rho"}, "pages/sweeps.py")
    shown = "Ignored `sweep_x_meanvar=rho` from the link: its control is not shown with the current settings"
    assert shown in notes(at)
    assert "sweep_x_meanvar" not in params(at)
