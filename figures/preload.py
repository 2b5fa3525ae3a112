"""numpy, pandas and plotly imported by one thread while the others wait.

Sessions that arrive together at a fresh Streamlit process run pages in parallel threads.
Python's per-module import locks let a thread go on with a half-imported module when two
imports wait on each other, and plotly reads numpy and pandas straight from sys.modules: a
reader saw `partially initialized module 'numpy'`. A plain lock has no such escape. Only
third-party modules are imported under it, so it never waits on one of ours.
"""

import threading

LOCK = threading.Lock()


def preload() -> None:
    with LOCK:
        import numpy  # noqa: F401
        import pandas  # noqa: F401
        import plotly.graph_objects  # noqa: F401
        import plotly.io  # noqa: F401
