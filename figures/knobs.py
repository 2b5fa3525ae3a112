"""Typed knobs: what a figure lets a reader change, with a range for every value.

A `Knob` names a builder keyword, its label and the URL keys it is read from; its class is
its kind, with the kind's bounds. Every value that comes from outside (a link, the command line, the Export
page) goes through `Knob.read`: it is parsed, clamped into range, or replaced by the
default — with a `Note` saying so, never an exception. `Knob.dump` writes a value the
way the page's widget writes it to the URL, so a link and the page agree.

Kinds: IntKnob, FloatKnob, ChoiceKnob (one, or `multi` for a tuple of them), TupleKnob
(fixed-length ints: "2,4", or one part knob per item), PrecisionKnob (a preset and per-role
overrides, one part knob each) and MatrixKnob (rows of numbers as text, e.g. B2's "1, 0; 0, 1").
ui/ draws each kind with the widget its mapping names (ui.state.WIDGET_OF_KIND).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import KW_ONLY, dataclass, field, replace
from typing import ClassVar

from core import BYTE_UNITS, LAYOUT_PRECISIONS, PRESETS, Model, Precision, fmt_tokens, get
from core.mechanisms import format_matrix, parse_matrix
from i18n import DEFAULT_LANG, LANGS, model_name, t

from .style import THEMES

MAX_TEXT = 400  # characters of one URL value we look at; longer is not a value of ours
_MISSING = object()
Params = Mapping[str, str | Sequence[str]]


@dataclass(frozen=True)
class Note:
    """Why a value from outside was not used as given: `code` is clamped (out of range →
    the nearest end), invalid (not readable → the default), or build (the values do not
    make a figure together → the defaults)."""

    key: str
    raw: str
    code: str
    used: str = ""

    def text(self, lang: str) -> str:
        return t(f"note.{self.code}", lang, k=self.key, v=_quote(self.raw), u=self.used)


def _quote(raw: str) -> str:
    """A value safe to show: one short line, without markdown code fences."""
    s = re.sub(r"[`\s]+", " ", raw).strip()
    return s if len(s) <= 40 else s[:39] + "…"


class Invalid(ValueError):
    """A value that cannot be read as the knob's type (the caller falls back to the default)."""


def read_number(text: str) -> float:
    """'12', '-3.5', '1e3', '12,000', '128K', '1.5M' (binary K and M, as context lengths
    are quoted) -> float; inf is kept (it clamps), nan and text are Invalid."""
    s = text.strip().replace(",", "").replace("_", "")
    mult = {"K": 1 << 10, "M": 1 << 20}.get(s[-1:].upper(), 1)
    s = s[:-1] if mult > 1 else s
    try:
        x = float(s) * mult
    except ValueError:
        raise Invalid(text) from None
    if math.isnan(x):
        raise Invalid(text)
    return x


