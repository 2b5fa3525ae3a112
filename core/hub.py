"""A model by its Hugging Face id: its config.json and what its safetensors store, fetched through
huggingface_hub from the endpoint the library reads (HF_ENDPOINT), headers only, never the weights.

`fetch("org/name@revision")` resolves the revision to its commit, reads the language model's config
(the importer takes a multimodal config's text_config) and the safetensors headers' tensor counts by
dtype, and keeps the result in memory and on disk (bounded), so a room opening the same link costs the
Hub one request. Every failure is a `HubError` with one line a reader understands, never a traceback.
The id is checked against the Hub's own naming rules before any request: only the Hub's endpoint is
ever contacted, so no link can make the server fetch another address.
"""

from __future__ import annotations

import json
import os
import re
import threading
from collections import OrderedDict
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

from .config_import import import_config

TIMEOUT_S = 10.0  # the longest a reader waits for the Hub
MAX_CONFIG_BYTES = 1 << 20  # as an upload: core.config_import's bound
MEMORY_ENTRIES = 64  # fetched (repo, commit) kept in memory
DISK_ENTRIES = 512  # and on disk
CACHE_DIR = Path(os.environ.get("KV_ATLAS_HUB_CACHE", Path.home() / ".cache" / "kv-atlas" / "hub"))

# the Hub's repo names: owner and name of [A-Za-z0-9._-], no "--" or "..", not starting or ending with "-" or
# ".", at most 96 characters (huggingface_hub.utils.validate_repo_id); a revision: a branch, tag or commit name
_NAME = r"(?!.*(?:--|\.\.))[A-Za-z0-9](?:[A-Za-z0-9._-]{0,94}[A-Za-z0-9])?"
REPO_ID = re.compile(rf"{_NAME}/{_NAME}")
REVISION = re.compile(r"[A-Za-z0-9][A-Za-z0-9._/-]{0,99}")
# bytes an element of each safetensors dtype takes as stored (a packed FP4 pair is one U8)
DTYPE_BYTES = {"F64": 8, "I64": 8, "U64": 8, "F32": 4, "I32": 4, "U32": 4, "F16": 2, "BF16": 2, "I16": 2, "U16": 2,
               "F8_E4M3": 1, "F8_E5M2": 1, "F8_E8M0": 1, "I8": 1, "U8": 1, "BOOL": 1, "F4": 0.5, "F6_E2M3": 0.75,
               "F6_E3M2": 0.75}


class HubError(ValueError):
    """A model id the Hub cannot give: `why` names the case, the message is one line; `key` (the case, or a finer
    one) and `facts` let a page say it in its own language (i18n's by.hf.why.<key>)."""

    def __init__(self, message: str, why: str, key: str = "", **facts):
        super().__init__(message)
        self.why, self.key, self.facts = why, key or why, facts


@dataclass(frozen=True)
class Fetched:
    """What the Hub gave for one (repo, commit): the config as published and what the safetensors store."""

    repo: str
    revision: str  # as asked ("main" by default)
    commit: str  # the commit it resolved to
    config: dict = field(repr=False)
    parameters_by_dtype: dict[str, int] = field(default_factory=dict)  # elements as stored, per dtype

    @property
    def parameters(self) -> int:
        return sum(self.parameters_by_dtype.values())

    @property
    def weights_bytes(self) -> int:
        """Bytes the stored tensors take, scales included (FP8 and FP4 checkpoints counted as stored)."""
        return int(sum(n * DTYPE_BYTES.get(dtype, 2) for dtype, n in self.parameters_by_dtype.items()))

    @property
    def name(self) -> str:
        """'org/name@a1b2c3d': exactly what was priced."""
        return f"{self.repo}@{self.commit[:7]}"


