"""V3.2 · DSA: the bars with V3.2 highlighted (A7), what the lightning indexer makes (A8),
the score that picks tokens (A9), and MLA that keeps probability only on them (A10).
Its content is described once, in article/sections/."""

import ui

ui.show("v3-2-dsa")
