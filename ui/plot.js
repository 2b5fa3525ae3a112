// One plotly chart that updates in place (see ui/plot.py). Streamlit calls this function
// whenever its data changes; the plot div outlives the calls, so a new figure is applied
// with Plotly.react instead of a new plot, an unchanged one costs nothing, and a chart below
// the fold is first drawn when it comes near the viewport. Streamlit keeps the latest return
// value and calls it once, when the element goes away.

let loading = null;
// plotly.js rejects an interrupted animation's promise (❚❚, a slider step, ▶ again) and its own
// buttons leave that uncaught: the controls working, not an error. Only those are hushed.
let interruptedAt = -Infinity;
window.addEventListener("unhandledrejection", (e) => {
  if (e.reason === undefined && performance.now() - interruptedAt < 1000) e.preventDefault();
});

function plotly(src) {
  if (window.Plotly) return Promise.resolve(window.Plotly);
  loading ??= new Promise((resolve, reject) => {
    const script = document.createElement("script");
    script.src = src;
    script.onload = () => resolve(window.Plotly);
    script.onerror = () => reject(new Error(`cannot load ${src}`));
    document.head.appendChild(script);
  });
  return loading;
}

// data-drawn says whether the latest figure sent is on screen: "false" while it is being drawn,
// "true" once plotly has drawn it (a newer figure arriving meanwhile keeps it "false").
function draw(div) {
  const { fig, config, src, spec } = div.kv;
  div.dataset.drawn = "false";
  // one object, so an animation's frames (publish/animation.py) come along
  return plotly(src).then((Plotly) => Plotly.react(div, { data: fig.data, layout: fig.layout, frames: fig.frames, config }))
    .then(() => {
      if (div.kv.spec === spec) div.dataset.drawn = "true";
      if (div.kv.listening) return;
      div.kv.listening = true;
      div.on("plotly_animationinterrupted", () => { interruptedAt = performance.now(); });
    });
}

// Streamlit calls a call's cleanup when its element goes away (the div is off the page by then),
// and also for a call a newer one overtook while the module was loading: that chart is still
// shown, and purging it (or stopping its observer) would leave it blank.
function release(div) {
  if (div.isConnected) return;
  div.kv?.observer?.disconnect();
  window.Plotly?.purge(div);
}

// A chart's text alternative: a figure named by its title and described by a paragraph that only
// assistive technology reads (its numbers, from core), beside the plot, which plotly redraws.
let described = 0;
function describe(div, parentElement, { label, description }) {
  let text = parentElement.querySelector(":scope > .kv-alt");
  if (!text) {
    text = document.createElement("p");
    text.className = "kv-alt";
    text.id = `kv-alt-${++described}`;
    text.style.cssText = "position:absolute;width:1px;height:1px;overflow:hidden;clip-path:inset(50%);white-space:pre-line;margin:0";
    parentElement.appendChild(text);
  }
  if (text.textContent !== description) text.textContent = description;
  div.setAttribute("role", "figure");
  div.setAttribute("aria-label", label);
  div.setAttribute("aria-describedby", text.id);
}

// A link that names a figure after # (the static site's "open it in the app", #A5) lands on it: the
// page scrolls to its chart when the chart is placed, and again whenever what is above it changes
// size (a first run laid out for a guessed column, charts drawn), until the reader scrolls or types.
let landed = false;
function land(div, anchor) {
  if (landed || !anchor || decodeURIComponent(location.hash.slice(1)) !== anchor) return false;
  landed = true;
  div.style.scrollMarginTop = "5rem";  // its controls and the lines that lead into it, above it, in sight
  const main = div.closest('[data-testid="stMain"]');
  const keep = new ResizeObserver(() => { if (div.isConnected) div.scrollIntoView({ block: "start" }); });
  const stop = () => {
    keep.disconnect();
    for (const e of ["wheel", "touchstart", "keydown", "mousedown"]) main?.removeEventListener(e, stop);
  };
  for (const e of ["wheel", "touchstart", "keydown", "mousedown"]) main?.addEventListener(e, stop, { passive: true });
  keep.observe(div.closest('[data-testid="stMainBlockContainer"]') || document.body);
  div.scrollIntoView({ block: "start" });
  return true;
}

export default function ({ data, parentElement }) {
  let div = parentElement.querySelector(":scope > .kv-plot");
  if (!div) {
    div = document.createElement("div");
    div.className = "kv-plot";
    parentElement.appendChild(div);
  }
  const landing = land(div, data.anchor);
  const cleanup = () => release(div);
  describe(div, parentElement, data);
  if (div.kv && div.kv.spec === data.spec) return cleanup;  // the same figure: nothing to do
  const fig = JSON.parse(data.spec);
  div.kv = { ...div.kv, spec: data.spec, fig, config: data.config, src: data.src };
  // reserve the figure's size, so the page does not jump and the fold is where it will be
  div.style.height = `${fig.layout.height || 450}px`;
  div.style.width = fig.layout.width ? `${fig.layout.width}px` : "100%";
  if (landing) {  // drawn at once: it is on screen
    div.kv.observer?.disconnect();
    div.kv.drawn = true;
    draw(div);
  } else if (div.kv.drawn) {
    draw(div);
  } else if (!div.kv.observer) {  // first drawn near the viewport, with the latest figure by then
    div.kv.observer = new IntersectionObserver((entries) => {
      if (!entries.some((e) => e.isIntersecting)) return;
      div.kv.observer.disconnect();
      div.kv.drawn = true;
      draw(div);
    // root: the page's scrolling column (Streamlit scrolls stMain, not the document); against the
    // viewport, the column's clip would cancel the margin and a chart would draw only once visible
    }, { root: div.closest('[data-testid="stMain"]'), rootMargin: "600px 0px" });
    div.kv.observer.observe(div);
  }
  return cleanup;
}
