"""config.json import: what it detects and reads, one clear line for every kind of bad input,
an imported model's id (a digest of its spec) and the model going wherever a model id goes as its
Model, and properties of the cost model on generated configs."""

from __future__ import annotations

import codecs
import dataclasses
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import core
from core import registry
from core.config_import import Imported, import_config
from core.config_json import MAX_BYTES, ConfigError, read_config
from core.cost import Precision, layer_groups
from core.open_models import CONFIGS

SLIDING = "sliding_attention"
LLAMA = {"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 4096,
         "num_attention_heads": 32, "num_key_value_heads": 8, "num_hidden_layers": 32}


def config(*drop: str, **change) -> str:
    """LLAMA as JSON text, with keys dropped or changed."""
    return json.dumps({**{k: v for k, v in LLAMA.items() if k not in drop}, **change})


def bf16_storage(imported: Imported) -> int:
    return core.storage_per_token(imported.model, core.ALL_BF16).total


# --- what the import reads ---------------------------------------------------------------------


def test_granite_style_mamba2_fields_size_the_state_from_mamba_expand():
    # Granite 4.0-H's names: the inner width is mamba_expand × hidden_size, "auto" heads share it
    imported = import_config(config(num_hidden_layers=4, layer_types=["mamba", "mamba", "mamba", "attention"],
                                    mamba_n_heads=64, mamba_d_head="auto", mamba_d_state=128, mamba_n_groups=1,
                                    mamba_d_conv=4, mamba_expand=2))
    inner = 2 * 4096
    assert imported.defaulted["mamba_d_head"] == (inner // 64, "inner width ÷ mamba_n_heads")
    assert core.state_bytes(imported.model) == 3 * (3 * (inner + 2 * 128) * 2 + 64 * 128 * 128 * 2)
    assert bf16_storage(imported) == 1 * 2 * 8 * 128 * 2


def test_falcon_h1_runs_attention_and_mamba2_in_every_layer():
    # no layout key in the file: FalconH1Config gives every layer "hybrid"; mamba_d_ssm is the inner width
    imported = import_config(config(model_type="falcon_h1", num_hidden_layers=3, num_key_value_heads=2,
                                    head_dim=128, mamba_d_ssm=3072, mamba_n_heads=24, mamba_d_head=128,
                                    mamba_d_state=256, mamba_n_groups=1, mamba_d_conv=4, mamba_expand=2))
    m = imported.model
    assert [ly.label for ly in m.layers] == ["GQA + Mamba2"] * 3 and m.n_state == m.n_global == 3
    assert core.state_bytes(m) == 3 * (3 * (3072 + 2 * 256) * 2 + 24 * 128 * 256 * 2)
    assert bf16_storage(imported) == 3 * 2 * 2 * 128 * 2
    assert imported.design == "parallel hybrid: GQA beside Mamba2 in every layer"
    [group] = layer_groups(m, core.ALL_BF16)
    assert (group.kind, group.per_token, group.state) == ("GQA + Mamba2", 2 * 2 * 128 * 2, core.state_bytes(m) // 3)


def test_a_falcon_h1_layer_that_shares_kv_keeps_its_state():
    imported = import_config(config(model_type="falcon_h1", num_hidden_layers=3, num_kv_shared_layers=1,
                                    num_key_value_heads=2, head_dim=128, mamba_d_ssm=64, mamba_n_heads=2,
                                    mamba_d_head=32, mamba_d_state=16, mamba_n_groups=1, mamba_d_conv=4))
    m = imported.model
    assert [(ly.label, ly.kv_from) for ly in m.layers] == [("GQA + Mamba2", None)] * 2 + [("GQA + Mamba2", 1)]
    assert m.n_state == 3 and m.n_global == 2


@pytest.mark.parametrize("width", [{}, {"conv_dim": 1024}])
def test_a_short_convolution_holds_its_window_of_inputs_and_no_recurrent_state(width):
    # LFM2: conv_L_cache − 1 inputs of conv_dim channels (vLLM's lfm2.py), else hidden_size (lfm2_moe.py)
    imported = import_config(config(num_hidden_layers=3, layer_types=["conv", "conv", "full_attention"],
                                    conv_L_cache=3, **width))
    channels = width.get("conv_dim", 4096)
    assert [(what, values) for what, values, _ in imported.model.state.parts] == [("convolution", 2 * channels)]
    assert core.state_bytes(imported.model) == 2 * 2 * channels * 2


def test_lfm2s_attention_indices_place_its_short_convolutions():
    # LFM2-1.2B's fields as published: attention at full_attn_idxs, a convolution of hidden_size elsewhere
    imported = import_config(json.dumps({
        "model_type": "lfm2", "num_hidden_layers": 16, "hidden_size": 2048, "num_attention_heads": 32,
        "num_key_value_heads": 8, "conv_L_cache": 3, "full_attn_idxs": [2, 5, 8, 10, 12, 14]}))
    assert [i for i, ly in enumerate(imported.model.layers) if ly.kind == "GQA"] == [2, 5, 8, 10, 12, 14]
    assert core.state_bytes(imported.model) == 10 * 2 * 2048 * 2 == 81_920
    assert bf16_storage(imported) == 6 * 2 * 8 * 64 * 2


@pytest.mark.parametrize("key, value", [("attention_types", [[["global", "local"], 16]]),
                                        ("attention_layers", ["local"] * 32), ("block_types", ["retention"] * 32),
                                        ("attn_pattern", "LLLG")])
def test_a_layer_kind_field_the_import_does_not_read_is_refused_by_name(key, value):
    """GPT-Neo's local layers, a new family's block kinds: never priced as plain attention."""
    for text in (config(**{key: value}), json.dumps({"text_config": {**LLAMA, key: value}})):
        with pytest.raises(ConfigError, match=key):
            import_config(text)
    assert import_config(config(attention_dropout=0.0, attention_bias=False)).ignored  # the harmless ones pass


def test_sparse_attention_switched_off_is_plain_attention():
    imported = import_config(config(sparse_attention_config={"use_sparse_attention": False}))
    assert bf16_storage(imported) == 32 * 2 * 8 * 128 * 2


def test_the_import_says_how_many_mtp_layers_the_config_names_counted_or_not():
    text = config(num_nextn_predict_layers=2)
    assert [(i.draft, i.model.n_layers) for i in (import_config(text), import_config(text, mtp=True))] == [
        (2, 32), (2, 34)]
    assert import_config(config()).draft == 0


def test_a_gqa_config_becomes_a_spec_with_k_and_v_per_kv_head():
    imp = import_config(config())
    assert (imp.design, imp.model.id, imp.model.name) == ("GQA", "custom", "custom")
    assert bf16_storage(imp) == 32 * 2 * 8 * 128 * 2
    assert imp.used == {"model_type": "llama", "num_hidden_layers": 32, "num_attention_heads": 32,
                        "num_key_value_heads": 8, "hidden_size": 4096}
    assert imp.defaulted == {"head_dim": (128, "hidden_size / num_attention_heads, as the config classes do")}
    assert imp.ignored == ("architectures",) and imp.notes == ()


@pytest.mark.parametrize("kv,design", [(32, "MHA"), (1, "MQA"), (4, "GQA")])
def test_the_design_follows_the_number_of_kv_heads(kv, design):
    imp = import_config(config(num_key_value_heads=kv))
    assert imp.design == design
    assert bf16_storage(imp) == 32 * 2 * kv * 128 * 2


def test_without_num_key_value_heads_every_head_caches_its_own_kv():
    imp = import_config(config("num_key_value_heads"))
    assert imp.design == "MHA" and imp.model.dims.num_key_value_heads == 32
    assert imp.defaulted["num_key_value_heads"][0] == 32


def test_an_explicit_head_dim_wins_over_hidden_size_over_heads():
    imp = import_config(config(head_dim=256))
    assert imp.model.dims.head_dim == 256 and "head_dim" not in imp.defaulted


def test_mla_caches_the_latent_and_the_rope_key_whatever_the_kv_heads():
    imp = import_config(json.dumps({"num_hidden_layers": 10, "num_attention_heads": 16, "num_key_value_heads": 16,
                                    "kv_lora_rank": 256, "qk_rope_head_dim": 32}))
    assert imp.design == "MLA" and bf16_storage(imp) == 10 * (256 + 32) * 2
    assert any("num_key_value_heads" in note for note in imp.notes)


def test_an_indexer_adds_its_key_to_storage_and_reads_top_k_of_the_main_kv():
    imp = import_config(json.dumps({"num_hidden_layers": 4, "kv_lora_rank": 512, "qk_rope_head_dim": 64,
                                    "index_head_dim": 128, "index_n_heads": 64, "index_topk": 100}))
    assert imp.design == "MLA + DSA indexer"
    assert bf16_storage(imp) == 4 * (576 + 128) * 2
    r = core.reads(imp.model, 1000, core.ALL_BF16)
    assert (r.main_kv, r.index_key) == (4 * 100 * 1152, 4 * 1000 * 256)


def test_layer_types_pick_the_sliding_layers_and_sliding_window_their_window():
    types = ["sliding_attention", "full_attention", "full_attention", "sliding_attention"]
    imp = import_config(config(num_hidden_layers=4, layer_types=types, sliding_window=16))
    assert imp.design == "hybrid local/global GQA"
    assert [ly.kind for ly in imp.model.layers] == ["SWA", "GQA", "GQA", "SWA"]
    assert core.local_kv(imp.model, core.ALL_BF16) == 2 * 16 * 4096
    assert bf16_storage(imp) == 2 * 4096


def test_qwen_style_windows_slide_the_layers_from_max_window_layers_on():
    imp = import_config(config(num_hidden_layers=6, use_sliding_window=True, sliding_window=64, max_window_layers=4))
    assert [ly.kind for ly in imp.model.layers] == ["GQA"] * 4 + ["SWA"] * 2
    off = import_config(config(use_sliding_window=False, sliding_window=64, max_window_layers=4))
    assert off.design == "GQA" and {"sliding_window", "max_window_layers"} <= set(off.ignored)


def test_a_sliding_window_pattern_makes_every_pth_layer_global():
    imp = import_config(config(num_hidden_layers=8, sliding_window_pattern=4, sliding_window=32))
    assert [i for i, ly in enumerate(imp.model.layers) if ly.kind == "GQA"] == [3, 7]


def test_a_sliding_window_alone_slides_every_layer_and_says_so():
    imp = import_config(config(sliding_window=512))
    assert imp.design == "sliding-window GQA" and bf16_storage(imp) == 0
    assert any("every layer slides" in note for note in imp.notes)


def test_a_null_sliding_window_means_no_window_even_where_the_family_has_a_default():
    assert import_config(config(model_type="mistral", sliding_window=None)).design == "GQA"
    mistral = import_config(config(model_type="mistral"))
    assert mistral.design == "sliding-window GQA"
    assert mistral.defaulted["sliding_window"] == (4096, "MistralConfig default")


def test_a_multimodal_config_is_read_from_its_text_config():
    imp = import_config(json.dumps({"model_type": "gemma3", "vision_config": {"num_hidden_layers": 27},
                                    "text_config": {"num_hidden_layers": 12, "hidden_size": 2560}}))
    assert imp.design == "hybrid local/global GQA"
    assert imp.defaulted["text_config.head_dim"] == (256, "Gemma3TextConfig default")
    assert imp.defaulted["text_config.sliding_window"] == (4096, "Gemma3TextConfig default")
    assert imp.used["text_config.num_hidden_layers"] == 12 and "vision_config" in imp.ignored


def test_read_config_gives_the_dict_and_importing_text_bytes_or_dict_agree():
    text = (CONFIGS / "gpt-oss-20b.json").read_text()
    assert read_config(text) == read_config(text.encode()) == json.loads(text)
    specs = {import_config(x).model for x in (text, text.encode(), json.loads(text))}
    assert len(specs) == 1


def test_a_key_given_twice_keeps_the_last_value_and_says_so():
    text = '{"num_hidden_layers": 30, "num_attention_heads": 8, "head_dim": 64, "num_hidden_layers": 32}'
    imp = import_config(text)
    assert imp.model.n_layers == 32
    assert "key 'num_hidden_layers' given twice; used the last value 32" in imp.notes


@pytest.mark.parametrize("encoding,bom,note", [
    ("utf-8", codecs.BOM_UTF8, "decoded UTF-8 text with a byte-order mark"),
    ("utf-16-le", codecs.BOM_UTF16_LE, "decoded UTF-16 text with a byte-order mark"),
    ("utf-16-be", codecs.BOM_UTF16_BE, "decoded UTF-16 text with a byte-order mark"),
    ("utf-16-le", b"", "decoded UTF-16-LE text without a byte-order mark"),
    ("utf-32-le", codecs.BOM_UTF32_LE, "decoded UTF-32 text with a byte-order mark"),
])
def test_a_byte_order_mark_or_utf16_is_decoded_and_noted(encoding, bom, note):
    imp = import_config(bom + config().encode(encoding))
    assert bf16_storage(imp) == 131072 and note in imp.notes


def test_a_byte_order_mark_in_text_is_dropped_and_noted():
    imp = import_config("\ufeff" + config())
    assert bf16_storage(imp) == 131072 and imp.notes == ("removed a byte-order mark before the JSON",)


# --- bad input: one line that names the field and the problem ----------------------------------

BAD = {
    "not JSON": ("hello", "the config is not valid JSON: Expecting value at line 1, column 1"),
    "not an object": ("[1, 2]", "must be a JSON object {…}, not a list"),
    "a bare string": ('"config"', 'must be a JSON object {…}, not a string "config"'),
    "empty": ("", "the config is empty"),
    "only whitespace": (b" \n\t ", "the config is empty"),
    "not UTF-8": (b'{"num_hidden_layers": "\xff"}', "is not utf-8 text: byte 0xff"),
    "truncated": (config()[:40], "the config ends early (truncated?)"),
    "truncated in a string": ('{"num_hidden_layers": 32, "model_ty', "ends early (truncated?): Unterminated string"),
    "deeply nested": ('{"a": ' + "[" * 40 + "]" * 40 + "}", "nested 41 levels deep"),
    "over 1 MB": (b" " * (MAX_BYTES + 1), "the config is over 1,048,576 bytes (1 MB)"),
    "not text at all": (12, "must be JSON text or bytes, not int"),
    "missing layers": (config("num_hidden_layers"), "num_hidden_layers is missing"),
    "null layers": (config(num_hidden_layers=None), "num_hidden_layers is null"),
    "a string for an integer": (config(num_hidden_layers="32"),
                                'num_hidden_layers must be an integer, got a string "32"'),
    "a boolean for an integer": (config(num_hidden_layers=True), "num_hidden_layers must be an integer, got true"),
    "a float for an integer": (config(num_attention_heads=32.0), "num_attention_heads must be an integer, got 32.0"),
    "NaN": ('{"num_hidden_layers": 32, "num_attention_heads": NaN}', "num_attention_heads is NaN"),
    "Infinity": ('{"num_hidden_layers": Infinity, "num_attention_heads": 32}', "num_hidden_layers is Infinity"),
    "-Infinity in a list": ('{"num_hidden_layers": 1, "num_attention_heads": 4, "head_dim": 8, '
                            '"layer_types": [-Infinity]}', "layer_types is -Infinity"),
    "NaN inside an object the import reads": (config(num_hidden_layers=2, linear_attn_config={"num_heads": 1}).replace(
        '"num_heads": 1', '"num_heads": NaN'), "linear_attn_config is NaN"),
    "a number too big for a float": (config(hidden_size=10**400).replace(str(10**400), "1e400"),
                                     "hidden_size must be an integer, got Infinity"),
    "zero layers": (config(num_hidden_layers=0), "num_hidden_layers must be at least 1, got 0"),
    "negative heads": (config(num_attention_heads=-32), "num_attention_heads must be at least 1, got -32"),
    "absurd layers": (config(num_hidden_layers=20_000), "num_hidden_layers 20,000 is absurd; at most 10,000"),
    "absurd width": (config(hidden_size=10**9), "hidden_size 1,000,000,000 is absurd"),
    "absurd entry": (config(num_attention_heads=2048, num_key_value_heads=2048, head_dim=128),
                     "K 128 + V 128 per KV head × 2048 KV heads = 524,288 values per token and layer is absurd"),
    "kv heads that do not divide": (config(num_key_value_heads=5),
                                    "num_key_value_heads 5 does not divide num_attention_heads 32"),
    "a fractional head_dim": (config(hidden_size=1000, num_attention_heads=24, num_key_value_heads=8),
                              "hidden_size 1000 / num_attention_heads 24 = 41.6667 is fractional"),
    "a float head_dim": (config(head_dim=64.5), "head_dim must be an integer, got 64.5"),
    "no hidden_size to derive head_dim": (config("hidden_size"), "hidden_size is missing: head_dim is not given"),
    "layer_types of the wrong length": (config(num_hidden_layers=4, layer_types=["full_attention"] * 3),
                                        "layer_types lists 3 layers but num_hidden_layers is 4"),
    "an unknown layer type": (config(num_hidden_layers=2, layer_types=["full_attention", "chunked_attention"]),
                              'layer_types has "chunked_attention", a layer kind the importer does not price'),
    "linear layers without state fields": (
        config(num_hidden_layers=2, layer_types=["full_attention", "linear_attention"]),
        "layer_types has linear or state-space layers, but the config has no state fields"),
    "a Gated DeltaNet layer without its widths": (
        config(num_hidden_layers=2, layer_types=["full_attention", "linear_attention"], linear_num_value_heads=32),
        "linear_num_key_heads is missing (a Gated DeltaNet layer's state)"),
    "layer_types not a list": (config(layer_types="sliding"),
                               'layer_types must be a list with an entry per layer, got a string "sliding"'),
    "an unknown layers_block_type": (config(num_hidden_layers=2, layers_block_type=["mamba", "retention"]),
                                     'layers_block_type has "retention"'),
    "an unknown pattern character": (config(num_hidden_layers=3, hybrid_override_pattern="M*X"),
                                     'hybrid_override_pattern has "X"'),
    "a pattern of the wrong length": (config(num_hidden_layers=3, hybrid_override_pattern="M*"),
                                      "hybrid_override_pattern lists 2 layers but num_hidden_layers is 3"),
    "an unknown attn_type_list value": (config(num_hidden_layers=2, attn_type_list=[0, 2]), "attn_type_list has 2"),
    "an unknown hybrid_layer_pattern value": (config(num_hidden_layers=2, hybrid_layer_pattern=[0, True]),
                                              "hybrid_layer_pattern has true"),
    "Kimi layer lists that skip a layer": (
        config(num_hidden_layers=3, linear_attn_config={"kda_layers": [1], "full_attn_layers": [3]}),
        "linear_attn_config.kda_layers and .full_attn_layers must number the layers 1 to 3 once each"),
    "attn_layer_offset beyond the period": (config(attn_layer_period=8, attn_layer_offset=8),
                                            "attn_layer_offset 8 must be below attn_layer_period 8"),
    "every layer shared": (config(num_hidden_layers=2, num_kv_shared_layers=2),
                           "num_kv_shared_layers 2: layer 0 (full_attention) has no earlier layer of its type"),
    "layers sharing compressed KV": (config(kv_source_layer_ids=[0]), "kv_source_layer_ids: layers that share"),
    "attention indices out of range": (config(num_hidden_layers=4, full_attn_idxs=[1, 4], conv_L_cache=3),
                                       "full_attn_idxs must list layer indices from 0 to 3 (num_hidden_layers 4)"),
    "attention indices without a convolution's fields": (
        config(num_hidden_layers=2, full_attn_idxs=[1]), "conv_L_cache is missing: conv layers keep"),
    "linear layers placed by an interval, no state fields": (
        config(num_hidden_layers=4, full_attention_interval=4),
        "full_attention_interval has linear or state-space layers, but the config has no state fields"),
    "conv layers beside other linear layers": (
        config(num_hidden_layers=3, layer_types=["conv", "linear_attention", "full_attention"], conv_L_cache=3,
               linear_num_value_heads=4),
        "layer_types mixes conv layers with other linear layers"),
    "conv layers without their window": (config(num_hidden_layers=2, layer_types=["conv", "full_attention"]),
                                         "conv_L_cache is missing"),
    "block-sparse attention beside a text_config": (
        json.dumps({"sparse_attention_config": {"use_sparse_attention": True}, "text_config": json.loads(config())}),
        "sparse_attention_config: block-sparse attention"),
    "block-sparse attention": (config(sparse_attention_config={"use_sparse_attention": True, "sparse_index_dim": 128}),
                               "sparse_attention_config: block-sparse attention with its own index keys"),
    # Zamba2: its "hybrid" layers are Mamba2 beside a shared attention block, its widths named its own way
    "Zamba2's state fields": (config(num_hidden_layers=2, layers_block_type=["mamba", "hybrid"], n_mamba_heads=8),
                              "layers_block_type has linear or state-space layers, but the config has no state "
                              "fields the importer knows"),
    "an auto head width that does not divide": (
        config(num_hidden_layers=2, layer_types=["mamba", "attention"], mamba_n_heads=7, mamba_d_head="auto",
               mamba_expand=2, mamba_d_state=16, mamba_n_groups=1, mamba_d_conv=4),
        'mamba_d_head is "auto" but the inner width 8,192 does not divide into mamba_n_heads 7'),
    "state fields no layout key places": (config(mamba_d_ssm=1024, mamba_n_heads=16, mamba_d_state=128),
                                          "mamba_n_heads describes a linear-attention or state-space layer"),
    "a negative window": (config(sliding_window=-1), "sliding_window must be at least 1, got -1"),
    "sliding layers without a window": (config(num_hidden_layers=2, layer_types=[SLIDING, "full_attention"]),
                                        "sliding_window is missing: some layers slide"),
    "use_sliding_window not a boolean": (config(use_sliding_window="yes"), 'use_sliding_window must be true or false'),
    "use_sliding_window without max_window_layers": (config(use_sliding_window=True, sliding_window=64),
                                                     "max_window_layers is missing: use_sliding_window is true"),
    "kv_lora_rank without qk_rope_head_dim": ('{"num_hidden_layers": 4, "kv_lora_rank": 512}',
                                              "qk_rope_head_dim is missing: kv_lora_rank is given"),
    "index_topk without index_head_dim": ('{"num_hidden_layers": 4, "kv_lora_rank": 512, "qk_rope_head_dim": 64, '
                                          '"index_topk": 2048}', "index_head_dim is missing: index_topk is given"),
    "an unknown architecture": ('{"architectures": ["MambaForCausalLM"], "num_hidden_layers": 64, "state_size": 16}',
                                "no attention fields (num_attention_heads, or kv_lora_rank for MLA) in the "
                                "MambaForCausalLM config"),
    "text_config not an object": ('{"model_type": "gemma3", "text_config": "gemma"}',
                                  'text_config must be an object, got a string "gemma"'),
    "compressed attention of another ratio": (config(num_hidden_layers=2, compress_ratios=[0, 8]),
                                              "compress_ratios has 8; the importer knows 0 (sliding only), 4 (CSA)"),
    "compressed attention without a ratio per layer": (config(compress_ratios=[0, 4]),
                                                        "compress_ratios must list a ratio for each of the 32 layers"),
}


@pytest.mark.parametrize("kind", BAD)
def test_bad_input_raises_one_clear_line_naming_the_field_and_the_problem(kind):
    data, message = BAD[kind]
    with pytest.raises(ConfigError) as caught:
        import_config(data)
    text = str(caught.value)
    assert message in text
    assert "\n" not in text and text == text.strip()
    assert isinstance(caught.value, ValueError)


def test_read_config_refuses_what_is_not_one_json_object():
    for kind in ("not JSON", "not an object", "empty", "truncated", "deeply nested"):
        with pytest.raises(ConfigError, match="config"):
            read_config(BAD[kind][0])


def test_a_value_shown_in_a_message_is_short_and_on_one_line():
    with pytest.raises(ConfigError) as caught:
        import_config(config(num_hidden_layers="line one\nline two " + "x" * 500))
    text = str(caught.value)
    assert "\n" not in text and len(text) < 120 and '"line one\\nline two' in text


# --- an imported model goes wherever a model id goes, as its Model -----------------------------------


def imported(m: core.Model) -> core.Model:
    """An imported model under its id, as the app's session keeps it (ui.state.remember_import)."""
    return dataclasses.replace(m, id=core.imported_id(m))


def test_an_imported_models_id_is_derived_from_its_content_alone():
    m = import_config(config(num_hidden_layers=7)).model
    key = core.imported_id(m)
    assert key.startswith("custom-") and len(key) == len("custom-") + 10
    assert core.imported_id(imported(m)) == key  # its own id aside
    assert core.imported_id(import_config(config(num_hidden_layers=7)).model) == key  # the same spec, the same id
    assert core.imported_id(import_config(config(num_hidden_layers=8)).model) != key


def test_an_imported_models_id_is_the_same_in_a_fresh_process():
    """A link that names an imported model reads the same on every server: the id is a digest, not a counter."""
    import pathlib
    import subprocess
    import sys

    text = config(num_hidden_layers=7)
    code = ("import sys, core; from core.config_import import import_config; "
            "print(core.imported_id(import_config(sys.argv[1], name='mine').model))")
    out = subprocess.run([sys.executable, "-c", code, text], capture_output=True, text=True, check=True,
                         cwd=pathlib.Path(__file__).resolve().parent.parent)
    assert out.stdout.strip() == core.imported_id(import_config(text, name="mine").model)


def test_an_imported_model_passes_as_its_model_and_core_keeps_no_id_of_it():
    m = imported(import_config(config(num_hidden_layers=7)).model)
    assert core.get(m) is m and core.storage_per_token(m, core.ALL_BF16).total == 7 * 4096
    assert registry.lookup(m.id) is None  # nothing is kept process-wide: its session holds it
    with pytest.raises(ValueError, match="unknown model"):
        core.get(m.id)


def test_two_models_that_differ_only_in_their_state_are_two_models():
    m = core.get("qwen3-next-80b-a3b")
    wider = dataclasses.replace(m, state=dataclasses.replace(m.state, parts=m.state.parts[:1]))
    assert core.imported_id(m) != core.imported_id(wider)


def test_the_same_config_under_another_name_is_another_model():
    a = core.imported_id(import_config(config(), name="mine").model)
    b = core.imported_id(import_config(config(), name="yours").model)
    assert a != b


def test_the_cost_sums_are_kept_per_spec_by_value():
    """Equal specs share their kept sums, whatever object holds them; a changed spec under the same id has its own."""
    from core.cost import _kept_coefficients

    m = imported(import_config(config(num_hidden_layers=7)).model)
    again = imported(import_config(config(num_hidden_layers=7)).model)
    assert again == m and hash(again) == hash(m) and again is not m
    before = _kept_coefficients.cache_info()
    core.cache_at(m, 1000, core.ALL_BF16), core.cache_at(again, 1000, core.ALL_BF16)
    after = _kept_coefficients.cache_info()
    assert after.misses - before.misses <= 1 and after.hits > before.hits and after.maxsize == 256
    changed = dataclasses.replace(m, layers=m.layers[:1])  # the same id, another spec
    assert core.storage_per_token(changed, core.ALL_BF16).total == 4096
    assert core.cache_at(changed, 10, core.ALL_BF16).total == 10 * 4096


def test_get_resolves_the_article_then_the_presets_and_passes_a_model_through():
    assert core.get("v3") is core.MODELS["v3"]
    assert core.get("llama-3.1-8b").name == "Llama 3.1 8B"
    m = import_config(config()).model
    assert core.get(m) is m
    assert registry.lookup("nope") is None
    with pytest.raises(ValueError, match="unknown model 'nope'"):
        core.get("nope")


def test_the_articles_models_stay_the_cost_modules_models():
    assert list(core.MODELS) == ["mha", "v2", "v3", "v3.2", "v4-flash", "v4.1-flash"]


# --- properties on generated configs ------------------------------------------------------------

WINDOWS = ("none", "every layer", "pattern", "layer_types", "qwen")


@st.composite
def configs(draw) -> dict:
    """Valid configs: MHA/GQA/MQA or MLA (with or without an indexer), any window scheme."""
    n = draw(st.integers(1, 40))
    if draw(st.booleans()):
        kv = draw(st.integers(1, 16))
        cfg = {"num_attention_heads": kv * draw(st.integers(1, 8)), "num_key_value_heads": kv,
               "head_dim": draw(st.sampled_from([16, 40, 64, 72, 128, 256]))}
    else:
        cfg = {"kv_lora_rank": draw(st.sampled_from([64, 96, 256, 512])),
               "qk_rope_head_dim": draw(st.sampled_from([16, 32, 64]))}
        if draw(st.booleans()):
            cfg |= {"index_head_dim": draw(st.sampled_from([32, 64, 128])), "index_topk": draw(st.integers(1, 3000))}
    scheme = draw(st.sampled_from(WINDOWS))
    window = draw(st.integers(1, 3000))
    if scheme == "every layer":
        cfg["sliding_window"] = window
    elif scheme == "pattern":
        cfg |= {"sliding_window": window, "sliding_window_pattern": draw(st.integers(1, 6))}
    elif scheme == "layer_types":
        slides = draw(st.lists(st.booleans(), min_size=n, max_size=n))
        cfg |= {"sliding_window": window, "layer_types": [SLIDING if s else "full_attention" for s in slides]}
    elif scheme == "qwen":
        cfg |= {"use_sliding_window": draw(st.booleans()), "sliding_window": window,
                "max_window_layers": draw(st.integers(0, n))}
    return {"num_hidden_layers": n, **cfg}


@settings(max_examples=150, deadline=None, database=None)
@given(cfg=configs(), extra=st.integers(0, 1 << 22), data=st.data())
def test_cache_at_n_is_storage_times_n_plus_local_kv_once_windows_are_full(cfg, extra, data):
    m = import_config(cfg).model
    p = Precision.every(data.draw(st.sampled_from(m.precisions)))
    n = max(m.window, 1) + extra
    growth, local = core.storage_per_token(m, p).total, core.local_kv(m, p)
    assert core.cache_at(m, n, p).total == growth * n + local
    assert core.cache_at(m, n + 1, p).total - core.cache_at(m, n, p).total == growth


@settings(max_examples=150, deadline=None, database=None)
@given(cfg=configs(), n=st.integers(1, 1 << 22), data=st.data())
def test_reads_never_exceed_what_is_held(cfg, n, data):
    m = import_config(cfg).model
    p = Precision.every(data.draw(st.sampled_from(m.precisions)))
    held, read = core.cache_at(m, n, p), core.reads(m, n, p)
    for part in ("main_kv", "index_key", "local_kv"):
        assert 0 <= getattr(read, part) <= getattr(held, part), part
    if not m.index_topk:
        assert read.total == held.total  # dense and sliding layers read everything they hold


@settings(max_examples=100, deadline=None, database=None)
@given(cfg=configs())
def test_the_design_names_what_the_schedule_holds(cfg):
    imp = import_config(cfg)
    kinds = {ly.kind for ly in imp.model.layers}
    assert imp.design.startswith("sliding-window") == (kinds == {"SWA"})
    assert imp.design.startswith("hybrid") == ("SWA" in kinds and len(kinds) > 1)
    assert ("MLA" in imp.design) == ("kv_lora_rank" in cfg)
