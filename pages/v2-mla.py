"""V2 · MLA: the bars with V2 highlighted (A2), the three paths (A3), the two scores (A4),
the computation orders that avoid expanding keys and values (A5, A6), and their cost.
Its content is described once, in article/sections/."""

import ui

ui.show("v2-mla")
