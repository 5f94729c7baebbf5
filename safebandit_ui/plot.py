"""The app's own plotly element: a chart drawn once per change, and the charts in view first.

Streamlit's plotly element draws every new chart twice (on mount it rebuilds the figure through its theme and
plotly redraws it with ``react``), loads plotly's code only once the first chart arrives, and draws every chart of
a page in the order they come, those below the fold included. This element keeps one plotly per browser tab, served
from the app's ``static/`` folder (no request leaves the machine): plotly's cartesian bundle where ``make`` installed
it, else the installed plotly package's own full ``plotly.min.js`` (:func:`source`). It draws a chart only when its
figure changed, and draws the charts in view before the others, which follow when the browser is idle or as soon as
they are scrolled into view.

The look follows the page's theme. In a light theme it is :data:`THEME` (the fonts and greys of Streamlit's light
page). In a dark one the browser lays :data:`DARK` over the template, in colours it reads from the theme's CSS
variables (Streamlit gives them to every component), and turns dark greys light (:data:`JS`): a visitor who picks a
theme in the page's settings, or whose system prefers dark, sees every chart follow at once, with no figure sent
again. Where the plotly file cannot be put next to the app (a read-only install), :func:`chart` falls back to
``st.plotly_chart`` with Streamlit's own theme.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import tempfile
from pathlib import Path
from typing import Any

import plotly
import plotly.io as pio
import streamlit as st
from streamlit.components.v2 import component

from . import stprivate
from .approot import app_root

SCRIPT = "plotly.min.js"
"""The file the browser loads, under the app's ``static/`` folder (served at ``app/static/``)."""
FULL = Path(plotly.__file__).resolve().parent / "package_data" / SCRIPT
"""The installed plotly package's copy of plotly's browser code: the full bundle, every trace type."""
BUNDLE = Path("node_modules") / "plotly.js-cartesian-dist-min" / "plotly-cartesian.min.js"
"""plotly's cartesian bundle, under the app's folder where ``make`` installs it (``package.json``): the trace types
of :data:`BUNDLE_TRACES` in a third of the full bundle's code, so a first visit spends about a second less
evaluating it on a slow machine."""
BUNDLE_TRACES = frozenset({"bar", "box", "contour", "heatmap", "histogram", "histogram2d", "histogram2dcontour",
                           "image", "pie", "scatter", "scatterternary", "violin"})
"""The trace types the cartesian bundle holds (its README); every chart this element draws uses only these."""
BOX_CLASS = "sb-chart"
"""The class of the box that holds one chart (``.sb-chart .js-plotly-plot`` is the drawn chart)."""
FULL_CLASS = "sb-full"
"""The class of a chart's box while it is shown fullscreen (its mode bar's button; Esc or the button again leaves)."""
FULL_PAD = 24
"""Pixels around a chart shown fullscreen (the box's padding here, the chart's size in the script)."""
CSS = (f".{BOX_CLASS}.{FULL_CLASS} {{position: fixed; inset: 0; z-index: 1000100; "
       f"background: var(--st-background-color, #ffffff); "
       f"padding: {FULL_PAD}px; box-sizing: border-box; overflow: auto;}}")
"""A box shown fullscreen covers the window, Streamlit's header included."""

_BODY_FONT = '"Source Sans", sans-serif'
_TEXT = "#808495"
_HEADING = "#31333f"
_GRID = "#e6eaf1"
THEME: dict[str, Any] = {
    "font": {"color": _TEXT, "family": _BODY_FONT, "size": 12},
    "title": {"font": {"family": _BODY_FONT, "size": 16, "color": _HEADING, "weight": 600},
              "xanchor": "left", "x": 0, "pad": {"l": 2}},
    "legend": {"title": {"font": {"size": 12, "color": _TEXT}, "side": "top"}, "valign": "top", "borderwidth": 0,
               "font": {"size": 12, "color": _HEADING}},
    "paper_bgcolor": "#ffffff",
    "plot_bgcolor": "#ffffff",
    "yaxis": {"ticklabelposition": "outside", "ticklabeloverflow": "allow", "zerolinecolor": _GRID, "gridcolor": _GRID,
              "tickcolor": _GRID,
              "title": {"font": {"color": _TEXT, "size": 14}, "standoff": 24},
              "tickfont": {"color": _TEXT, "size": 12}, "automargin": True},
    "xaxis": {"ticklabeloverflow": "allow", "zerolinecolor": _GRID, "gridcolor": _GRID, "showgrid": False,
              "zeroline": False, "tickcolor": _GRID,
              "title": {"font": {"color": _TEXT, "size": 14}, "standoff": 20},
              "tickfont": {"color": _TEXT, "size": 12}, "automargin": True},
    "margin": {"pad": 8, "r": 0, "l": 0},
    "hoverlabel": {"bgcolor": "#ffffff", "bordercolor": _GRID,
                   "font": {"color": _HEADING, "family": _BODY_FONT, "size": 12}},
    "colorway": ["#0068c9", "#83c9ff", "#ff2b2b", "#ffabab", "#29b09d", "#7defa1", "#ff8700", "#ffd16a",
                 "#6d3fc0", "#d5dae5"],
}
"""What Streamlit's light theme lays over a chart's template, as the page shows it: fonts, greys, grid. No tick label
is hidden for passing the chart's edge (``ticklabeloverflow``): automargin makes room for it (the horizon's label at the
right end of a wide chart's round axis, which plotly's default hid), and that default measures every label of every
axis at each drawing, about 30 ms of a knob step's four charts on a 2-core machine."""

