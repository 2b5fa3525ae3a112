"""Token-axis compression (the companion article, figures B1–B4), its prose between the figures."""

from __future__ import annotations

from decimal import MAX_EMAX, MIN_EMIN, Context, Decimal, localcontext

import numpy as np

from core import get
from core.mechanisms import ReadPlan, SummaryRun, entry_count, format_matrix, read_plan, run_summary
from figures import FIGURES, Box
from i18n import t

from ..blocks import Ask, Chart, Either, Metrics, Reading, Text, Title
from ..prose import passage
from ..sources import SOURCES
from .common import Blocks, controls

SLUG = "token-axis"
MODEL = "v4-flash"  # the model whose compressor the section relates to
LONG = 1_000  # a teaching context, in tokens: where the counts of B3 and B4 are carried to show how they grow


def token_axis(v: Reading) -> Blocks:
    """Token-axis compression in the page's own order: the counts first, then what one entry holds.
    What is merged (B1); when an entry exists and what the local KV covers (B3); how many are read,
    all or top-k, and why storing and reading are set apart (B4); then one entry worked out on the
    matrices in effect, what it keeps and loses (B2); what m, k and the window trade; the real models."""
    L = v.lang
    m = get(MODEL)
    b4 = FIGURES["B4"]
    model = dict(csa=m.ratio("CSA"), hca=m.ratio("HCA"), topk=f"{m.index_topk:,}", window=f"{m.window:,}",
                 g1=b4.knob("groups").default[0], g2=b4.knob("groups").default[1])
    yield Title(t("tb.title", L))
    yield Text(t("tb.intro", L), "caption")
    yield from passage(SLUG, "intro", L, **_intro_fields(m, v.context, L))
    yield from passage(SLUG, "axes", L)
    yield Either(app=(Text(t("tb.how.b1", L), "caption"),))
    b1 = yield from controls("B1", "rows", "components", "group", lang=L)
    yield Chart("B1", b1, "content")
    yield from passage(SLUG, "axes-read", L, **_b1_fields(**b1))
    yield from passage(SLUG, "when", L)
    yield Either(app=(Text(t("tb.how.b3", L), "caption"),))
    b3 = yield from controls("B3", "position", "group", "window", lang=L)
    yield Chart("B3", b3, "content")
    yield from passage(SLUG, "when-read", L, **_b3_fields(b3["position"], b3["group"], b3["window"], L))
    yield from passage(SLUG, "growth", L, g=b3["group"], w=b3["window"], long=f"{LONG:,}",
                       long_entries=f"{read_plan(LONG - 1, b3['group'], b3['window']).stored:,}")
    yield from passage(SLUG, "read", L)
    yield Either(app=(Text(t("tb.how.b4", L), "caption"),))
    position, groups, topk = yield Ask((b4.knob("position"), b4.knob("groups"), b4.knob("topk")))
    window = b3["window"]
    chosen, coarse = read_plan(position, groups[0], window, topk=topk), read_plan(position, groups[1], window)
    yield Metrics(tuple((t("tb.m.stored", L, g=g), f"{plan.stored} / {plan.read}")
                        for g, plan in ((groups[0], chosen), (groups[1], coarse))))
    yield Chart("B4", dict(position=position, groups=groups, topk=topk, window=window, lang=L), "content")
    far = read_plan(LONG - 1, groups[0], window, topk=topk), read_plan(LONG - 1, groups[1], window)
    yield from passage(SLUG, "read-read", L, t=position, g1=groups[0], g2=groups[1], k=topk, w=window,
                       s1=chosen.stored, r1=chosen.read, s2=coarse.stored, r2=coarse.read, full=position + 1,
                       chosen=_listed([_entry(r) for r in chosen.rows if r.kind == "compressed"], L),
                       long=f"{LONG:,}", long_r1=f"{far[0].read:,}", long_r2=f"{far[1].read:,}")
    yield from passage(SLUG, "stored", L, long=f"{LONG:,}", long_r1=f"{far[0].read:,}", long_s1=f"{far[0].stored:,}")
    yield from passage(SLUG, "entry", L)
    yield Either(app=(Text(t("tb.b2.help", L), "caption"),), site=(Text(t("tb.b2.site", L), "caption"),))
    matrices = yield from controls("B2", "H", "W_u", "W_s", lang=L)
    if None not in matrices.values():  # a matrix that does not parse says so by its control
        try:
            run = run_summary(matrices["H"], matrices["W_u"], matrices["W_s"])
        except ValueError as e:  # shapes that do not fit together, e.g. W_u with the wrong number of rows
            yield Text(t("tb.error", L, e=e), "error")
        else:
            yield Chart("B2", matrices, "content")
            yield from passage(SLUG, "entry-read", L, **_b2_fields(run, L))
            yield from passage(SLUG, "kept", L, **_kept_fields(run, L))
            yield from passage(SLUG, "lost", L, c_rev=_vec(run_summary(run.H[::-1], run.W_u, run.W_s).c))
    yield from passage(SLUG, "entry-try", L)
    yield from passage(SLUG, "tradeoff", L)
    yield from passage(SLUG, "models", L, **model)
    # the model's repository holds its config and its official inference code (the compressor)
    yield from passage(SLUG, "sources", L, **model, config=m.source, repo=m.source.split("/blob/")[0], **SOURCES)


