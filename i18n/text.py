"""Every label of figures and pages, in Korean (the article's) and English (see `i18n.t`): the
tables of i18n/labels/, a module per page, merged; a key in two of them is an error."""

from __future__ import annotations

from .labels import any_model, budget, chrome, common, rope, token_axis, v2, v4, v32, v41

TEXT: dict[str, dict[str, str]] = {}
for _table in (common, chrome, v2, rope, v32, v4, v41, token_axis, any_model, budget):
    if twice := TEXT.keys() & _table.TEXT.keys():
        raise KeyError(f"labels defined twice: {sorted(twice)}")
    TEXT |= _table.TEXT
