"""The 'Any model · GPU' page through AppTest: open presets beside the article's models, a
config.json uploaded or pasted (and refused with one clear line), the planner's numbers are
core's, and the reconciliation toggles show what a variant changes."""

import json
import pathlib

import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest
from test_app import assert_page_runs as run_page
from test_app import page_charts as charts

import core
import ui
from core.capacity import plan, weights_bytes
from core.gpus import GPUS
from core.open_models import CONFIGS, OPEN_MODELS
from core.units import fmt_bytes
from figures import EXTRAS

ROOT = pathlib.Path(__file__).resolve().parent.parent
LLAMA = (CONFIGS / "llama-3.1-8b.json").read_bytes()


def assert_page_runs(view=None, **params) -> AppTest:
    return run_page("pages/any-model.py", view or ui.View(lang="en"), timeout=90, **params)


def test_the_page_shows_open_presets_beside_the_article_s_models():
    at = assert_page_runs()
    presets, table = at.table[0].value, at.table[1].value
    assert set(presets.iloc[:, 0]) == {m.name for m in OPEN_MODELS.values()}
    assert {"Llama 3.1 8B", "gpt-oss-120b", "V4.1-Flash"} <= set(table.iloc[:, 0])
    llama = table[table.iloc[:, 0] == "Llama 3.1 8B"].iloc[0]
    assert llama.iloc[3] == 131_072  # 32 layers × 2 × 8 KV heads × 128 × 2 B
    titles = [c["layout"]["title"]["text"] for c in charts(at)]
    assert len(titles) == 4 and titles[1].startswith("Concurrent requests")  # A1, capacity, budget, read floor
    assert titles[2].startswith("V3.2 on NVIDIA H200 SXM 141 GB: one GPU's memory")


def test_an_uploaded_config_is_read_listed_and_added_to_the_models():
    at = assert_page_runs()
    at.file_uploader(key="cfg_file").upload("my-llama.json", LLAMA, "application/json").run()
    assert not at.exception and not at.error
    assert "my-llama: read as GQA" in at.success[0].value
    fields = next(t.value for t in at.table if "field" in t.value.columns)  # the import's table, after the presets
    assert ("`num_key_value_heads`" in set(fields["field"])) and len(fields) > 5
    picker = at.multiselect(key="models")
    assert "my-llama" in picker.options


def test_a_pasted_config_works_as_an_upload_does():
    at = assert_page_runs()
    at.text_area(key="cfg_text").input(LLAMA.decode()).run()
    assert not at.exception and "read as GQA" in at.success[0].value


def test_a_configs_mtp_layers_are_counted_only_when_the_switch_is_on():
    v3 = (CONFIGS / "deepseek-v3.json").read_bytes()
    at = assert_page_runs()
    at.file_uploader(key="cfg_file").upload("v3.json", v3, "application/json").run()
    switch = at.checkbox(key="cfg_mtp")
    assert switch.label.startswith("Count its 1 MTP layer") and not switch.value
    assert not any(name.endswith("+ MTP") for name in at.multiselect(key="models").options)
    at = switch.check().run()
    assert not at.exception and "v3 + MTP: read as MLA" in at.success[0].value
    assert {"v3", "v3 + MTP"} <= set(at.multiselect(key="models").options)


BOOL_LAYERS = LLAMA.decode().replace('"num_hidden_layers": 32', '"num_hidden_layers": true')


@pytest.mark.parametrize("text, field", [
    (BOOL_LAYERS, "num_hidden_layers"), ("not json", "JSON"), ("[1, 2]", "object"),
    ('{"model_type": "llama", "num_hidden_layers": 32, "hidden_size": 4096, "num_attention_heads": 32, '
     '"num_key_value_heads": 5}', "num_key_value_heads"),
])
def test_a_bad_config_gets_one_clear_line_and_no_traceback(text, field):
    at = assert_page_runs()
    at.text_area(key="cfg_text").input(text).run()
    assert not at.exception
    assert field in at.error[0].value and "\n" not in at.error[0].value.strip()


def test_the_planner_shows_core_s_numbers():
    at = assert_page_runs(gpu="h100-sxm", tp="2", models=["llama-3.1-8b", "v3.2"])
    capacity = charts(at)[1]
    expected = plan("llama-3.1-8b", core.ARTICLE_CONTEXT, GPUS["h100-sxm"],
                    weights_bytes(core.registry.get("llama-3.1-8b").parameters, 1.0), tp=2)
    (bars,) = capacity["data"]
    assert bars["x"][bars["y"].index("Llama 3.1 8B")] == expected.max_requests
    assert "2 × NVIDIA H100" in capacity["layout"]["title"]["text"]


def test_reconciliation_shows_the_article_until_a_variant_is_switched_on():
    at = assert_page_runs()
    assert len(charts(at)) == 4 and at.info  # no variant on: this site's numbers, a hint (the app's only)
    at = assert_page_runs(**{"var-sglang-fp8-index-key": "true"})
    variant, article = charts(at)[-1]["data"][:2]  # the storage panel: the variant's bars, the article's ticks
    assert (variant["x"], article["x"]) == ([3850.25], [3514.25])
    assert EXTRAS["reconciliation"].knob("variants").choices  # every variant is a knob value