DARK: dict[str, Any] = {
    "font": {"color": "text"},
    "title": {"font": {"color": "heading"}},
    "legend": {"title": {"font": {"color": "text"}}, "font": {"color": "heading"}},
    "paper_bgcolor": "clear",
    "plot_bgcolor": "clear",
    **{axis: {"zerolinecolor": "grid", "gridcolor": "grid", "tickcolor": "grid", "title": {"font": {"color": "text"}},
              "tickfont": {"color": "text"}} for axis in ("xaxis", "yaxis")},
    "hoverlabel": {"bgcolor": "hover", "bordercolor": "grid", "font": {"color": "heading"}},
}
"""What a dark theme lays over :data:`THEME`'s colours, by role, each filled in the browser from the theme
(:data:`DARK_ROLES`): the chart's background is the page's own (transparent), its words the theme's text colour."""
DARK_ROLES = {"heading": 1.0, "text": 0.6, "grid": 0.12}
"""The roles of :data:`DARK` drawn in the theme's text colour, with this opacity (headings and legend entries full,
tick labels and axis titles faded like Streamlit's own captions, the grid faint); ``clear`` is transparent and
``hover`` the theme's secondary background."""
DARK_BELOW = 0.5
"""A theme is dark when its background's luma (0 black to 1 white) is below this."""

_FILLS = {
    1: ["#0068c9", "#83c9ff", "#ff2b2b", "#ffabab", "#29b09d", "#7defa1", "#ff8700", "#ffd16a", "#6d3fc0", "#d5dae5"],
    11: ["#e4f5ff", "#c7ebff", "#a6dcff", "#83c9ff", "#60b4ff", "#3d9df3", "#1c83e1", "#0068c9", "#0054a3", "#004280"],
    21: ["#7d353b", "#bd4043", "#ff4b4b", "#ff8c8c", "#ffc7c7", "#a6dcff", "#60b4ff", "#1c83e1", "#0054a3", "#004280"],
    32: ["#29b09d", "#ff2b2b", "#0068c9", "#d5dae5", _HEADING, _HEADING, "#ffffff", "#f0f2f6", _GRID],
}
PLACEHOLDERS = {first + i: colour for first, colours in _FILLS.items() for i, colour in enumerate(colours)}
"""Streamlit's plotly template (``pio.templates["streamlit"]``, the default once Streamlit is imported) names its
colours ``#000001`` to ``#000040`` and leaves them to the browser; these are the light theme's."""


def _merged(base: dict[str, Any], over: dict[str, Any]) -> dict[str, Any]:
    """``base`` with ``over`` laid over it, dicts merged key by key."""
    out = dict(base)
    for k, v in over.items():
        out[k] = _merged(out[k], v) if isinstance(v, dict) and isinstance(out.get(k), dict) else v
    return out


def _template() -> dict[str, Any]:
    """Streamlit's plotly template with its colours filled in and :data:`THEME` over its layout."""
    text = json.dumps(pio.templates["streamlit"].to_plotly_json())
    for n, colour in PLACEHOLDERS.items():
        text = text.replace(f"#{n:06d}", colour)
    template = json.loads(text)
    template["layout"] = _merged(template.get("layout", {}), THEME)
    return template


TEMPLATE = _template()
"""The template every chart is drawn with (in place of the one its figure names)."""

CONFIG = {"displaylogo": False, "responsive": True, "showSendToCloud": False}
"""Plotly's options for every chart; a chart's own ``config`` is laid over them. No "Share chart" button: plotly.js 4
shows one by default, which would send the chart to plotly's cloud service."""

