"""CED prefill (A26, A27): encoder cells all run, decoder cells only in the last window
positions, the executed share tends to E / (E + Dec) = ½ for V4.1-Flash, and the decoder's
global KV is made by the first decoder Full layer from the last encoder layer's output."""

from __future__ import annotations

import numpy as np
import pytest

from core import get
from core.mechanisms import ced

CASES = [  # (prompt, E, Dec, window)
    (8, 2, 2, 2),
    (1, 2, 2, 2),
    (2, 2, 2, 2),
    (3, 1, 5, 7),
    (200, 20, 20, 128),
    (128, 20, 20, 128),
    (5, 3, 0, 1),
]


@pytest.mark.parametrize(("prompt", "E", "Dec", "window"), CASES)
def test_executed_cells_are_prompt_times_e_plus_min_window_prompt_times_dec(prompt, E, Dec, window):
    grid = ced.prefill_grid(prompt, E, Dec, window)
    assert grid.shape == (E + Dec, prompt)
    executed = int((grid != ced.SKIPPED).sum())
    assert executed == prompt * E + min(window, prompt) * Dec == ced.executed_cells(prompt, E, Dec, window)
    assert ced.executed_ratio(prompt, E, Dec, window) == pytest.approx(executed / grid.size, rel=1e-15)


@pytest.mark.parametrize(("prompt", "E", "Dec", "window"), CASES)
def test_decoder_cells_run_exactly_at_the_last_window_positions(prompt, E, Dec, window):
    grid = ced.prefill_grid(prompt, E, Dec, window)
    assert np.all(grid[:E] == ced.ENCODER)
    replay = np.arange(prompt) >= prompt - min(window, prompt)
    for row in grid[E:]:
        assert np.array_equal(row == ced.DECODER, replay)
        assert np.array_equal(row == ced.SKIPPED, ~replay)


def test_the_article_grid_8_positions_4_layers_window_2():
    grid = ced.prefill_grid(8, 2, 2, 2)
    assert grid.tolist() == [
        [1, 1, 1, 1, 1, 1, 1, 1],  # encoder layer 1 (bottom)
        [1, 1, 1, 1, 1, 1, 1, 1],  # encoder layer 2
        [0, 0, 0, 0, 0, 0, 2, 2],  # decoder layer 1: replays the last 2 positions
        [0, 0, 0, 0, 0, 0, 2, 2],  # decoder layer 2
    ]
    assert ced.executed_cells(8, 2, 2, 2) == 20
    assert ced.executed_ratio(8, 2, 2, 2) == 20 / 32


def test_v4_1_splits_into_20_encoder_and_20_decoder_layers_with_a_window_of_128():
    spec = get("v4.1-flash")
    split = ced.v41_layer_split()
    assert split == (20, 20, 128) and split.window == spec.window
    assert split.encoder_layers + split.decoder_layers == spec.n_layers
    with pytest.raises(ValueError, match="encoder"):
        ced.v41_layer_split("v4-flash")


def test_the_executed_share_tends_to_one_half_for_long_prompts_with_v4_1s_split():
    E, Dec, window = ced.v41_layer_split()
    prompts = np.array([1, window, 2 * window, 10_000, 131_072, 10**9])
    ratio = ced.executed_ratio(prompts, E, Dec, window)
    assert ratio.shape == prompts.shape
    assert ratio[0] == ratio[1] == 1.0  # a prompt within the window runs everything
    assert np.all(np.diff(ratio[1:]) < 0)  # beyond the window every extra position lowers it
    assert ratio[-1] == pytest.approx(E / (E + Dec), abs=1e-6) and E / (E + Dec) == 0.5
    assert np.allclose(ratio, (prompts * E + np.minimum(window, prompts) * Dec) / (prompts * (E + Dec)), rtol=1e-15)


def test_the_executed_share_is_a_float_for_one_prompt_and_rejects_an_empty_prompt():
    assert isinstance(ced.executed_ratio(1000, 20, 20, 128), float)
    with pytest.raises(ValueError, match="prompt"):
        ced.executed_ratio(0, 20, 20, 128)
    with pytest.raises(ValueError, match="window"):
        ced.prefill_grid(8, 2, 2, 0)


def test_the_decoders_global_kv_is_made_by_the_first_decoder_full_from_the_last_encoder_output():
    spec = get("v4.1-flash")
    src = ced.global_kv_source()
    E, Dec, _ = ced.v41_layer_split()
    assert src.fed_by == E - 1 and spec.layers[src.fed_by].stack == "encoder"
    assert src.maker == E
    maker = spec.layers[src.maker]
    assert (maker.stack, maker.kind, maker.mode) == ("decoder", "CSA2", "full") and maker.stores_global
    assert src.readers == tuple(range(E, E + Dec))  # every decoder layer reads it
    assert [spec.layers[i].mode for i in src.selectors] == ["full"] + ["reindex"] * 4
    # no decoder layer other than the maker stores global KV
    assert [i for i in range(E, E + Dec) if spec.layers[i].stores_global] == [src.maker]
