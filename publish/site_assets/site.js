// KV Atlas, static site: draws each chart when it comes near the screen, and on a context or
// precision step swaps the blocks that differ (texts as HTML, charts with Plotly.react). Every
// state was computed by core when the site was built (publish/site.py); nothing is computed here.
(function () {
  const K = window.KV;
  const shown = {};  // el -> figure index it should show
  const drawn = {};  // el -> figure index it shows
  // the layout for the column: a phone's (360 px class) under 700 px, else the desktop's
  const canvas = window.matchMedia("(max-width: 699px)").matches ? "360" : "900";

  function draw(el) {
    const n = shown[el];
    if (drawn[el] === n) return;
    const div = document.getElementById(el);
    const fig = K.figures[n][canvas];
    drawn[el] = n;
    div.dataset.drawn = "false";
    // downloads named after the figure; on a phone no toolbar over the title (as in the app)
    const config = Object.assign({}, K.config, {
      toImageButtonOptions: Object.assign({}, K.config.toImageButtonOptions, {filename: "kv-atlas-" + div.parentElement.id}),
      displayModeBar: canvas === "360" ? false : K.config.displayModeBar,
    });
    // one object: its frames replace those of the figure drawn before
    Plotly.react(div, {data: fig.data, layout: fig.layout, frames: fig.frames || [], config: config})
      .then(function () { if (drawn[el] === n) div.dataset.drawn = "true"; });
  }

  const near = new IntersectionObserver(function (entries) {
    for (const e of entries) if (e.isIntersecting) { e.target.dataset.near = "true"; draw(e.target.id); }
  }, {rootMargin: "400px 0px"});

  for (const c of K.charts) {
    shown[c.el] = c.fig;
    const div = document.getElementById(c.el);
    // its height before it is drawn: a deep link lands where the figure will stay
    div.style.height = (K.figures[c.fig][canvas].layout.height || 450) + "px";
    near.observe(div);
  }

  function apply(at) {
    for (const d of K.dynamic) {
      const value = d.values[d.at[at]];
      if (d.kind === "html") {
        document.getElementById(d.el).innerHTML = value;
      } else {
        shown[d.el] = value[0];
        const div = document.getElementById(d.el);
        div.closest("figure").setAttribute("aria-label", value[1]);
        document.getElementById(d.el + "-d").textContent = value[2];
        if (div.dataset.near === "true") draw(d.el);
      }
    }
  }

  // a table's CSV, from the table as it is shown (its state's numbers)
  document.addEventListener("click", function (e) {
    const link = e.target.closest("a.csv");
    if (!link) return;
    const rows = link.parentElement.querySelectorAll("table tr");
    const cell = (c) => '"' + (c.dataset.v ?? c.textContent).replace(/"/g, '""') + '"';  // numbers as numbers
    const csv = Array.from(rows, (r) => Array.from(r.children, cell).join(",")).join("\n");
    link.href = URL.createObjectURL(new Blob([csv + "\n"], {type: "text/csv"}));
  });

  const context = document.getElementById("context");
  if (!context) return;
  const out = document.getElementById("context-value");
  function current() {
    const stop = Number(context.value);
    const preset = document.querySelector('input[name="preset"]:checked').value;
    out.textContent = "N = " + K.stops[stop].toLocaleString("en-US");
    context.setAttribute("aria-valuetext", out.textContent);  // the tokens, not the stop's index
    return K.states.indexOf(K.stops[stop] + "|" + preset);
  }
  // input, not change: the charts follow the thumb while it is dragged
  context.addEventListener("input", function () { apply(current()); });
  for (const r of document.querySelectorAll('input[name="preset"]')) {
    r.addEventListener("change", function () { apply(current()); });
  }
  // a browser may restore the controls of a page it reloads: show what they say
  const restored = current();
  if (restored !== K.default) apply(restored);
})();