@dataclass(frozen=True)
class Knob:
    """One thing a reader can change: a builder keyword of one kind (a class per kind below). The
    default is the builder's own keyword default, bound when the figure is registered (`bind`)."""

    name: str  # the builder's keyword (links that use it keep working)
    _: KW_ONLY
    nullable: bool = False  # None allowed ("none" in a URL)
    label: str = ""  # i18n key of the control's label
    help: str = ""  # i18n key of the control's help text
    url: str = ""  # URL key (default: name)
    aliases: tuple[str, ...] = ()  # older URL keys that still resolve
    widget: str = ""  # how ui/ draws it, where the kind allows more than one way (ui.state.WIDGETS)
    show: Callable[[object, str], str] | None = None  # (value, lang) -> what the widget and the URL show
    default: object = field(default=_MISSING, compare=False)

    kind: ClassVar[str]
    multi: ClassVar[bool] = False  # a choice knob's: a non-empty tuple of choices
    parts: ClassVar[tuple[Knob, ...]] = ()  # a tuple or precision knob's: one knob per item or role

    # --- identity -----------------------------------------------------------------

    @property
    def key(self) -> str:
        return self.url or self.name

    @property
    def keys(self) -> tuple[str, ...]:
        """Every key a figure link is read from: its own, its builder name, old aliases.
        (A page reads only its own and the aliases: builder names collide across figures.)"""
        return tuple(dict.fromkeys((self.key, self.name, *self.aliases)))

    def bind(self, default) -> Knob:
        """This knob with a figure's default, checked to be a value the knob can hold."""
        knob = replace(self, default=default)
        if knob.clamp(default) != default:
            raise ValueError(f"{self.name}: default {default!r} is outside the knob's range")
        return knob

    # --- values ---------------------------------------------------------------------

    def clamp(self, value):
        """A value of the right type brought into range (Invalid if it has none)."""
        if value is None:
            if self.nullable:
                return None
            raise Invalid("none")
        return self._clamp(value)

    def _clamp(self, value):
        return value

    def parse(self, raw: str | Sequence[str]):
        """Text from a URL or command line -> a value (before clamping); Invalid if unreadable."""
        values = [raw] if isinstance(raw, str) else list(raw)
        if not values or any(len(v) > MAX_TEXT for v in values):
            raise Invalid(values[0] if values else "")
        text = values[-1]
        if self.nullable and text.strip().lower() in ("none", "null", "", *(t("choice.none", lang) for lang in LANGS)):
            return None
        return self._parse(text, values)

    def _parse(self, text: str, values: list[str]):
        raise NotImplementedError

    def read(self, params: Params, lang: str = "en") -> tuple[object, list[Note]]:
        """This knob's value from URL-like params: the default when absent, clamped into
        range (with a note), or the default with a note when unreadable."""
        key = next((k for k in self.keys if k in params), None)
        if key is None:
            return self.default, []
        raw = params[key]
        text = raw if isinstance(raw, str) else ",".join(raw)
        try:
            value = self.parse(raw)
            used = self.clamp(value)
        except (Invalid, TypeError, ValueError, OverflowError):
            return self.default, [Note(key, text, "invalid", self.display(self.default, lang))]
        clamped = self._changed(value, used, text)
        return used, ([Note(key, text, "clamped", self.display(used, lang))] if clamped else [])

    def _changed(self, value, used, text: str) -> bool:
        return used != value

    def display(self, value, lang: str = "en") -> str:
        """A value as the reader sees it (and as a choice widget writes it to the URL)."""
        if value is None:
            return t("choice.none", lang)
        return self.show(value, lang) if self.show else self._display(value)

    def _display(self, value) -> str:
        return str(value)

    def dump(self, value, lang: str = "en") -> dict[str, str | list[str]]:
        """URL params for a value, in the form the page's widgets write; {} for the default."""
        return {} if value == self.default else {self.key: self.display(value, lang)}


@dataclass(frozen=True)
class IntKnob(Knob):
    """An integer in lo … hi (a slider by default; `stops` for a select slider's suggested values)."""

    lo: int
    hi: int
    step: int | None = None
    stops: tuple[int, ...] = ()
    kind: ClassVar[str] = "int"

    def __post_init__(self):
        if self.lo > self.hi:
            raise ValueError(f"{self.name}: a number knob needs a range lo ≤ hi")

    def _clamp(self, value):
        return int(min(max(value, self.lo), self.hi))

    def _parse(self, text: str, values: list[str]):
        x = read_number(text)
        if math.isfinite(x) and x != int(x):
            raise Invalid(text)
        return x if math.isinf(x) else int(x)


@dataclass(frozen=True)
class FloatKnob(Knob):
    """A number in lo … hi, snapped to lo + n·step when a step is given."""

    lo: float
    hi: float
    step: float | None = None
    kind: ClassVar[str] = "float"

    def __post_init__(self):
        if self.lo > self.hi:
            raise ValueError(f"{self.name}: a number knob needs a range lo ≤ hi")

    def _clamp(self, value):
        x = min(max(float(value), self.lo), self.hi)
        return round(self.lo + round((x - self.lo) / self.step) * self.step, 9) if self.step else x

    def _parse(self, text: str, values: list[str]):
        return read_number(text)