def parse_id(text: str) -> tuple[str, str]:
    """'org/name' or 'org/name@revision' -> (repo, revision), checked against the Hub's rules; HubError if not."""
    t = (text or "").strip()
    for prefix in ("https://huggingface.co/", "hf.co/", "huggingface.co/"):
        t = t.removeprefix(prefix)
    repo, _, revision = t.partition("@")
    if not REPO_ID.fullmatch(repo):
        raise HubError(f"{_short(text)} is not a Hugging Face model id (owner/name, letters, digits, '.', '_', '-')",
                       "id", text=_short(text))
    if revision and (not REVISION.fullmatch(revision) or ".." in revision):
        raise HubError(f"{_short(revision)} is not a revision name (a branch, a tag or a commit)", "id", "id.rev",
                       rev=_short(revision))
    return repo, revision or "main"


_memory: OrderedDict[tuple[str, str], Fetched] = OrderedDict()
_lock = threading.Lock()
_inflight: dict[tuple[str, str], threading.Lock] = {}


def fetch(text: str, *, timeout: float = TIMEOUT_S) -> Fetched:
    """The config and the safetensors counts of a model id, from memory, disk or the Hub (one fetch at a time per
    id: a second reader of the same link waits for the first one's answer, other ids go on)."""
    key = parse_id(text)
    with _lock:
        if key in _memory:
            _memory.move_to_end(key)
            return _memory[key]
        gate = _inflight.setdefault(key, threading.Lock())
    with gate:
        with _lock:
            if key in _memory:
                return _memory[key]
        try:
            found = _from_disk(key) or _from_hub(*key, timeout=timeout)
        finally:  # a failed id keeps no lock behind it
            with _lock:
                _inflight.pop(key, None)
        with _lock:
            _memory[key] = found
            while len(_memory) > MEMORY_ENTRIES:
                _memory.popitem(last=False)
        return found


def forget_fetched() -> None:
    """Empty the memory cache (tests)."""
    with _lock:
        _memory.clear()


def _disk_path(key: tuple[str, str]) -> Path:
    repo, revision = key
    return CACHE_DIR / f"{repo.replace('/', '--')}@{revision.replace('/', '--')}.json"


def _from_disk(key: tuple[str, str]) -> Fetched | None:
    """A fetch kept on disk (a branch's too: a link names what it priced by the commit shown beside it)."""
    path = _disk_path(key)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        return Fetched(**data)
    except (OSError, ValueError, TypeError):
        return None


def _to_disk(found: Fetched, key: tuple[str, str]) -> None:
    try:
        CACHE_DIR.mkdir(parents=True, exist_ok=True)
        kept = sorted(CACHE_DIR.glob("*.json"), key=lambda p: p.stat().st_mtime)
        for old in kept[:max(0, len(kept) - DISK_ENTRIES + 1)]:
            old.unlink(missing_ok=True)
        _disk_path(key).write_text(json.dumps(asdict(found)), encoding="utf-8")
    except OSError:
        pass  # a cache that cannot be written only costs another fetch