JS = r"""
const NEAR = 200;  // px around the viewport that count as in view

function shared(script) {
  const tab = window.__sbPlot || (window.__sbPlot = {});
  if (!tab.plotly) {
    tab.queue = [];
    tab.boxes = new Set();  // the chart boxes watched (in view? resized?), each until it leaves the page
    tab.plotly = new Promise((resolve, reject) => {
      const s = document.createElement("script");
      s.src = new URL(script, document.baseURI).href;
      s.onload = () => resolve(window.Plotly);
      s.onerror = () => reject(new Error("plotly could not be loaded from " + s.src));
      document.head.appendChild(s);
    });
    tab.seen = new IntersectionObserver((entries) => {
      for (const e of entries) if (e.isIntersecting) draw(tab, e.target);
    }, { rootMargin: NEAR + "px" });
    tab.sized = new ResizeObserver((entries) => {
      for (const e of entries) {
        const gd = e.target;
        if (gd.__sbDrawn && e.contentRect.width > 0 && e.contentRect.width !== gd.__sbWidth) {
          gd.__sbWidth = e.contentRect.width;
          tab.plotly.then((P) => P.Plots.resize(gd));
        }
      }
    });
  }
  return tab;
}

function shown(div) {
  const r = div.getBoundingClientRect();
  return r.width > 0 && r.bottom > -NEAR && r.top < window.innerHeight + NEAR;
}

const DARK = @DARK@;  // what a dark theme lays over the template, colours by role
const DARK_ROLES = @ROLES@;  // the roles drawn in the theme's text colour, with their opacity
const DARK_BELOW = @BELOW@;  // a background darker than this luma makes the theme dark

function rgbOf(colour) {
  const c = (colour || "").trim();
  let m = /^#([0-9a-f])([0-9a-f])([0-9a-f])$/i.exec(c);
  if (m) return { rgb: [m[1], m[2], m[3]].map((h) => parseInt(h + h, 16)), alpha: 1 };
  m = /^#([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})?$/i.exec(c);
  if (m) return { rgb: [m[1], m[2], m[3]].map((h) => parseInt(h, 16)), alpha: m[4] ? parseInt(m[4], 16) / 255 : 1 };
  m = /^rgba?\(\s*([\d.]+)[\s,]+([\d.]+)[\s,]+([\d.]+)(?:[\s,/]+([\d.]+))?\s*\)$/i.exec(c);
  if (m) return { rgb: [m[1], m[2], m[3]].map(Number), alpha: m[4] === undefined ? 1 : Number(m[4]) };
  return null;
}

function luma(rgb) {
  return (0.2126 * rgb[0] + 0.7152 * rgb[1] + 0.0722 * rgb[2]) / 255;
}

function rgba(rgb, alpha) {
  return "rgba(" + rgb.map(Math.round).join(",") + "," + alpha + ")";
}

// The page's theme as a chart draws it: null in a light theme (the template as it is), else the colour of each role
// of DARK, from the CSS variables Streamlit sets around every component
function look(el) {
  const css = getComputedStyle(el);
  const bg = rgbOf(css.getPropertyValue("--st-background-color"));
  const text = rgbOf(css.getPropertyValue("--st-text-color"));
  if (!bg || !text || luma(bg.rgb) >= DARK_BELOW) return null;
  const colours = { clear: "rgba(0,0,0,0)",
                    hover: css.getPropertyValue("--st-secondary-background-color").trim() || rgba(bg.rgb, 1) };
  for (const [role, alpha] of Object.entries(DARK_ROLES)) colours[role] = rgba(text.rgb, alpha);
  return { key: JSON.stringify(colours), colours: colours };
}

function laid(over, colours) {
  if (typeof over === "string") return colours[over];
  return Object.fromEntries(Object.entries(over).map(([k, v]) => [k, laid(v, colours)]));
}

function merged(base, over) {
  const out = Object.assign({}, base);
  for (const [k, v] of Object.entries(over)) {
    const b = out[k];
    out[k] = v && typeof v === "object" && b && typeof b === "object" && !Array.isArray(b) ? merged(b, v) : v;
  }
  return out;
}

// A neutral grey that would vanish on a dark page, turned into its mirror image (black lines become near white); a
// light grey background (an annotation's box) likewise becomes a dark one
function mirrored(key, value) {
  const c = rgbOf(value);
  if (!c || Math.max(...c.rgb) - Math.min(...c.rgb) > 8) return value;
  if (luma(c.rgb) >= 0.5 && key !== "bgcolor") return value;
  return rgba(c.rgb.map((v) => 255 - v), c.alpha);
}

function turned(node, key) {
  if (typeof node === "string") return mirrored(key, node);
  if (Array.isArray(node)) return node.map((v) => turned(v, key));
  if (!node || typeof node !== "object") return node;
  return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, k === "template" ? v : turned(v, k)]));
}

// The figure in the page's theme: a dark one lays DARK over the template and turns the figure's dark greys light
function themed(fig, theme) {
  if (!theme) return fig;
  const out = turned(fig, "");
  const template = (fig.layout && fig.layout.template) || {};
  out.layout = Object.assign({}, out.layout || {}, {
    template: Object.assign({}, template, { layout: merged(template.layout || {}, laid(DARK, theme.colours)) }),
  });
  return out;
}

const FULL_CLASS = "@FULL@";
const FULL_PAD = @PAD@;  // px around a chart shown fullscreen
const FULL_ICON = {
  width: 1000, height: 1000,
  path: "M100 100h300v100h-200v200h-100zM600 100h300v300h-100v-200h-200zM100 600h100v200h200v100h-300z"
        + "M800 600h100v300h-300v-100h200z",
};

function fullSize() {
  return { width: window.innerWidth - 2 * FULL_PAD, height: window.innerHeight - 2 * FULL_PAD };
}

function fullscreen(tab, gd, on) {
  const box = gd.parentElement;
  if (on === undefined) on = !box.classList.contains(FULL_CLASS);
  if (on === box.classList.contains(FULL_CLASS)) return;
  box.classList.toggle(FULL_CLASS, on);
  tab.plotly.then((P) => P.relayout(gd, on ? fullSize() : { width: null, height: gd.__sbHeight }));
  if (on) {
    const esc = (e) => {
      if (e.key !== "Escape") return;
      document.removeEventListener("keydown", esc);
      fullscreen(tab, gd, false);
    };
    document.addEventListener("keydown", esc);
  }
}

function draw(tab, div) {
  const next = div.__sbNext;
  if (!next) return;
  div.__sbNext = null;
  div.__sbDrawn = true;
  div.__sbWidth = div.getBoundingClientRect().width;  // 0 in a closed tab: resized when it opens
  const f = next.fig;
  div.__sbHeight = (f.layout && f.layout.height) || 450;
  const full = div.parentElement.classList.contains(FULL_CLASS);
  const layout = full ? Object.assign({}, f.layout, fullSize()) : f.layout;
  const config = Object.assign({}, next.config);
  if (config.displayModeBar !== false) {
    // one button object per tab: plotly's react compares configs by reference there, and a new one would redraw
    // the whole chart instead of what changed
    tab.fullButton = tab.fullButton || {
      name: "fullscreen", title: "View fullscreen (Esc to leave)", icon: FULL_ICON,
      click: (gd) => fullscreen(tab, gd),
    };
    config.modeBarButtonsToAdd = (config.modeBarButtonsToAdd || []).concat([tab.fullButton]);
  }
  tab.plotly.then((P) => P.react(div, { data: f.data, layout: layout, frames: f.frames, config: config }));
}

function later(tab, div) {
  tab.queue.push(div);
  if (tab.pumping) return;
  tab.pumping = true;
  const idle = window.requestIdleCallback || ((f) => setTimeout(f, 1));
  const pump = () => {
    const div = tab.queue.shift();
    if (div) draw(tab, div);
    if (tab.queue.length) idle(pump, { timeout: 500 }); else tab.pumping = false;
  };
  tab.plotly.then(() => idle(pump, { timeout: 500 }));
}

export default function (component) {
  const { data, parentElement } = component;
  const tab = shared(data.script);
  const gd = parentElement.querySelector("div.BOX > div");
  const forget = () => {
    if (gd.isConnected) return;  // still on the page: a later drawing of this chart keeps it
    tab.boxes.delete(gd);
    tab.seen.unobserve(gd);
    tab.sized.unobserve(gd);
    tab.queue = tab.queue.filter((div) => div !== gd);
    gd.__sbObserved = false;
    gd.__sbNext = null;
  };
  if (!gd.__sbObserved) {
    gd.__sbObserved = true;
    tab.boxes.add(gd);
    tab.seen.observe(gd);
    tab.sized.observe(gd);
  }
  const theme = look(parentElement);
  const seen = theme ? theme.key : "light";
  if (gd.__sbSpec === data.spec && gd.__sbLook === seen) return forget;  // called again for a new theme, too
  gd.__sbSpec = data.spec;
  gd.__sbLook = seen;
  const fig = themed(JSON.parse(data.spec), theme);
  const layout = fig.layout || {};
  const title = layout.title;
  if (title && typeof title.text === "string" && !title.text.startsWith("<b>")) {
    title.text = "<b>" + title.text + "</b>";
  }
  gd.style.minHeight = (layout.height || 450) + "px";
  gd.__sbNext = { fig: fig, config: data.config };
  if (shown(gd)) draw(tab, gd); else later(tab, gd);
  return forget;
}
""".replace("BOX", BOX_CLASS).replace("@FULL@", FULL_CLASS).replace("@PAD@", str(FULL_PAD)).replace(
    "@DARK@", json.dumps(DARK)).replace("@ROLES@", json.dumps(DARK_ROLES)).replace("@BELOW@", repr(DARK_BELOW))