@pytest.mark.parametrize("lang", ["ko", "en"])
def test_the_page_runs_in_both_languages_with_every_gpu(lang):
    for gpu in (*GPUS, "custom"):
        assert_page_runs(ui.View(lang=lang), gpu=gpu)


def _import_many():
    import json

    import ui
    from core.config_import import import_config
    from tests.test_beyond_page import LLAMA

    for i in range(ui.state.MAX_IMPORTS + 5):
        ui.remember_import(import_config(LLAMA, name=f"m{i}"))
    ui.remember_import(import_config(LLAMA, name="m6"))  # again: now the newest
    import streamlit as st
    st.write(json.dumps([m.model.name for m in ui.imported_models().values()]))


def test_a_session_keeps_only_its_newest_imports():
    at = AppTest.from_function(_import_many, default_timeout=60).run()
    assert not at.exception, [e.value for e in at.exception]
    kept = json.loads(at.markdown[0].value)
    n = ui.state.MAX_IMPORTS
    assert len(kept) == n and kept[-1] == "m6" and kept[:-1] == [f"m{i}" for i in range(5, n + 5) if i != 6]


def test_the_engines_tables_give_core_engines_numbers_and_name_every_rule():
    from core.engines import allocation
    at = assert_page_runs(models=["gpt-oss-120b", "v4.1-flash"])
    tables = {df.value.columns[0]: df.value for df in at.table}
    rules = next(t.value for t in at.table if t.value.index.name == "model · engine")
    engines = next(df.value for df in at.table if "vLLM: one request" in df.value.columns)
    oss = engines[engines.iloc[:, 0] == "gpt-oss-120b"].iloc[0]
    charge = allocation("gpt-oss-120b", core.ARTICLE_CONTEXT, core.DEPLOYED, "sglang").charge
    assert int(charge) == 8_697_308_775 and oss["SGLang: one request"] == fmt_bytes(charge) == "8.70 GB"
    assert oss["theory: one request"] == fmt_bytes(core.cache_at("gpt-oss-120b", core.ARTICLE_CONTEXT).total)
    assert oss["SGLang: per token (B)"] == 66_355.2  # per token: exact bytes
    v41 = engines[engines.iloc[:, 0] == "V4.1-Flash"].iloc[0]
    assert v41["vLLM: one request"] == "—" and pd.isna(v41["vLLM: per token (B)"])  # not served: a dash
    assert "vLLM" not in " ".join(r for r in rules.iloc[:, 0] if "CSA2" in r)  # the row names the engine once
    text = " ".join(map(str, rules.index)) + " ".join(rules.iloc[:, 0])
    assert "every model · vLLM" in text and "gpt-oss-120b · SGLang" in text
    assert any("swa_full_tokens_ratio" in r and "pool_configurator.py:" in r for r in rules.iloc[:, 0])
    assert any("no CSA2 layers" in r for r in rules.iloc[:, 0])
    assert tables  # the presets, the models and the layers tables are still there


def test_the_planner_follows_the_parallel_mode_and_the_engine():
    from core.parallel import Parallel
    from core.serving import serve

    at = assert_page_runs(models=["v3.2"], gpu="h200", tp="8", parallel="dp", engine="vllm")
    (bars,) = charts(at)[1]["data"]
    # vLLM's own budget, with every weight but the routed experts whole on each GPU (tests/test_serving.py)
    served = serve("v3.2", core.ARTICLE_CONTEXT, "h200", "vllm", Parallel(dp=8))
    assert bars["x"] == [served.requests] == [24] and "DP attention 8" in charts(at)[1]["layout"]["title"]["text"]
    assert "as vLLM 0.34.0 runs it" in charts(at)[1]["layout"]["title"]["text"]
    # the question the other way round: the longest context for N requests
    at = assert_page_runs(models=["v3.2"], gpu="h200", tp="8", engine="vllm", ask="context", requests="5")
    (bars,) = charts(at)[1]["data"]
    assert bars["x"] == [249_472] and "5 requests" in charts(at)[1]["layout"]["title"]["text"]


def test_the_budget_splits_one_gpu_of_the_planners_node_for_the_model_asked():
    from core import budget as B
    from core.parallel import Parallel

    at = assert_page_runs(gpu="h100-sxm", tp="4", parallel="tp", model="qwen3-next-80b-a3b")
    budget = charts(at)[2]
    assert budget["layout"]["title"]["text"].startswith("Qwen3-Next 80B-A3B on NVIDIA H100")
    bars = {b["name"]: b["x"] for b in budget["data"] if b["type"] == "bar"}
    split = B.budgets_side_by_side("qwen3-next-80b-a3b", "h100-sxm", Parallel(tp=4))  # theory, vLLM, SGLang
    assert bars["KV pool"] == [b.kv / 1e9 for b in split] and bars["states pool"][2] == split[2].states / 1e9
    assert [sum(x) for x in zip(*bars.values())] == pytest.approx([81_559 * 2**20 / 1e9] * 3)  # the whole card
    assert "TP 4" in budget["layout"]["title"]["text"]
    # the planner's reserve is the theory's: 25 % of the H100's 80e9 B data sheet = 20e9 B
    at = assert_page_runs(gpu="h100-sxm", tp="4", model="qwen3-next-80b-a3b", reserved="0.25")
    bars = {b["name"]: b["x"] for b in charts(at)[2]["data"] if b["type"] == "bar"}
    assert bars["flat reserve"][0] == 20.0 and bars["KV pool"][0] == 80 - 20 - split[0].weights / 1e9


