"""The figure catalogue (docs/catalogue.md), written from the registry: what each figure
shows (its builder's docstring) and every knob with its link key, type, range and default.
`python -m publish catalogue --out docs/catalogue.md` rewrites it; a test keeps it current."""

from __future__ import annotations

import inspect

from core.mechanisms import MAX_MATRIX_SIZE
from figures import (
    EXTRAS,
    FIGURES,
    ChoiceKnob,
    FigureSpec,
    FloatKnob,
    IntKnob,
    Knob,
    MatrixKnob,
    PrecisionKnob,
    TupleKnob,
    ordered_ids,
)

HEAD = """# Figure catalogue

Every figure of the two articles (A: *DeepSeek's KV cache: from 3.9 MB to 890 B per token*;
B: *Token-axis compression*), and the charts the articles describe without numbering them.
Generated from the registry (`figures/registry.py`) by `python -m publish catalogue`; do not
edit by hand. A figure's link is `?figure=<id>&<key>=<value>…` (add `&embed=true` for an
iframe); its knobs take the same keys on the command line: `python -m publish export --ids
<id> --set <key>=<value>`. Values outside a range are clamped, unreadable ones replaced by the
default, each with a note.
"""


def markdown() -> str:
    parts = [HEAD]
    for title, specs in (("Article figures", [FIGURES[f] for f in ordered_ids()]),
                         ("Charts without a number", list(EXTRAS.values()))):
        parts.append(f"## {title}\n")
        parts += [_section(spec) for spec in specs]
    return "\n".join(parts)


def _section(spec: FigureSpec) -> str:
    shows = " ".join(inspect.getdoc(spec.builder).split("\n\n")[0].split())
    rows = [f"| `{k.name}` | {_keys(k)} | {_kind(k)} | {_range(k)} | {_value(k, k.default)} |" for k in spec.knobs]
    return "\n".join([
        f"### {spec.id} · {spec.title('en')}", "", f"*{spec.title('ko')}*", "", shows, "", *_plays(spec),
        "| knob | link key | type | range or choices | default |", "|---|---|---|---|---|", *rows, ""])


def _plays(spec: FigureSpec) -> list[str]:
    """A figure with a play control: what its frames step through, and where it plays."""
    if spec.play is None:
        return []
    key = spec.knob(spec.play.knob).key
    return [f"▶ Plays one frame per `{key}` from {spec.play.lo} to {spec.play.hi}: the page's ▶ Play toggle, "
            f"its HTML export, `python -m publish animate --id {spec.id} --out {spec.id.lower()}.mp4`.", ""]


def _keys(k: Knob) -> str:
    if k.parts:
        alone = f" (or `{k.name}=a,b`)" if isinstance(k, TupleKnob) else ""
        return ", ".join(f"`{p.key}`" for p in k.parts) + alone
    return ", ".join(f"`{key}`" for key in k.keys)


def _kind(k: Knob) -> str:
    return f"{k.kind} (several)" if k.multi else k.kind


def _range(k: Knob) -> str:
    return RANGES[type(k)](k)


def _numbers(k: IntKnob | FloatKnob) -> str:
    lo, hi = (f"{int(x):,}" if isinstance(k, IntKnob) else f"{x:g}" for x in (k.lo, k.hi))
    step = f", step {k.step:g}" if k.step else ""
    return f"{lo} … {hi}{step}" + (", or none" if k.nullable else "")


def _parts(k: TupleKnob | PrecisionKnob) -> str:
    return "; ".join(f"{p.key}: {_range(p)}" for p in k.parts)


# what a knob of each kind takes, as the catalogue writes it
RANGES = {
    IntKnob: _numbers,
    FloatKnob: _numbers,
    ChoiceKnob: lambda k: ", ".join(f"`{c}`" for c in k.choices) + (", or none" if k.nullable else ""),
    TupleKnob: _parts,
    PrecisionKnob: _parts,
    MatrixKnob: lambda k: f"up to {MAX_MATRIX_SIZE} × {MAX_MATRIX_SIZE} numbers: rows by `;`, values by `,` "
                          "(`ln 3` allowed)",
}


def _value(k: Knob, value) -> str:
    if isinstance(k, PrecisionKnob):
        return f"`{value.preset}`"
    if isinstance(k, ChoiceKnob):  # ids, as links take them
        return f"`{', '.join(value) if k.multi else value or 'none'}`"
    return f"`{k.display(value)}`".replace("|", "\\|")
