// The width class of the page's main column, reported to the server, which lays the page's figures
// out for it (figures/canvas.py). The server tells the class it drew for (`data.current`); while a
// different one is on its way, <html data-canvas="pending"> says the page is not final yet.
let observer = null;
let reported = null;

// A table that scrolls sideways (st.table's box, on a phone's column) must be reachable by keyboard
// and named: its box gets a tab stop, the region role and its table's name.
const tables = new MutationObserver(() => {
  for (const box of document.querySelectorAll('[data-testid="stTable"] > div:not([tabindex])')) {
    box.tabIndex = 0;
    box.setAttribute("role", "region");
    const name = box.querySelector("table")?.getAttribute("aria-label");
    if (name) box.setAttribute("aria-label", name);
  }
});

function column() {
  return document.querySelector('[data-testid="stMainBlockContainer"]');
}

function widthOf(el) {
  const s = getComputedStyle(el);
  return el.clientWidth - parseFloat(s.paddingLeft) - parseFloat(s.paddingRight);
}

export default function ({ data, setStateValue }) {
  const { widths, current } = data;
  const measure = () => {
    const el = column();
    if (!el) return;
    const px = widthOf(el);
    if (!(px > 0)) return;  // not laid out yet (or hidden): nothing to report
    const cls = widths.filter((w) => w <= px).pop() ?? widths[0];
    if (cls === current) {
      document.documentElement.dataset.canvas = String(cls);
    } else if (cls !== reported) {  // once per class: the rerun brings it back as `current`
      reported = cls;
      document.documentElement.dataset.canvas = "pending";
      setStateValue("width", cls);
    }
  };
  measure();
  const main = document.querySelector('[data-testid="stMain"]');
  if (main) tables.observe(main, { childList: true, subtree: true });
  observer?.disconnect();
  observer = new ResizeObserver(measure);
  const el = column();
  if (el) observer.observe(el);
  return () => observer?.disconnect();
}
