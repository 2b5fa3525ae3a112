"""Overview: figure A1 (storage and reads), the numbers per model, the local/global crossover.
Its content is described once, in article/sections/."""

import ui

ui.show("overview")
