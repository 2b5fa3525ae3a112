# KV Atlas in a container: `docker build -t kv-atlas .` then `docker run --rm -p 8501:8501 kv-atlas`.
# The Python the test suite runs on, on the Debian release whose chromium the tests use.
FROM python:3.11-slim-bookworm

# chromium: kaleido renders the ⤓ Download SVG/PNG with it; fonts-noto-cjk: the Korean labels in
# them; tini: PID 1 that forwards signals and reaps the Chromium children kaleido leaves behind.
RUN apt-get update \
 && apt-get install -y --no-install-recommends chromium fonts-noto-cjk tini \
 && rm -rf /var/lib/apt/lists/*

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PIP_ROOT_USER_ACTION=ignore

WORKDIR /app
# Dependencies first: a code change does not reinstall them.
COPY requirements.txt .
RUN pip install -r requirements.txt
COPY . .
# The charts' plotly.js in static/: the partial bundle from the npm registry (publish/plotly_js.py), and
# the full one from the plotly package should that fetch fail. Written now, so the app's files
# stay owned by root and read-only to the user that runs it.
RUN python -m publish.plotly_js

# A home for Chromium's and Streamlit's per-user files.
RUN useradd --create-home --uid 10001 kvatlas
USER kvatlas

EXPOSE 8501
# The script health check runs app.py once: healthy means the app itself runs, and warm.
HEALTHCHECK --interval=30s --timeout=10s --start-period=30s --retries=3 \
    CMD ["python", "-c", "import urllib.request as u; u.urlopen('http://127.0.0.1:8501/_stcore/script-health-check', timeout=9)"]
ENTRYPOINT ["/usr/bin/tini", "--"]
# .streamlit/config.toml (copied with the app) holds the hosting settings.
CMD ["streamlit", "run", "app.py", "--server.address", "0.0.0.0", "--server.port", "8501"]
