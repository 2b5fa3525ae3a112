"""Every model an id names: the article's (`core.models`) and the open presets (`core.open_models`,
imported from their published configs). Every function that takes a model takes its id or the
`Model` itself through `get`: a model imported at run time (an uploaded config.json, a model fetched
by its Hugging Face id) is passed as its `Model`, never kept here. Its id, `imported_id`, is a pure
function of its spec, so a link that names it reads the same on every server; the session that
imported it holds it (ui.state) and puts the Model in place of the id before a figure is built.

It sits above the specs and the importer, which builds on them, so neither imports it.
"""

from __future__ import annotations

import hashlib
from dataclasses import astuple

from . import models
from .models import Model
from .open_models import OPEN_MODELS


def imported_id(model: Model) -> str:
    """The id of an imported model: 'custom-' and ten hex digits of a hash over everything its spec says but its
    own id, so the same spec has the same id in every process and any change to it gives another."""
    caches = [(c.role, c.entry.__module__, c.entry.__qualname__, c.deployed) for c in model.cache]
    spec = (model.name, astuple(model.dims), model.layers, caches, model.index_topk, model.window,
            model.pool_blocks, model.pool_block_size, model.parameters, model.stored_bytes, model.source, model.state)
    return "custom-" + hashlib.sha256(repr(spec).encode()).hexdigest()[:10]


def lookup(model_id: str) -> Model | None:
    """The spec an id names: the article's models, then the open presets; None for any other id."""
    return models.MODELS.get(model_id) or OPEN_MODELS.get(model_id)


def get(model: Model | str) -> Model:
    """The spec of a model id ('v4-flash', 'llama-3.1-8b'); a Model passes through (an imported one comes
    as its Model), so every function that takes a model takes either."""
    if isinstance(model, Model):
        return model
    found = lookup(model) if isinstance(model, str) else None
    if found is None:
        raise ValueError(f"unknown model {model!r}; choose from {', '.join(models.MODELS)}, "
                         "an open preset, or pass an imported model as its Model")
    return found
