"""V4.1-Flash · CSA2/CED: the bars with V4.1-Flash highlighted (A20), CSA2 (A21, A22), layer
sharing (A23, A24), the hierarchical indexer (A25), CED (A26, A27), and what was reduced.
Its content is described once, in article/sections/."""

import ui

ui.show("v4-1-flash")