def _intro_fields(m, context: int, lang: str) -> dict:
    """What one layer of V4-Flash stores and reads at the page's context, for the opening: an
    uncompressed layer, a CSA layer (top-k of its entries, or all while there are fewer) and an HCA
    layer (all), each with the window beside (core's entry count: complete segments only)."""
    csa, hca, k = m.ratio("CSA"), m.ratio("HCA"), m.index_topk
    csa_stored, hca_stored = entry_count(context, csa), entry_count(context, hca)
    pick = t("tb.csa.pick", lang, k=f"{k:,}") if csa_stored > k else t("tb.csa.all", lang, k=f"{k:,}")
    return dict(ctx=f"{context:,}", full=f"{context:,}", csa=csa, hca=hca, window=f"{min(m.window, context):,}",
                csa_stored=f"{csa_stored:,}", hca_stored=f"{hca_stored:,}", csa_read=pick)


def _b1_fields(rows: int, components: int, group: int, lang: str) -> dict:
    """B1 as drawn: the grid, its narrower half and its merged rows (a segment that is not full makes none)."""
    n = rows // group
    rest = [f"p{p}" for p in range(n * group, rows)]
    return dict(rows=rows, comp=components, half=components // 2, g=group, n=n,
                rest=t("tb.rest", lang, p=_listed(rest, lang)) if rest else "")


def _b2_fields(run: SummaryRun, lang: str) -> dict:
    """B2's worked example, every value core's: the rows of H, U and S, the first component's softmax
    written out, A's columns and each component's weighted sum; the note on an identity H."""
    n, d = run.H.shape
    scores = run.S[:, 0]
    exps, total = _exps(scores)
    sums = [f"- {t('tb.comp', lang, i=j + 1)}: "
            + " + ".join(f"{_factor(u)} × {_factor(a)}" for u, a in zip(run.U[:, j], run.A[:, j]))
            + f" = {_num(run.c[j])}" for j in range(run.U.shape[1])]
    return dict(n=n, d=d, d_out=run.U.shape[1], h_rows=", ".join(f"h{i} = {_vec(h)}" for i, h in enumerate(run.H)),
                u_rows=", ".join(map(_vec, run.U)), s_rows=", ".join(map(_vec, run.S)), s_col=_vec(scores),
                e_col=_vec(exps), e_sum=_num(total), a_col=_vec(run.A[:, 0]),
                a_cols=", ".join(map(_vec, run.A.T)), sums="\n".join(sums), c=_vec(run.c), ln=_logs(run, lang),
                same=t("tb.identity", lang) if n == d and np.array_equal(run.H, np.eye(n)) else "")


def _logs(run: SummaryRun, lang: str) -> str:
    """The sentence saying how B2 prints a natural log the prose writes as typed ('ln 3' drawn as
    1.10), or nothing when no value is one."""
    drawn = Box("", (1, 1)).fmt  # how the figure's boxes write a value
    logs = {}  # each log once, in the order met
    for x in (x for matrix in (run.H, run.W_u, run.W_s, run.S) for x in matrix.flat):
        if (typed := _num(x)).startswith("ln"):
            logs.setdefault(typed, drawn.format(float(x)))
    return t("tb.ln", lang, v=", ".join(f"{typed} ≈ {shown}" for typed, shown in logs.items())) if logs else ""


def _kept_fields(run: SummaryRun, lang: str) -> dict:
    """What B2's entry keeps: the plain mean it would be with equal scores (W_s all zeros), and in
    each component the token with the largest weight (or an even split)."""
    n = run.H.shape[0]
    mean = run_summary(run.H, run.W_u, np.zeros_like(run.W_s)).c
    lean = []
    for j, column in enumerate(run.A.T):
        if np.allclose(column, column[0]):
            lean.append(t("tb.lean.even", lang, j=j + 1, pct=f"{100 / n:.3g}"))
        else:
            i = int(np.argmax(column))
            lean.append(t("tb.lean", lang, j=j + 1, i=i, pct=f"{100 * column[i]:.3g}"))
    return dict(n=n, c=_vec(run.c), c_mean=_vec(mean), lean=_listed(lean, lang))


