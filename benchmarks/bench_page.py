"""Page script time, warm (Overview goal ≤ 100 ms), against a one-chart baseline page.

Both run through Streamlit's AppTest in this process, so the ratio cancels AppTest's own
overhead and the machine's noise. Run: python benchmarks/bench_page.py
"""

import pathlib
import statistics
import time

from streamlit.testing.v1 import AppTest

ROOT = pathlib.Path(__file__).resolve().parent.parent
BASELINE = '''
import plotly.graph_objects as go
import streamlit as st
n = st.sidebar.select_slider("ctx", [1024, 2048, 131072], value=131072, key="ctx")
st.plotly_chart(go.Figure(go.Bar(x=[n, n / 2], y=["a", "b"], orientation="h")), theme=None)
'''


def median_ms(make, repeat=15) -> float:
    make().run()  # warm: imports, caches
    times = []
    for _ in range(repeat):
        at = make()
        t0 = time.perf_counter()
        at.run()
        times.append(time.perf_counter() - t0)
        assert not at.exception
    return statistics.median(times) * 1e3


if __name__ == "__main__":
    base = median_ms(lambda: AppTest.from_string(BASELINE, default_timeout=60))
    print(f"one-chart baseline:        {base:6.1f} ms")
    for name, script in (("Overview (app.py)", "app.py"), ("V2 · MLA page", "pages/v2_mla.py"),
                         ("V3.2 · DSA page", "pages/v32_dsa.py"), ("V4-Flash page", "pages/v4_flash.py"),
                         ("V4.1-Flash page", "pages/v41_flash.py")):
        ms = median_ms(lambda s=script: AppTest.from_file(str(ROOT / s), default_timeout=60))
        print(f"{name + ', warm:':26} {ms:6.1f} ms → ratio {ms / base:.2f}×")
