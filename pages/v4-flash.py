"""V4-Flash · CSA/HCA: the bars with V4-Flash highlighted (A11), the layer mix from the spec,
HCA (A12–A15) and CSA (A16–A19) as computed by small seeded runs.
Its content is described once, in article/sections/."""

import ui

ui.show("v4-flash")
