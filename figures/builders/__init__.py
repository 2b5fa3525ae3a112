"""The figures' builders, one module per family. Each takes its knobs as keywords and makes a
plotly chart or a matrix diagram (figures.matrix.Diagram, data the layout pass draws); the few
charts that lay themselves out for a phone's column also take the canvas (figures/canvas.py)."""
