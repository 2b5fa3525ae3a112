"""The figures' builders, one module per family. Each takes its knobs as keywords and makes data, never seeing
the canvas: a chart's typed model (figures.charts, which places and draws it for the canvas), a matrix diagram
(figures.matrix.Diagram), or, for a chart that needs no layout of its own, a plotly `Chart`. The layout pass
(figures/layout/) draws and fits it."""