@dataclass(frozen=True)
class ChoiceKnob(Knob):
    """One of `choices` (in display order), or with `multi` a non-empty tuple of them. With
    `imports`, a page adds the models its reader imported to the choices (ui.state.control)."""

    choices: tuple = ()
    multi: bool = False
    imports: bool = False
    kind: ClassVar[str] = "choice"

    def __post_init__(self):
        if not self.choices:
            raise ValueError(f"{self.name}: a choice knob needs choices")

    def _clamp(self, value):
        """A choice, or a model passed as its `Model` (ui puts a session's imported models in place of their ids
        before a build): one whose id is among the choices, or with `imports` any; a multi pick in the choices'
        order, models beyond them last."""
        if self.multi:
            given: dict = {}
            for v in tuple(value):
                given.setdefault(_id(v), v)
            picked = (*(given[c] for c in self.choices if c in given),
                      *(v for k, v in given.items() if k not in self.choices and self._takes(v)))
            if not picked:
                raise Invalid(",".join(map(str, map(_id, value))))
            return picked
        if not self._takes(value):
            raise Invalid(str(_id(value)))
        return value

    def _takes(self, value) -> bool:
        return _id(value) in self.choices or (self.imports and isinstance(value, Model))

    def _parse(self, text: str, values: list[str]):
        items = [s for v in values for s in (v.split(",") if self.multi else [v]) if s.strip()]
        found = [self._choice(s) for s in items]
        return tuple(c for c in found if c is not None) if self.multi else _only(found, text)

    def _choice(self, text: str):
        """The choice whose value or shown text (in any language) matches, case-insensitively."""
        want = text.strip().lower()
        for c in self.choices:
            shown = {str(c).lower(), *(self.show(c, lang).lower() for lang in ("ko", "en") if self.show)}
            if want in shown:
                return c
            if isinstance(c, float):
                try:
                    if float(want) == c:
                        return c
                except ValueError:
                    pass
        return None

    def _changed(self, value, used, text: str) -> bool:
        if self.multi:  # some picks were unknown and dropped
            return len(used) != len([s for s in text.split(",") if s.strip()])
        return used != value

    def display(self, value, lang: str = "en") -> str:
        """For a multi-choice knob, one choice or the whole pick."""
        if self.multi and isinstance(value, tuple | list):
            return ", ".join(super(ChoiceKnob, self).display(v, lang) for v in value)
        return super().display(value, lang)

    def dump(self, value, lang: str = "en") -> dict[str, str | list[str]]:
        """One entry per choice for a multi-choice knob, as its widget writes them; a model passed as its `Model`
        as its id (an imported model's names one spec, on every server; its name may be any file's)."""
        if value == self.default:
            return {}
        if self.multi:
            return {self.key: [_written(v, self.display(v, lang)) for v in value]}
        return {self.key: _written(value, self.display(value, lang))}


@dataclass(frozen=True)
class _Parted(Knob):
    """A value made of parts, each read and written by a knob of its own."""

    parts: tuple[Knob, ...] = ()

    def __post_init__(self):
        if not self.parts:
            raise ValueError(f"{self.name}: a {self.kind} knob needs parts")

    def read(self, params: Params, lang: str = "en") -> tuple[object, list[Note]]:
        values, notes = [], []
        for part, default in zip(self.parts, self._part_values(self.default)):
            value, n = replace(part, default=default).read(params, lang)
            values.append(value)
            notes += n
        return self._joined(values), notes

    def dump(self, value, lang: str = "en") -> dict[str, str | list[str]]:
        """Each part's URL params (those that differ from the part's default)."""
        out = {}
        for part, v, d in zip(self.parts, self._part_values(value), self._part_values(self.default)):
            out |= replace(part, default=d).dump(v, lang)
        return out

    def _part_values(self, value) -> tuple:
        raise NotImplementedError

    def _joined(self, values: list):
        raise NotImplementedError


@dataclass(frozen=True)
class TupleKnob(_Parted):
    """Fixed-length ints: "2,4" under the knob's own key, or one part knob per item."""

    kind: ClassVar[str] = "tuple"

    def read(self, params: Params, lang: str = "en") -> tuple[object, list[Note]]:
        if any(k in params for k in self.keys):
            return Knob.read(self, params, lang)
        return super().read(params, lang)

    def _clamp(self, value):
        return tuple(p.clamp(v) for p, v in zip(self.parts, value, strict=True))

    def _parse(self, text: str, values: list[str]):
        items = [s for s in re.split(r"[,\s]+", text.strip()) if s]
        if len(items) != len(self.parts):
            raise Invalid(text)
        return tuple(p.parse(s) for p, s in zip(self.parts, items))

    def _display(self, value) -> str:
        return ",".join(map(str, value))

    def _part_values(self, value) -> tuple:
        return value

    def _joined(self, values: list):
        return tuple(values)


@dataclass(frozen=True)
class PrecisionKnob(_Parted):
    """A precision preset and per-role overrides, one part knob each ('auto': the preset's)."""

    kind: ClassVar[str] = "precision"

    def _display(self, value) -> str:
        return value.preset

    def _part_values(self, value) -> tuple:
        return (value.preset, *(value.main_kv or "auto", value.index_key or "auto", value.local_kv or "auto"))

    def _joined(self, values: list):
        preset, *overrides = values
        return Precision(preset, *(None if o == "auto" else o for o in overrides))


@dataclass(frozen=True)
class MatrixKnob(Knob):
    """Rows of numbers as text, e.g. B2's "1, 0; 0, 1" (core.mechanisms.matrix_text)."""

    kind: ClassVar[str] = "matrix"

    def _parse(self, text: str, values: list[str]):
        try:
            return tuple(map(tuple, parse_matrix(text, self.name)))
        except ValueError as e:
            raise Invalid(str(e)) from None

    def _display(self, value) -> str:
        return format_matrix(value)