def _from_hub(repo: str, revision: str, *, timeout: float) -> Fetched:
    """Ask the Hub: the commit, config.json (at most MAX_CONFIG_BYTES), the safetensors headers."""
    import huggingface_hub as hf  # imported on first use: the app's other pages never need it
    from huggingface_hub import errors as E

    endpoint = os.environ.get("HF_ENDPOINT", "https://huggingface.co").rstrip("/")  # read now, as the tests set it
    api = hf.HfApi(endpoint=endpoint, token=False)  # the hosted app takes no token: a gated repo is said, not opened
    try:
        info = api.model_info(repo, revision=revision, timeout=timeout, files_metadata=False)
        commit = info.sha or revision
        files = {s.rfilename for s in (info.siblings or [])}
        if "config.json" not in files:
            mistral = "params.json" in files
            raise HubError(f"{repo} has no config.json" + (" (only Mistral's params.json, which is not read here)"
                                                            if mistral else ""), "noconfig",
                           "noconfig.params" if mistral else "", repo=repo)
        head = hf.get_hf_file_metadata(hf.hf_hub_url(repo, "config.json", revision=commit, endpoint=endpoint),
                                       timeout=timeout, token=False)
        if (head.size or 0) > MAX_CONFIG_BYTES:  # said before a byte of it is downloaded
            raise HubError(f"{repo}'s config.json is over {MAX_CONFIG_BYTES:,} bytes", "large", repo=repo,
                           limit=f"{MAX_CONFIG_BYTES:,}")
        path = hf.hf_hub_download(repo, "config.json", revision=commit, token=False, etag_timeout=timeout,
                                  endpoint=endpoint, cache_dir=CACHE_DIR / "files")
        if os.path.getsize(path) > MAX_CONFIG_BYTES:
            raise HubError(f"{repo}'s config.json is over {MAX_CONFIG_BYTES:,} bytes", "large", repo=repo,
                           limit=f"{MAX_CONFIG_BYTES:,}")
        config = json.loads(Path(path).read_text(encoding="utf-8"))
        counts = {}
        try:
            meta = api.get_safetensors_metadata(repo, revision=commit, token=False)
            counts = {str(k): int(v) for k, v in meta.parameter_count.items()}
        except E.NotASafetensorsRepoError:
            pass  # no safetensors: no weights to place, said by the caller
    except HubError:
        raise
    except E.GatedRepoError:
        raise HubError(f"{repo} is gated: its owner asks each reader to accept terms, and this app takes no "
                       "token", "gated", repo=repo) from None
    except E.RevisionNotFoundError:
        raise HubError(f"{repo} has no revision {revision!r}", "revision", repo=repo, rev=_short(revision)) from None
    except E.RepositoryNotFoundError:
        raise HubError(f"no public model {repo} on the Hub (unknown, or private)", "unknown", repo=repo) from None
    except (E.OfflineModeIsEnabled, E.LocalEntryNotFoundError):
        raise HubError("the Hub cannot be reached from here (offline)", "offline") from None
    except E.HfHubHTTPError as e:
        status = getattr(getattr(e, "response", None), "status_code", None)
        if status == 429:
            wait = _retry_after(getattr(getattr(e, "response", None), "headers", {}).get("Retry-After"))
            raise HubError("the Hub is rate limiting requests: try again in "
                           + (f"{wait:,} s" if wait else "a minute"), "rate", "rate.wait" if wait else "",
                           wait=f"{wait or 0:,}") from None
        raise HubError(f"the Hub answered {status or 'an error'} for {repo}", "http", repo=repo,
                       status=status or "?") from None
    except ValueError as e:  # a config that is not JSON
        raise HubError(f"{repo}'s config.json is not JSON: {e}", "json", repo=repo, e=str(e)) from None
    except Exception as e:  # noqa: BLE001  a timeout, a refused connection: the HTTP client's own exceptions
        slow = "timeout" in type(e).__name__.lower()
        raise HubError(f"the Hub did not answer within {timeout:g} s" if slow else
                       f"the Hub cannot be reached ({type(e).__name__})", "timeout" if slow else "offline",
                       s=f"{timeout:g}") from None
    found = Fetched(repo, revision, commit, config, counts)
    _to_disk(found, (repo, revision))
    return found


def import_fetched(found: Fetched, *, mtp: bool = False):
    """The fetched config as a spec (core.config_import, as an upload), named by what was priced, with the
    safetensors' parameter count and stored bytes as its weights. ConfigError where the importer refuses it."""
    spec = import_config(found.config, name=found.name, mtp=mtp)
    return replace(spec, model=replace(spec.model, parameters=found.parameters, stored_bytes=found.weights_bytes))


def as_json(found: Fetched) -> dict:
    """What --json carries of a fetch: the repo, the commit priced, the parameters in all and per dtype, the
    weights' bytes as stored."""
    return {"repo": found.repo, "revision": found.revision, "commit": found.commit, "parameters": found.parameters,
            "parameters_by_dtype": found.parameters_by_dtype, "weights_bytes": found.weights_bytes}


def _retry_after(value) -> int | None:
    """The seconds a 429's Retry-After asks for (a number of seconds; an HTTP date is not waited on here)."""
    return int(value) if value and str(value).strip().isdigit() else None


def _short(text) -> str:
    s = str(text)
    return repr(s if len(s) <= 60 else s[:57] + "...")
