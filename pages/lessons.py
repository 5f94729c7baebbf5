"""Lessons: guided lecture scenes across the models, one click each.

Pick a scene → its small runs come from the shared store (:mod:`safebandit_ui.live`) → the ONE control to
move, its charts and *what to notice*, every line computed from the run on screen
(:mod:`safebandit_core.lessons`) → a link that opens the same settings on the model's own page.
"""

from __future__ import annotations

from safebandit_ui import stopping

stopping.session_thread()  # first: exit waits for this run, also when Streamlit runs the page without app.py

from typing import Any

import streamlit as st

from safebandit_core import families, lessons
from safebandit_core.model import Run
from safebandit_ui import links, live, pagekit, registry, shell

SCENE_KEY = "scene"
STEP_KEY = "step"
STEPS = ("as-set", "moved")
INTRO = (
    f"{len(lessons.scenes())} short scenes for a class, one click each. Every scene runs a small, fixed setting, "
    "names the **one control** to move, and lists what to notice, each line computed from the run on screen: "
    "a point the run does not show is flagged, not stated. The scenes come from two papers: *Safety by Design "
    "(2026)* (a dose whose side effect must stay below a limit in each round) and *One-size-fits-all "
    "conservative bandits (AAAI 2021)* (never fall far behind a safe default)."
)


def from_url(key: str, options: tuple[str, ...], what: str, shown: Any = str) -> None:
    """Start a widget at ``?key=`` when this session has not set it (the URL holds the options' own names); a value
    that is none of them is named, with the option (``what``, as ``shown`` names it) the widget starts at instead."""
    wanted = links.read(key)
    if key not in st.session_state:
        st.session_state[key] = wanted if wanted in options else options[0]
        if wanted is not None and wanted not in options:
            links.note(f"Ignored {links.echo(key, wanted)} from the link: there is no such {what}; showing "
                       f"**{shown(options[0])}**.")


def reset_step() -> None:
    """A new scene starts as set."""
    st.session_state[STEP_KEY] = STEPS[0]


def pick(ctx: shell.RunContext) -> lessons.Scene:
    """The scene picker; ``?scene=<slug>`` opens a scene and follows the picker."""
    order = {s.slug: i for i, s in enumerate(lessons.scenes(), start=1)}
    from_url(SCENE_KEY, tuple(order), "scene", lambda k: f"{order[k]}. {lessons.by_slug()[k].title}")
    slug = st.selectbox("Scene", list(order), key=SCENE_KEY, on_change=reset_step,
                        format_func=lambda k: f"{order[k]}. {lessons.by_slug()[k].title}",
                        help="Each scene is a fixed, small run; the sidebar's base seed and precision apply.")
    st.query_params[SCENE_KEY] = slug
    st.caption("Share a scene by copying the address: it holds the scene and the step.")
    return lessons.by_slug()[slug]


def run_job(job: lessons.Job, ctx: shell.RunContext, done: list[tuple[Run, bool, float]]) -> Run:
    """One job through the shared store, in the job's own chunks (a grid's cells also key it in the store)."""
    extra, simulate = live.in_chunks(job.cells, job.rounds)
    out = live.run(job.settings, ctx, extra=extra, simulate=simulate)
    done.append(out)
    return out[0]


def status(done: list[tuple[Run, bool, float]]) -> str:
    """How the scene's runs were computed: device, precision, time, and how many came from the store."""
    run = done[-1][0]
    shared = sum(1 for _, s, _ in done if s)
    seconds = sum(t for _, _, t in done)
    line = (f"{len(done)} run{'s' if len(done) > 1 else ''} on **{run.device}** in **{run.precision}**, "
            f"{seconds:.2f} s to compute")
    if shared:
        line += f" ({shared} already computed on this server: shared, not recomputed)"
    return line + "."


def link_params(kind: str, settings: Any) -> list[tuple[str, str]]:
    """The model page's URL parameters for ``settings`` (the app entry's ``link_keys``; policies as their labels, one
    parameter each)."""
    fam = families.get(kind)
    out: list[tuple[str, str]] = []
    for field, key in registry.entry(kind).link_keys.items():
        value = getattr(settings, field)
        if field == "policies":
            out += [(key, fam.label(p)) for p in fam.policies(settings)]
        else:
            out.append((key, f"{value:g}" if isinstance(value, float) else str(value)))
    return out


def link(scene: lessons.Scene, settings: Any) -> None:
    """A link to the model's page with these settings, or a note when the model has no page yet."""
    path = registry.page_of_kind(scene.kind)
    if path not in {p.path for p in registry.PAGES}:
        st.caption("This model has no page of its own yet: the lesson is the whole of it for now.")
        return
    st.page_link(path, label=f"Open these settings on the {registry.title_of_kind(scene.kind)} page",
                 icon=":material/link:", query_params=link_params(scene.kind, settings))
    st.caption("The link carries this step's settings; a value that page's controls cannot take is left at "
               "that page's own default.")


def notice_box(claims: list[lessons.Claim]) -> None:
    """*What to notice*: facts as they are, a scene's points ticked when the run shows them, flagged when not."""
    with st.container(border=True):
        st.markdown("#### What to notice")
        lines = []
        for c in claims:
            if not c.point:
                lines.append(f"- {c.text}")
            elif c.holds:
                lines.append(f"- :material/check_circle: {c.text}")
            else:
                lines.append(f"- :material/warning: **Not on this run: {c.point}.** {c.text}")
        st.markdown("\n".join(lines))


def main() -> None:
    """The page."""
    ctx, scene = pagekit.page_start("Lessons", INTRO, "Lessons", pick)
    st.header(scene.title)
    st.caption(f"{scene.model} · from *{scene.paper}*")
    st.markdown(scene.story)
    done: list[tuple[Run, bool, float]] = []
    runs = lessons.compute(scene, lessons.Base(ctx.base_seed, ctx.precision), lambda j: run_job(j, ctx, done))
    move = scene.move(runs)
    st.info(f"**The one control: {move.label}**, now {move.value(0)}. {move.why}\n\n**{move.say()}**",
            icon=":material/tune:")
    from_url(STEP_KEY, STEPS, "step", lambda k: move.option(STEPS.index(k)))
    shown = st.radio("Show", STEPS, format_func=lambda k: move.option(STEPS.index(k)), key=STEP_KEY,
                     horizontal=True, help="The scene as set, or with the control moved (both are already computed).")
    st.query_params[STEP_KEY] = shown
    step = STEPS.index(shown)
    for name, fig in scene.figures(runs, step).items():
        left, right = st.columns([3, 2], gap="medium")
        pagekit.chart(left, fig, f"{scene.slug}-{name}-{step}", keep=False)
        right.markdown(scene.notes[name])
    notice_box(scene.notice(runs, step))
    link(scene, scene.settings(runs, step))
    st.caption(status(done))


main()