def _id(value):
    """A choice as the choices list it: a model passed as its `Model` by its id."""
    return value.id if isinstance(value, Model) else value


def _written(value, shown: str) -> str:
    return value.id if isinstance(value, Model) else shown


def _only(found: list, text: str):
    if not found or found[0] is None:
        raise Invalid(text)
    return found[0]


# --- knobs shared by many figures and by the sidebar -------------------------------------

def _model(value, lang: str) -> str:
    m = get(value)  # an id, or an imported model's Model
    return model_name(m.id, m.name, lang)


def _tokens(value, lang: str) -> str:
    return fmt_tokens(value)


def _named(prefix: str, kept: tuple = ()):
    """A choice shown by its label `prefix.<value>` in the page's language (values in `kept` as
    they are, upper-cased: format names). A widget writes what it shows to the URL, and a link
    is read in either language (`ChoiceKnob._choice`)."""
    def show(value, lang: str) -> str:
        return str(value).upper() if value in kept else t(f"{prefix}.{value}", lang)
    return show


LANG = ChoiceKnob("lang", choices=LANGS, label="app.lang", widget="radio", default=DEFAULT_LANG)
UNITS = ChoiceKnob("units", choices=BYTE_UNITS, label="app.units", widget="radio", show=_named("choice.units"),
             default=BYTE_UNITS[0])
# 1K … 3M tokens, two steps per octave (K = 1,024); 128K = 131,072 is the article's N. A link
# may ask for any N up to 2^30: the cost model is closed-form, its time does not grow with N.
CONTEXT_STOPS = tuple(sorted({int(f * 2 ** (10 + k)) for k in range(12) for f in (1, 1.5)}))
CONTEXT = IntKnob("context", 1, 1 << 30, label="app.context", help="app.context.help", url="ctx",
               widget="select_slider", show=_tokens, stops=CONTEXT_STOPS, default=1 << 17)
# every layout name; a model that lacks one for a role keeps its deployed format there (core.cost.fitted)
_OVERRIDES = ("auto", *LAYOUT_PRECISIONS)
PRECISION = PrecisionKnob("precision", label="app.precision", default=Precision(), parts=(
    ChoiceKnob("preset", choices=PRESETS, label="app.precision", help="app.precision.help", url="prec",
         aliases=("precision",), widget="radio", show=_named("choice.preset"), default=PRESETS[0]),
    *(ChoiceKnob(role, choices=_OVERRIDES, label=f"role.{role}", url=url, widget="select",
           show=_named("choice", LAYOUT_PRECISIONS), default="auto")
      for role, url in (("main_kv", "main"), ("index_key", "ikey"), ("local_kv", "local"))),
))
SEED = IntKnob("seed", 0, 9999, label="ctl.seed", widget="number")
# the talk look: not a figure knob, applied to any figure on screen and in exports
THEME = ChoiceKnob("theme", choices=THEMES, label="app.theme", widget="radio", show=_named("choice.theme"),
             default=THEMES[0])
FONT_SCALE = ChoiceKnob("font_scale", choices=(1.0, 1.25, 1.5, 2.0), label="app.font", url="fs",
                  widget="select_slider", default=1.0)


def help_fields() -> dict:
    """The spec numbers that controls' help texts quote ("article: r_kv"), read from core when shown."""
    v2, v32, v4, v41 = (get(m) for m in ("v2", "v3.2", "v4-flash", "v4.1-flash"))
    return {"v2_rkv": v2.dims.kv_lora_rank, "v2_dk": v2.dims.qk_nope_head_dim, "v32_topk": f"{v32.index_topk:,}",
            "v4_csa": v4.ratio("CSA"), "v4_hca": v4.ratio("HCA"), "v4_topk": v4.index_topk,
            "v41_enc": v41.ratio("CSA2", "encoder"), "v41_dec": v41.ratio("CSA2", "decoder"),
            "v41_topk": v41.index_topk}


def models(choices: Sequence[str], *, multi: bool = True, nullable: bool = False, url: str = "models",
           label: str = "ov.models", name: str = "models", imports: bool = False) -> ChoiceKnob:
    """A pick of model ids, shown by name; with `imports`, on a page the reader's imported models
    among them."""
    return ChoiceKnob(name, choices=tuple(choices), multi=multi, nullable=nullable, url=url, label=label,
                      widget="multiselect" if multi else "select", show=_model, imports=imports)
