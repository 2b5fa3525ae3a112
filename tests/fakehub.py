"""A fake Hugging Face Hub on loopback for the tests: the calls huggingface_hub makes for core.hub (a model's info
at a revision, a file's HEAD and GET, range requests included), over fixture repos built here from the configs
kept in core/configs. Reached through HF_ENDPOINT; the real Hub is never contacted."""

from __future__ import annotations

import json
import struct
import threading
import time
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import unquote, urlparse

CONFIGS = Path(__file__).resolve().parents[1] / "core" / "configs"
COMMIT = "a1b2c3d4e5f60718293a4b5c6d7e8f9012345678"
HELD = threading.Event()  # "fake/held" answers once a test sets it: a fetch in flight for as long as a test needs


def safetensors(tensors: dict[str, tuple[str, list[int]]]) -> bytes:
    """A safetensors file's header (8-byte little-endian length, JSON), the data left out: what a header read sees."""
    header, offset = {}, 0
    for name, (dtype, shape) in tensors.items():
        header[name] = {"dtype": dtype, "shape": shape, "data_offsets": [offset, offset]}
    raw = json.dumps(header).encode()
    return struct.pack("<Q", len(raw)) + raw


def _config(model_id: str) -> bytes:
    return (CONFIGS / f"{model_id}.json").read_bytes()


# repo -> {"files": {name: bytes}, and one of "gated", "status", "delay"}
REPOS: dict[str, dict] = {
    "Qwen/Qwen3-Next-80B-A3B-Instruct": {"files": {
        "config.json": _config("qwen3-next-80b-a3b"),
        "model.safetensors": safetensors({"a": ("BF16", [1000, 2000]), "b": ("BF16", [3000]), "c": ("F32", [10])}),
    }},
    # an FP8 checkpoint with a scale per 128 × 128 block, counted as stored
    "fake/llama-fp8": {"files": {
        "config.json": _config("llama-3.1-8b"),
        "model.safetensors": safetensors({"w": ("F8_E4M3", [4096, 4096]), "w_scale": ("F32", [32, 32]),
                                          "norm": ("BF16", [4096])}),
    }},
    "fake/no-weights": {"files": {"config.json": _config("llama-3.1-8b")}},
    "fake/no-config": {"files": {"README.md": b"# weights elsewhere"}},
    "mistralai/params-only": {"files": {"params.json": b'{"dim": 4096}'}},
    "fake/not-json": {"files": {"config.json": b"{not json"}},
    "fake/huge-config": {"files": {"config.json": b"{" + b" " * (1 << 20) + b"}"}},
    "meta-llama/gated": {"gated": True, "files": {"config.json": _config("llama-3.1-8b")}},
    "fake/rate-limited": {"status": 429, "headers": {"Retry-After": "30"}, "files": {}},
    "fake/held": {"hold": True, "files": {"config.json": _config("llama-3.1-8b")}},
    "fake/slow": {"delay": 3.0, "files": {"config.json": _config("llama-3.1-8b")}},
}


class _Handler(BaseHTTPRequestHandler):
    calls: list[str]  # the paths asked, for tests that count requests

    def log_message(self, *args):  # quiet
        pass

    def _error(self, status: int, code: str = "", headers: dict | None = None):
        self.send_response(status)
        if code:
            self.send_header("X-Error-Code", code)
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def _repo(self, repo: str) -> dict | None:
        found = REPOS.get(repo)
        if found is None:
            self._error(404, "RepoNotFound")
        elif found.get("gated"):
            self._error(401, "GatedRepo")
        elif found.get("status"):
            self._error(found["status"], headers=found.get("headers"))
        else:
            time.sleep(found.get("delay", 0))
            if found.get("hold"):
                HELD.wait(60)
            return found
        return None

    def do_HEAD(self):
        self._serve(body=False)

    def do_GET(self):
        self._serve(body=True)

    def _serve(self, body: bool):
        path = unquote(urlparse(self.path).path)
        self.server.calls.append(f"{self.command} {path}")
        parts = path.strip("/").split("/")
        if parts[:2] == ["api", "models"] and "revision" in parts:  # /api/models/{org}/{name}/revision/{rev}
            i = parts.index("revision")
            repo, revision = "/".join(parts[2:i]), "/".join(parts[i + 1:])
            found = self._repo(repo)
            if found is None:
                return
            if revision not in ("main", COMMIT):
                return self._error(404, "RevisionNotFound")
            info = {"id": repo, "modelId": repo, "sha": COMMIT, "private": False,
                    "siblings": [{"rfilename": f} for f in found["files"]]}
            return self._send(json.dumps(info).encode(), "application/json", body)
        if "resolve" in parts:  # /{org}/{name}/resolve/{rev}/{file}
            i = parts.index("resolve")
            repo, revision, name = "/".join(parts[:i]), parts[i + 1], "/".join(parts[i + 2:])
            found = self._repo(repo)
            if found is None:
                return
            if revision not in ("main", COMMIT):
                return self._error(404, "RevisionNotFound")
            if name not in found["files"]:
                return self._error(404, "EntryNotFound")
            return self._send(found["files"][name], "application/octet-stream", body, commit=True)
        self._error(404)

    def _send(self, data: bytes, kind: str, body: bool, commit: bool = False):
        status, rng = 200, self.headers.get("Range")
        if rng and rng.startswith("bytes="):
            start, _, end = rng[6:].partition("-")
            start, end = int(start), min(int(end) if end else len(data) - 1, len(data) - 1)
            data, status = data[start:end + 1], 206
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(data)))
        if commit:
            self.send_header("X-Repo-Commit", COMMIT)
            self.send_header("ETag", f'"{hash(data) & 0xFFFFFFFF:08x}"')
        self.end_headers()
        if body:
            self.wfile.write(data)


class _Server(ThreadingHTTPServer):
    def handle_error(self, request, client_address):  # a client that gave up (a timeout test): not an error
        pass


@contextmanager
def fake_hub():
    """A fake Hub on a free loopback port: yields its URL and the list of requests it has answered."""
    server = _Server(("127.0.0.1", 0), _Handler)
    server.calls = []
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", server.calls
    finally:
        server.shutdown()
        server.server_close()
