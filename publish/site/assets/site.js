// KV Atlas, static site: draws each chart when it comes near the screen, and on a context or
// precision step swaps the blocks that differ from the default (texts as HTML, charts with
// Plotly.react). Every state was computed by core when the site was built (publish/site/):
// a precision class the page does not ship comes in a script of its own. Nothing is computed here.
// The address carries the view with the app's link keys (?ctx=1M&prec=bf16), as K.address says
// each value is written and read; the links to the other pages carry it along.
(function () {
  const K = window.KV;
  const shown = {};  // el -> figure index it should show
  const drawn = {};  // el -> figure index it shows
  // the layout for the column: a phone's (360 px class) under 700 px, else the desktop's
  const phone = window.matchMedia("(max-width: 699px)");
  const canvas = phone.matches ? "360" : "900";
  if (K.locale) {  // the chart toolbar's words in the page's language
    Plotly.register({moduleType: "locale", name: K.locale.name, dictionary: K.locale.dictionary});
    K.config.locale = K.locale.name;
  }

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

  // the sections' menu: closed by Escape or a tap elsewhere
  const menu = document.querySelector("nav.menu details");
  document.addEventListener("click", function (e) { if (menu && !menu.contains(e.target)) menu.open = false; });
  document.addEventListener("keydown", function (e) {
    if (e.key === "Escape" && menu && menu.open) { menu.open = false; menu.querySelector("summary").focus(); }
  });

  // --- the view in the address -------------------------------------------------------------------
  const A = K.address;
  const ours = A.ctx.keys.concat(...A.parts.map((p) => p.keys));

  // a number as figures/knobs.py's read_number takes it: "131072", "131,072", "128K", "1.5M"
  function readNumber(text) {
    let s = text.trim().replace(/[,_]/g, "");
    const mult = {K: 1024, M: 1048576}[s.slice(-1).toUpperCase()] || 1;
    if (mult > 1) s = s.slice(0, -1).trim();
    const x = /^[+-]?inf(inity)?$/i.test(s) ? (s[0] === "-" ? -Infinity : Infinity) : s === "" ? NaN : Number(s) * mult;
    return Number.isFinite(x) && x !== Math.trunc(x) ? NaN : x;  // a context is a whole number of tokens
  }

  // what the address asks for: a stop (the nearest to a length the site has no state for) and a
  // choice per precision control; what it cannot read is left out (the default then)
  function asked() {
    const q = new URLSearchParams(location.search);
    const last = (keys) => { for (const k of keys) if (q.has(k)) return q.getAll(k).pop(); return null; };
    const view = {choices: {}};
    const ctx = last(A.ctx.keys);
    const n = ctx === null ? NaN : Math.min(Math.max(readNumber(ctx), A.ctx.lo), A.ctx.hi);
    if (!Number.isNaN(n)) {
      const far = (i) => Math.abs(Math.log(K.stops[i] / n));
      view.stop = K.stops.reduce((best, _, i) => (far(i) < far(best) ? i : best), 0);
    }
    for (const p of A.parts) {
      const text = last(p.keys);
      const choice = text === null ? undefined : p.read[text.trim().toLowerCase()];
      if (choice !== undefined) view.choices[p.name] = choice;
    }
    return view;
  }

  // the view as the app writes it (Knob.dump): defaults left out
  function written(view) {
    const q = new URLSearchParams();
    const stop = view.stop ?? K.stop;
    if (A.ctx.at[stop] !== null) q.set(A.ctx.keys[0], A.ctx.at[stop]);
    for (const p of A.parts) {
      const text = p.write[view.choices[p.name]];
      if (text !== null && text !== undefined) q.set(p.keys[0], text);
    }
    return q;
  }

  // the address says the view; every link to a page of the site carries it
  function remember(view) {
    const q = written(view);
    const all = new URLSearchParams(location.search);  // someone else's keys stay as they were
    for (const k of ours) all.delete(k);
    for (const [k, v] of q) all.append(k, v);
    const search = all.toString();
    try {
      history.replaceState(history.state, "", (search ? "?" + search : location.pathname) + location.hash);
    } catch (e) { /* a page opened from a folder may refuse; its links still carry the view */ }
    const carried = q.toString();
    for (const a of links) a.setAttribute("href", a.dataset.view + (carried ? "?" + carried : ""));
    // the app: the same view, the page's language (the app reads it from the address, not the path),
    // and the figure to scroll to
    const app = new URLSearchParams(q);
    for (const a of apps) {
      app.set("lang", a.dataset.app);
      a.setAttribute("href", a.dataset.page + "?" + app + (a.dataset.figure ? "#" + a.dataset.figure : ""));
    }
  }
  const links = document.querySelectorAll("a[data-view]");
  for (const a of links) a.dataset.view = a.getAttribute("href");  // as built: the page, no view
  const apps = document.querySelectorAll("a[data-app]");
  for (const a of apps) a.dataset.page = a.getAttribute("href");

  const context = document.getElementById("context");
  if (!context) {  // a page without controls passes on the view it was given
    remember(asked());
    return;
  }
  const form = context.form, out = document.getElementById("context-value");
  const less = document.getElementById("context-less"), more = document.getElementById("context-more");

  function chosen() {
    const preset = form.querySelector('input[name="preset"]:checked').value;
    const choices = {preset: preset};
    // a component's format where the page offers a choice, else its default ("auto")
    for (const r of Object.keys(K.roles)) choices[r] = (form.elements[r] || {value: K.roles[r]}).value;
    return choices;
  }

  function current() {
    const stop = Number(context.value);
    out.querySelector(".long").textContent = K.ticks.long[stop];
    out.querySelector(".short").textContent = K.ticks.short[stop];
    context.setAttribute("aria-valuetext", K.ticks.long[stop]);  // the tokens, not the stop's index
    less.setAttribute("aria-disabled", String(stop === 0));
    more.setAttribute("aria-disabled", String(stop === K.stops.length - 1));
    const choices = chosen();
    const combo = [choices.preset].concat(Object.keys(K.roles).map((r) => choices[r])).join("|");
    apply(stop, K.combos[combo]);
    remember({stop: stop, choices: choices});
  }
  K.loaded = function (k, states, figures) {
    Object.assign(K.figures, figures);
    K.classes[k] = states;
    current();
  };

  // the address's view, where the page has a state for it (a browser may also restore the
  // controls of a page it reloads: without an address they show that)
  const view = asked();
  if (view.stop !== undefined) context.value = view.stop;
  for (const [name, choice] of Object.entries(view.choices)) {
    const radio = form.querySelector('input[name="' + name + '"][value="' + choice + '"]');
    const select = form.elements[name];
    if (radio) radio.checked = true;
    else if (select && select.tagName === "SELECT" && select.querySelector('option[value="' + choice + '"]')) {
      select.value = choice;
    }
  }

  function step(by) {
    const stop = Math.min(Math.max(Number(context.value) + by, 0), K.stops.length - 1);
    if (stop !== Number(context.value)) { context.value = stop; current(); }
  }
  less.addEventListener("click", function () { step(-1); });
  more.addEventListener("click", function () { step(1); });
  // input, not change: the charts follow the thumb while it is dragged
  context.addEventListener("input", current);
  form.addEventListener("change", function (e) { if (e.target !== context) current(); });
  form.addEventListener("submit", function (e) { e.preventDefault(); });
  current();

  // --- the bar on screen -------------------------------------------------------------------------
  // Its height keeps a deep link's figure below it (scroll-padding, site.css). On a phone it steps
  // aside while the reader scrolls down and comes back on the way up, or when a control in it has
  // the focus; with the components' formats open it is not sticky (site.css) and stays.
  const root = document.documentElement;
  new ResizeObserver(function () { root.style.setProperty("--bar", form.offsetHeight + "px"); }).observe(form);
  let lastY = window.scrollY;
  window.addEventListener("scroll", function () {
    const y = window.scrollY;
    if (Math.abs(y - lastY) < 4) return;  // a jitter of the finger
    const stuck = y > form.offsetHeight + (document.querySelector("header") || form).offsetHeight;
    const open = form.querySelector("details[open]");
    form.classList.toggle("away", phone.matches && stuck && y > lastY && !open && !form.contains(document.activeElement));
    lastY = y;
  }, {passive: true});
  form.addEventListener("focusin", function () { form.classList.remove("away"); });
})();
