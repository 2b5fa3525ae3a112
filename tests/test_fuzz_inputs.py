"""Pasted and uploaded text a visitor controls (B2's matrices, a model's config.json):
generated malformed input gets one clear line, never another exception."""

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from core.config_import import import_config
from core.config_json import ConfigError
from core.mechanisms.matrix_text import parse_matrix

FUZZ = settings(max_examples=300, deadline=None, derandomize=True)
json_values = st.recursive(st.none() | st.booleans() | st.integers(-2**70, 2**70) | st.floats() | st.text(max_size=8),
                           lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner,
                                                                                       max_size=4), max_leaves=12)
FIELDS = ("num_hidden_layers", "hidden_size", "num_attention_heads", "num_key_value_heads", "head_dim",
          "kv_lora_rank", "qk_rope_head_dim", "sliding_window", "layer_types", "index_topk", "model_type")


def assert_one_line(message: str) -> None:
    assert message.strip() and "\n" not in message.strip() and "Traceback" not in message


@FUZZ
@given(text=st.text(max_size=200))
def test_any_matrix_text_parses_or_says_why_in_one_line(text):
    try:
        rows = parse_matrix(text, "W_s")
    except ValueError as e:
        assert_one_line(str(e))
    else:
        assert rows and len({len(r) for r in rows}) == 1


@FUZZ
@given(data=st.one_of(st.binary(max_size=300), st.text(max_size=300)))
def test_any_bytes_import_or_say_why_in_one_line(data):
    try:
        import_config(data)
    except ConfigError as e:
        assert_one_line(str(e))


@FUZZ
@given(config=st.dictionaries(st.sampled_from(FIELDS), json_values, max_size=8))
def test_any_config_like_object_imports_or_says_why_in_one_line(config):
    try:
        found = import_config(json.dumps(config, allow_nan=True))
    except ConfigError as e:
        assert_one_line(str(e))
    else:
        assert found.model.n_layers >= 1