"""The element's browser side: one plotly per tab; a new figure drawn at once in view, else when idle or seen, in
the page's theme (Streamlit calls it again with the same figure when the visitor picks another theme: it is drawn
again only then). Its returned function, run when the chart leaves the page (another page, a new key), stops
watching its box."""

NAME = "safebandit.plot"
"""The element's name among the app's components."""
HTML = f'<div class="{BOX_CLASS}"><div style="width: 100%"></div></div>'
"""The element's box, in place from its mount (a chart not drawn yet is an empty box, not a missing one)."""
_ELEMENT = component(NAME, html=HTML, js=JS, css=CSS, isolate_styles=False)


def version(path: Path) -> str | None:
    """The plotly.js version a bundle's first lines name (``plotly.js v4.1.1``, ``plotly.js (cartesian - minified)
    v4.1.1``); None for a missing file or another header."""
    try:
        with path.open("rb") as f:
            head = f.read(400)
    except OSError:
        return None
    found = re.search(rb"plotly\.js(?: \([^)\n]*\))? v(\d[\w.+-]*)", head)
    return found.group(1).decode() if found else None


def source(root: Path) -> Path:
    """The plotly code to serve for the app in ``root``: the cartesian bundle installed there when it is the
    plotly.js version the Python plotly package ships (whose figures are made for that version), else that package's
    full bundle."""
    bundle = root / BUNDLE
    found = version(bundle)
    return bundle if found is not None and found == version(FULL) else FULL


