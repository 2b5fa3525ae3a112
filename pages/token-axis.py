"""Article B: token-axis compression, B1–B4 in article order.
Its content is described once, in article/sections/."""

import ui

ui.show("token-axis")