def test_korean_tables_name_designs_and_v41_s_layers_in_the_page_s_words():
    at = assert_page_runs(ui.View(lang="ko"))
    designs = set(at.table[0].value.iloc[:, 1])
    assert {"sliding window + 전체 GQA", "GDN + GQA 혼합", "sliding window GQA"} <= designs
    assert not any("hybrid" in d or "local/global" in d for d in designs)  # core's English names, localised
    layers = next(t.value for t in at.table if "층 종류" in t.value.columns)
    v41 = layers[layers.iloc[:, 0] == "V4.1-Flash"]
    assert {"CSA2 Full (encoder, m = 2)", "CSA2 Reindex·Reuse", "CSA2 Full (decoder, m = 1)"} <= set(v41["층 종류"])


def test_the_texts_numbers_are_core_s():
    """The read floor's example (a cache every GPU reads whole), the DSA note and Llama 4 Scout's chunk."""
    from article import Text
    from core.capacity import read_floor_seconds
    from core.engines import allocation
    from figures.knobs import CONTEXT
    from publish.site import SiteView, blocks

    text = " ".join(b.text for b in blocks("any-model", SiteView("en", CONTEXT.default, core.DEPLOYED))
                    if isinstance(b, Text))
    capacity = EXTRAS["capacity"]
    gpu, tp = GPUS[capacity.knob("gpu").default], capacity.knob("tp").default
    floor = read_floor_seconds("kimi-k2", CONTEXT.default, core.DEPLOYED, gpu.bandwidth_bytes_per_s, 1, tp)
    read = core.reads("kimi-k2", CONTEXT.default).total
    assert read / gpu.bandwidth_bytes_per_s == floor  # every GPU reads the whole latent cache
    assert f"{fmt_bytes(read)} ÷ {gpu.bandwidth_bytes_per_s / 1e12:g} TB/s" in text and f"{floor * 1e3:.3g} ms" in text
    engine = allocation("deepseek-v3.2", CONTEXT.default, core.DEPLOYED, "vllm").per_token
    stored = core.storage_per_token("deepseek-v3.2").total
    assert f"{int(engine):,} B a token for DeepSeek-V3.2, not {stored:,} B" in text
    assert "chunks of 8,192 tokens" in text


def test_two_sessions_that_import_different_models_do_not_see_each_others():
    """A session holds its own imports, and core keeps none: one session's model is among its own choices, not
    another's, and a link naming it opens in a session without it as the link's other models, with a note."""
    from core.config_import import import_config

    texts = {name: LLAMA.decode().replace('"num_hidden_layers": 32', f'"num_hidden_layers": {n}').encode()
             for name, n in (("mine", 30), ("yours", 31))}
    sessions = {}
    for name, text in texts.items():
        at = assert_page_runs()
        sessions[name] = at.file_uploader(key="cfg_file").upload(f"{name}.json", text, "application/json").run()
        assert not sessions[name].exception
    for name, other in (("mine", "yours"), ("yours", "mine")):
        options = sessions[name].multiselect(key="models").options
        assert name in options and other not in options
    mine = core.imported_id(import_config(texts["mine"], name="mine").model)
    with pytest.raises(ValueError, match="unknown model"):
        core.get(mine)
    at = sessions["mine"].multiselect(key="models").select("mine").run()  # its own session shows its row
    table = at.table[2].value
    assert table[table.iloc[:, 0] == "mine"].iloc[0].iloc[3] == 30 * 2 * 8 * 128 * 2
    at = assert_page_runs(models=["v3.2", mine])  # a session that never imported it
    assert at.multiselect(key="models").value == ["v3.2"]
    assert any(mine in note for note in at.session_state["_url_notes"])


def test_a_model_the_session_imported_is_charted_on_the_overview_as_its_last_pick():
    """The overview's picks reach the builders as Models for the session's imports (ui.state.as_models): the
    last pick, the metrics' model when none is highlighted, may be one."""
    from dataclasses import replace

    from core.config_import import import_config

    found = import_config(LLAMA, name="my-llama")
    model_id = core.imported_id(found.model)
    at = AppTest.from_file(str(ROOT / "pages/overview.py"), default_timeout=90)
    at.session_state["_view"] = ui.View(lang="en")
    at.session_state["_imported"] = {model_id: replace(found, model=replace(found.model, id=model_id))}
    at.query_params["models"] = ["v2", model_id]
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    a1 = charts(at)[0]
    assert "my-llama" in json.dumps(a1["data"]) and at.metric[0].value == "131,072 B"  # 32 × 2 × 8 × 128 × 2 B