def provide_script(root: Path | None = None, bundle_root: Path | None = None) -> bool:
    """Put plotly's browser code (:func:`source` of ``bundle_root``, by default ``root``) in ``static/`` under the
    app's folder ``root`` (once: a copy, replaced atomically when it differs in size from what should be served);
    whether it is there. ``bundle_root``: where the bundle ``make`` installed is looked for, when the page served
    from ``root`` is not the app itself (the bench's floor page serves the app's bundle from its own folder)."""
    root = root or app_root()
    src = source(bundle_root or root)
    target = root / "static" / SCRIPT
    tmp = None
    try:
        if target.is_file() and target.stat().st_size == src.stat().st_size:
            return True
        target.parent.mkdir(exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=".plotly-")
        os.close(fd)
        shutil.copyfile(src, tmp)
        os.replace(tmp, target)
        return True
    except OSError:
        if tmp is not None:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
        return False


def served() -> bool:
    """Whether this process draws with the own element: static serving is on and plotly's code is in place.

    False, and not yet decided, until Streamlit's runtime exists: a thread asking while the server starts (the
    warm-up making the pages' charts) must not settle the answer before the server has read its options."""
    return stprivate.runtime_exists() and _served()


@st.cache_resource(show_spinner=False)
def _served() -> bool:
    """:func:`served`, decided once per process."""
    return bool(st.get_option("server.enableStaticServing")) and provide_script()


def encode(spec: dict[str, Any]) -> str:
    """``spec`` (a figure's dict) drawn with :data:`TEMPLATE` in place of the template it names, as the JSON the
    browser parses."""
    layout = {**(spec.get("layout") or {}), "template": TEMPLATE}
    return pio.to_json({**spec, "layout": layout}, validate=False)


def chart(container: Any, fig: Any, key: str, **kwargs: Any) -> Any:
    """``fig`` in ``container`` under ``key``: with the own element when it is served (``fig.text()`` is what it
    sends: :meth:`.pagekit.Serialised.text`), else with ``st.plotly_chart`` (``kwargs`` as there; the own element
    reads ``config``)."""
    if not served():
        return container.plotly_chart(fig, key=key, **{"theme": "streamlit", **kwargs})
    with contextlib.nullcontext() if container is st else container:
        return _ELEMENT(key=key, data={"spec": fig.text(), "config": {**CONFIG, **(kwargs.get("config") or {})},
                                        "script": f"app/static/{SCRIPT}"})
