"""The cost model: storage, cache size and decode reads, by role, vectorised over N.

Counting rules (docs/counting.md): a compressed entry exists only once its block is complete
(⌊N/m⌋ entries at context N); reads never exceed what exists (min(top-k, entries),
min(window, N), min(pool, entries)). A decode step at context N sees N positions.
Every function returns a `Parts` whose `total` is the sum of its parts.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from fractions import Fraction
from functools import lru_cache

import numpy as np

from .checks import one_of, whole_numbers
from .formats import LAYOUT_PRECISIONS, Layout
from .models import ROLES, Component, Model
from .registry import get
from .units import exact

PRESETS = ("deployed", "bf16")


@dataclass(frozen=True)
class Precision:
    """A preset plus optional per-role overrides (None = follow the preset).

    "deployed" is each component's own default: the article's deployed formats for the
    article's models, BF16 for open models (the dtype they are served in). An override names
    a layout the component offers: the article's components offer bf16, fp8, fp4; open ones
    bf16, fp8 (per-tensor scale), fp8_block (FP32 scale per 128) and fp4 where they fit.
    """

    preset: str = "deployed"
    main_kv: str | None = None
    index_key: str | None = None
    local_kv: str | None = None

    def __post_init__(self):
        one_of("precision preset", self.preset, PRESETS)
        for role in ROLES:
            if getattr(self, role) is not None:
                one_of(f"{role} precision", getattr(self, role), LAYOUT_PRECISIONS)

    @classmethod
    def every(cls, name: str) -> Precision:
        """Every cached role in one precision: a preset ('deployed', 'bf16') or a layout name,
        as an open model is priced ('fp8': every element 1 byte; 'fp8_block')."""
        return cls(name) if name in PRESETS else cls("bf16", name, name, name)

    def of(self, comp: Component) -> str:
        override = getattr(self, comp.role)
        if override:
            return override
        return comp.deployed if self.preset == "deployed" else "bf16"


DEPLOYED = Precision()
ALL_BF16 = Precision("bf16")


def fitted(model: Model | str, precision: Precision) -> Precision:
    """The precision with each role the model does not offer in it set back to the model's
    deployed format: one sidebar choice (e.g. FP4 main KV) can then price every model shown,
    and what each one really stores is in its formats (`core.summary.Summary.formats`)."""
    m = get(model)
    back = {c.role: c.deployed for c in m.components if precision.of(c) not in c.layouts}
    return replace(precision, **back) if back else precision


def role_layouts(model: Model | str, precision: Precision = DEPLOYED) -> dict[str, Layout]:
    """What each cached role of the model stores in a precision (fitted: a layout the model does
    not offer leaves its deployed one). Two precisions that give the same price every number alike."""
    m = get(model)
    p = fitted(m, precision)
    return {c.role: c.layout(p.of(c)) for c in m.components}


def entry_bytes(model: Model, precision: Precision = DEPLOYED) -> dict[str, int]:
    """Bytes of one per-layer entry of each cached role (0 where the model has none)."""
    out = {}
    for role in ROLES:
        c = model.component(role)
        out[role] = c.layout(precision.of(c)).nbytes if c else 0
    return out


@dataclass(frozen=True)
class Parts:
    """Bytes by role, and the fixed state of linear-attention and state-space layers; `total` is
    their sum. Values are floats or int64 arrays."""

    main_kv: object
    index_key: object
    local_kv: object
    state: object = 0

    @property
    def total(self):
        return self.main_kv + self.index_key + self.local_kv + self.state

    @property
    def kv(self):
        """What attention reads: global main KV + local KV (the article's 'KV')."""
        return self.main_kv + self.local_kv


def _context(n) -> np.ndarray:
    return whole_numbers("context length", n, 1)


def _scalar(x, n):
    """Return a Python int when the caller passed a scalar context."""
    return int(x) if np.ndim(n) == 0 else x


def storage_per_token(model: Model | str, precision: Precision = DEPLOYED) -> Parts:
    """Long-context growth per token: Σ over storing layers of entry bytes ÷ ratio.

    The local KV is fixed once the window is full, so it is 0 here (see `local_kv`).
    """
    return _storage(get(model), precision)


@lru_cache(maxsize=256)
def _storage(m: Model, precision: Precision) -> Parts:
    # kept per spec object (frozen, so hashable): the exact Fraction sum over 40–61 layers is
    # a few ms, asked for several times on every page run
    b = entry_bytes(m, precision)
    main = sum(Fraction(b["main_kv"], ly.ratio) for ly in m.layers if ly.stores_global)
    key = sum(Fraction(b["index_key"], ly.ratio) for ly in m.layers if ly.stores_index_key)
    return Parts(exact(main), exact(key), 0)


def local_kv(model: Model | str, precision: Precision = DEPLOYED, n=None):
    """Local KV bytes: every windowed layer keeps min(window, N) positions (full window if N is None)."""
    m = get(model)
    per = entry_bytes(m, precision)["local_kv"] * m.n_windowed
    if n is None:
        return per * m.window
    n = _context(n)
    return _scalar(per * np.minimum(m.window, n), n)


def state_bytes(model: Model | str) -> int:
    """The fixed state of every linear-attention and state-space layer, per sequence (0 for a
    model without such layers): held at any context, read and rewritten by every decode step."""
    m = get(model)
    return m.state.nbytes * m.n_state if m.state else 0


# Every count in the model has the form min(cap, ⌊N/m⌋): entries of ratio m that exist,
# capped by top-k, window or pool. A term is (role, m, cap); a model's cost is a sum of
# bytes × count terms, each distinct count evaluated once over the whole N array.
Term = tuple[str, int, int | None]


def _stored_terms(m: Model, ly) -> list[Term]:
    """What one layer holds in the cache at context N."""
    terms = []
    if ly.stores_global:
        terms.append(("main_kv", ly.ratio, None))
    if ly.stores_index_key:
        terms.append(("index_key", ly.ratio, None))
    if ly.stores_local:
        terms.append(("local_kv", 1, m.window))
    return terms


def _read_terms(m: Model, ly) -> list[Term]:
    """What one layer reads to decode one token at context N (a state layer: its state, apart)."""
    if not ly.attends:
        return []
    r, k = ly.ratio, m.index_topk
    main = {"MHA": (1, None), "GQA": (1, None), "MLA": (1, None), "DSA": (1, k), "SWA": None,
            "HCA": (r, None), "CSA": (r, k), "CSA2": (r, k)}[ly.kind]
    keys = {"DSA": (1, None), "CSA": (r, None)}.get(ly.kind)
    if ly.kind == "CSA2":
        keys = {"full": (r, None), "reindex": (r, m.pool), "reuse": None}[ly.mode]
    terms = [("main_kv", *main)] if main else []
    if keys:
        terms.append(("index_key", *keys))
    if ly.windowed:
        terms.append(("local_kv", 1, m.window))
    return terms


def _coefficients(m: Model, what: str, precision: Precision) -> dict[Term, int]:
    """Bytes per unit of each count term, summed over the model's layers."""
    terms_of = {"stored": _stored_terms, "read": _read_terms}[what]
    b = entry_bytes(m, precision)
    coef: dict[Term, int] = {}
    for ly in m.layers:
        for term in terms_of(m, ly):
            coef[term] = coef.get(term, 0) + b[term[0]]
    return coef


@lru_cache(maxsize=256)
def _kept_coefficients(m: Model, what: str, precision: Precision) -> dict[Term, int]:
    # kept per spec by value (frozen, so hashable and compared field by field), not per id: a spec
    # changed under the same id (a test's changed V4-Flash) gets sums of its own, and an imported
    # model, passed as its Model, is asked for again and again like the article's
    return _coefficients(m, what, precision)


def _evaluate(m: Model, what: str, n, precision: Precision) -> Parts:
    coef = _kept_coefficients(m, what, precision)
    out: dict[str, object] = {}
    counts: dict[tuple[int, int | None], np.ndarray] = {}
    for (role, ratio, cap), nbytes in coef.items():
        if (ratio, cap) not in counts:
            c = n if ratio == 1 else n // ratio
            counts[ratio, cap] = c if cap is None else np.minimum(c, cap)
        part = nbytes * counts[ratio, cap]
        out[role] = part if role not in out else out[role] + part
    zero = 0 if np.ndim(n) == 0 else np.zeros(n.shape, np.int64)
    return Parts(*(_scalar(out.get(r, zero), n) for r in ROLES), state=_scalar(zero + state_bytes(m), n))


@dataclass(frozen=True)
class Group:
    """Layers that store global KV alike: `layers` of them, one entry per `ratio` tokens, an entry
    of `entry` bytes per role (the terms of the per-token sum, as the article writes it)."""

    layers: int
    ratio: int
    entry: tuple[tuple[str, int], ...]  # (role, bytes) in ROLES order: main KV, then index key

    @property
    def per_token(self) -> Fraction:
        return Fraction(self.layers * sum(b for _, b in self.entry), self.ratio)


def storage_groups(model: Model | str, precision: Precision = DEPLOYED) -> tuple[Group, ...]:
    """The per-token storage as a sum of groups, in schedule order (V4-Flash: 21 CSA layers ×
    (584 + 68) B ÷ 4 + 20 HCA layers × 584 B ÷ 128); their per_token sums to storage_per_token."""
    m = get(model)
    b = entry_bytes(m, fitted(m, precision))
    counts: dict[tuple, int] = {}
    for ly in m.layers:
        if ly.stores_global:
            roles = ("main_kv", "index_key") if ly.stores_index_key else ("main_kv",)
            key = (ly.ratio, tuple((r, b[r]) for r in roles if b[r]))
            counts[key] = counts.get(key, 0) + 1
    return tuple(Group(n, ratio, entry) for (ratio, entry), n in counts.items())


@dataclass(frozen=True)
class LayerGroup:
    """Layers alike, by index: what one of them adds per token (its entries ÷ ratio, index key
    included), keeps of local KV with its window full, and holds as a fixed state; `shared`: it
    reads another layer's KV and stores none."""

    kind: str
    layers: tuple[int, ...]
    per_token: int | float
    window: int
    state: int
    shared: bool


def layer_groups(model: Model | str, precision: Precision = DEPLOYED) -> tuple[LayerGroup, ...]:
    """The per-layer table, alike layers together, in schedule order of their first: the groups'
    per-token bytes sum to storage_per_token, their windows to local_kv, their states to state_bytes."""
    m = get(model)
    b = entry_bytes(m, fitted(m, precision))
    state = m.state.nbytes if m.state else 0
    groups: dict[tuple, list[int]] = {}
    for i, ly in enumerate(m.layers):
        per = Fraction(b["main_kv"] * ly.stores_global + b["index_key"] * ly.stores_index_key, ly.ratio)
        key = (ly.label, per, b["local_kv"] * m.window * ly.stores_local, state * ly.holds_state, ly.shared)
        groups.setdefault(key, []).append(i)
    return tuple(LayerGroup(kind, tuple(ix), exact(per), window, held, shared)
                 for (kind, per, window, held, shared), ix in groups.items())


@dataclass(frozen=True)
class ReadTerm:
    """One term of a decode step's reads: `layers` each read `entries` entries of `role`, of
    `entry_bytes` each, an entry per `ratio` tokens."""

    role: str
    layers: int
    entries: int
    entry_bytes: int
    ratio: int

    @property
    def total(self) -> int:
        return self.layers * self.entries * self.entry_bytes


def read_terms(model: Model | str, n: int, precision: Precision = DEPLOYED) -> tuple[ReadTerm, ...]:
    """What a decode step at context `n` reads, term by term (their totals sum to `reads`): V3.2's
    61 layers × 2,048 entries × 656 B of KV and 61 × N × 132 B of index key."""
    m = get(model)
    n = int(_context(n))
    b = entry_bytes(m, fitted(m, precision))
    layers: dict[Term, int] = {}
    for ly in m.layers:
        for term in _read_terms(m, ly):
            layers[term] = layers.get(term, 0) + 1
    out = []
    for (role, ratio, cap), count in layers.items():
        entries = n // ratio if cap is None else min(cap, n // ratio)
        out.append(ReadTerm(role, count, entries, b[role], ratio))
    return tuple(out)


def cache_at(model: Model | str, n, precision: Precision = DEPLOYED) -> Parts:
    """Bytes held in the cache at context N: complete entries only, plus local KV."""
    return _evaluate(get(model), "stored", _context(n), precision)


def reads(model: Model | str, n, precision: Precision = DEPLOYED) -> Parts:
    """Bytes read by all layers to decode one token at context N.

    Each layer's referenced entries are counted once (shared caches once per reading
    layer), at the same byte format as storage, scales and padding included.
    """
    return _evaluate(get(model), "read", _context(n), precision)


def crossover(model: Model | str, precision: Precision = DEPLOYED) -> float | None:
    """Context where global KV (growth × N) equals the full local KV, as the article
    approximates it (block rounding ignored). None for models without local KV."""
    growth = storage_per_token(model, precision).total
    fixed = local_kv(model, precision)
    return fixed / growth if fixed and growth else None


def crossover_tokens(model: Model | str, precision: Precision = DEPLOYED) -> int | None:
    """The first whole context length at which growth × N reaches the full local KV
    (the article's ≈915 → "≈900" for V4-Flash and ≈3,038 for V4.1-Flash)."""
    x = crossover(model, precision)
    return math.ceil(x) if x is not None else None


def ratio_to(model: Model | str, base: Model | str = "mha", precision: Precision = DEPLOYED) -> float:
    """How many times smaller the per-token storage is than `base`'s (the '≈1/N'); infinite
    for a model that stops growing once its windows are full (every layer slides)."""
    growth = storage_per_token(model, precision).total
    return storage_per_token(base, precision).total / growth if growth else math.inf
