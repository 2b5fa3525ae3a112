"""Labels of the RoPE figure (V2), in Korean and English (i18n.t)."""
# ruff: noqa: E501  (a table of labels: one label per line reads better than wrapped strings)

TEXT: dict[str, dict[str, str]] = {
}