def _b3_fields(position: int, group: int, window: int, lang: str) -> dict:
    """B3 as drawn: what q_t and q_(t+group) read, and which positions are read twice, or not at all."""
    now, then = read_plan(position, group, window), read_plan(position + group, group, window)
    summarised, recent = _positions(now)
    later_summarised, later_recent = _positions(then)
    both, gone = sorted(summarised & recent), sorted((recent - later_recent) & later_summarised)
    done = [_entry(r) for r in now.rows if r.kind == "compressed"]
    note = t(_one("tb.both", both), lang, p=_listed(_names(both), lang)) if both else t("tb.both.none", lang)
    holders = [f"b{r.index}" for r in then.rows if r.kind == "compressed" and set(r.sources) & set(gone)]
    return dict(t=position, t2=position + group, g=group, w=window, s=now.stored, s2=then.stored,
                last=(now.stored + 1) * group - 1, read=now.read, read2=then.read,
                done=t("tb.done", lang, t=position, list=_listed(done, lang, elide=True)) if done
                else t("tb.done.none", lang, t=position),
                recent=_listed(_names(sorted(recent)), lang), recent2=_listed(_names(sorted(later_recent)), lang),
                note=" ".join(filter(None, (note, _gap(now, lang)))),
                note2=" ".join(filter(None, (gone and t(_one("tb.gone", gone), lang, p=_listed(_names(gone), lang),
                                                        e=_listed(holders, lang)), _gap(then, lang)))))


def _one(key: str, items) -> str:
    """A sentence's key for one item (English agrees its verb: 'p4 is', 'p4 and p5 are')."""
    return f"{key}.one" if len(items) == 1 else key


def _positions(plan: ReadPlan) -> tuple[set[int], set[int]]:
    """The positions a plan reads inside summaries, and those it reads one by one."""
    summarised = {s for r in plan.rows if r.kind == "compressed" for s in r.sources}
    return summarised, {r.index for r in plan.rows if r.kind == "window"}


def _gap(plan: ReadPlan, lang: str) -> str:
    """The sentence about positions in no entry read (a window shorter than the group still filling)."""
    summarised, recent = _positions(plan)
    gap = sorted(set(range(plan.position + 1)) - summarised - recent)
    return t("tb.gap", lang, p=_listed(_names(gap), lang)) if gap else ""


def _entry(row) -> str:
    """A summary and the positions it holds, e.g. 'b1 (p2–p3)'."""
    lo, hi = min(row.sources), max(row.sources)
    return f"b{row.index} (p{lo}–p{hi})" if hi > lo else f"b{row.index} (p{lo})"


def _names(positions) -> list[str]:
    return [f"p{p}" for p in positions]


def _listed(names: list[str], lang: str, elide: bool = False) -> str:
    """Names joined as the language lists them (English: 'p4, p5 and p6'); none said in words; a
    long run (consecutive names) as its first … last."""
    if not names:
        return t("tb.none", lang)
    if elide and len(names) > 4:
        return f"{names[0]} … {names[-1]}"
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + t("tb.and", lang) + names[-1]


def _exps(scores) -> tuple[list[Decimal], Decimal]:
    """e^s of each score and their sum, for any score a reader can type (a float's exp overflows past e^709)."""
    with localcontext(Context(prec=12, Emax=MAX_EMAX, Emin=MIN_EMIN)):
        exps = [Decimal(float(s)).exp() for s in scores]
        return exps, sum(exps, Decimal(0))


def _num(x) -> str:
    """A value as the prose writes it: a natural log of a whole number as the reader types it
    ('ln 3'), else four significant digits, no '-0'; beyond a float's range (an exponential of a
    large score) in scientific notation."""
    if isinstance(x, Decimal):
        return _num(float(x)) if x.adjusted() < 300 else f"{x:.3e}"  # adjusted(): its exponent, no rounding
    typed = format_matrix([[float(x)]])
    return typed if typed.startswith("ln") else f"{float(x) + 0.0:.4g}"


def _factor(x) -> str:
    return f"({_num(x)})" if x < 0 else _num(x)


def _vec(xs) -> str:
    return "[" + ", ".join(map(_num, xs)) + "]"
