"""Every model an id names: the article's (`core.models`), the open presets (`core.open_models`,
imported from their published configs) and the ones kept with `register` at run time. Every
function that takes a model takes its id through `get`.

It sits above the specs and the importer, which builds on them, so neither imports it.
"""

from __future__ import annotations

import hashlib
import threading
from dataclasses import astuple, replace

from . import models
from .models import Model
from .open_models import OPEN_MODELS

MAX_REGISTERED = 1000  # the oldest registered model is dropped beyond this; the app registers on every run
_registered: dict[str, Model] = {}
_lock = threading.Lock()


def register(model: Model) -> str:
    """Keep an imported model so that every function taking a model id takes it; the id,
    'custom-' and a digest of the spec (its own id aside), is the same for the same spec."""
    key = imported_id(model)
    with _lock:
        if key not in _registered:
            _registered[key] = replace(model, id=key)
            while len(_registered) > MAX_REGISTERED:
                del _registered[next(iter(_registered))]
    return key


def forget() -> None:
    """Drop every registered model, as a fresh server starts (tests)."""
    with _lock:
        _registered.clear()


def imported_id(model: Model) -> str:
    """The id of an imported model: 'custom-' and ten hex digits of a hash over everything its spec says but its
    own id, so the same spec has the same id in every process and any change to it gives another."""
    caches = [(c.role, c.entry.__module__, c.entry.__qualname__, c.deployed) for c in model.cache]
    spec = (model.name, astuple(model.dims), model.layers, caches, model.index_topk, model.window,
            model.pool_blocks, model.pool_block_size, model.parameters, model.stored_bytes, model.source, model.state)
    return "custom-" + hashlib.sha256(repr(spec).encode()).hexdigest()[:10]


def lookup(model_id: str) -> Model | None:
    """The spec kept under an id: the article's models, then the open presets, then the
    registered ones; None for an unknown id."""
    return models.MODELS.get(model_id) or OPEN_MODELS.get(model_id) or _registered.get(model_id)


def get(model: Model | str) -> Model:
    """The spec of a model id ('v4-flash', 'llama-3.1-8b', a registered 'custom-…'); a Model
    passes through, so every function that takes a model takes either."""
    if isinstance(model, Model):
        return model
    found = lookup(model) if isinstance(model, str) else None
    if found is None:
        raise ValueError(f"unknown model {model!r}; choose from {', '.join(models.MODELS)}, "
                         "an open preset or a registered id")
    return found
