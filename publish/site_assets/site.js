// KV Atlas, static site: draws each chart when it comes near the screen, and on a context or
// precision step swaps the blocks that differ from the default (texts as HTML, charts with
// Plotly.react). Every state was computed by core when the site was built (publish/site.py):
// a precision class the page does not ship comes in a script of its own. Nothing is computed here.
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
    const layout = Object.assign({template: K.template}, fig.layout);  // the template, shipped once
    Plotly.react(div, {data: fig.data, layout: layout, frames: fig.frames || [], config: config})
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

  const initial = {};  // el -> what it showed at the default state, kept when it first changes
  function set(el, value) {
    const node = document.getElementById(el);
    const chart = node.classList.contains("plot");
    const figure = node.closest("figure"), said = document.getElementById(el + "-d");
    if (!(el in initial)) {
      initial[el] = chart ? [shown[el], figure.getAttribute("aria-label"), said.textContent] : node.innerHTML;
    }
    if (!chart) { node.innerHTML = value; return; }
    shown[el] = value[0];
    figure.setAttribute("aria-label", value[1]);
    said.textContent = value[2];
    if (node.dataset.near === "true") draw(el);
  }

  const requested = {}, main = document.querySelector("main");
  function apply(stop, k) {
    const states = K.classes[k];
    if (!states) {  // a class in a file of its own: load it, then apply what is chosen by then
      if (!requested[k]) {
        requested[k] = true;
        const script = document.createElement("script");
        script.src = "states/" + K.slug + "/" + k + ".js";
        script.onerror = function () { requested[k] = false; main.removeAttribute("aria-busy"); };
        document.head.appendChild(script);
      }
      main.setAttribute("aria-busy", "true");  // what is shown is the state before, until it comes
      return;
    }
    main.removeAttribute("aria-busy");
    for (const el of new Set(Object.keys(initial).concat(Object.keys(states)))) {
      const d = states[el];
      set(el, d ? d.values[d.at[stop]] : initial[el]);
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
    out.textContent = "N = " + K.stops[stop].toLocaleString("en-US");
    context.setAttribute("aria-valuetext", out.textContent);  // the tokens, not the stop's index
    const preset = document.querySelector('input[name="preset"]:checked').value;
    // a component's format where the page offers a choice, else its default ("auto")
    const roles = Object.keys(K.roles).map((r) => (context.form.elements[r] || {value: K.roles[r]}).value);
    const combo = [preset].concat(roles).join("|");
    apply(stop, K.combos[combo]);
  }
  K.loaded = function (k, states, figures) {
    Object.assign(K.figures, figures);
    K.classes[k] = states;
    current();
  };
  // input, not change: the charts follow the thumb while it is dragged
  context.addEventListener("input", current);
  context.form.addEventListener("change", function (e) { if (e.target !== context) current(); });
  // a browser may restore the controls of a page it reloads: show what they say
  current();
})();
