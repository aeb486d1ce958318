"""DelayedScaling across ranks: with torch.distributed initialised, each use's amax is
reduced with a max all-reduce before it enters the history (TransformerEngine's
reduce_amax), so every rank holds the same history and uses the same scale; with
reduce_amax=False each rank keeps its own. 2 and 4 processes over gloo on 127.0.0.1."""
import numpy as np
import pytest

torch = pytest.importorskip("torch")
import softfloat.torch as sft  # noqa: E402
import softfloat.torch.distributed as sfd  # noqa: E402

import distributed_workers as workers  # noqa: E402

TIMEOUT = 50
STEPS = 3


def expected_scales(amaxes):
    """The scale of each step: 1 first, then 448 / (the largest amax recorded so far),
    computed in float64 and stored in float32, as the recipe does."""
    return [1.0] + [float(np.float32(448.0 / max(amaxes[:step]))) for step in range(1, len(amaxes))]


@pytest.mark.parametrize("size", [2, 4])
def test_amax_is_reduced_across_ranks(size):
    results = sfd.launch(size, workers.delayed_scaling_steps, STEPS, True, timeout=TIMEOUT)
    # Each step's global amax: the largest over the ranks, held by a different rank each step.
    global_amax = [float(np.float32(max(workers.rank_amax(r, size, s) for r in range(size)))) for s in range(STEPS)]
    holders = [max(range(size), key=lambda r: workers.rank_amax(r, size, s)) for s in range(STEPS)]
    assert len(set(holders)) == min(size, STEPS)  # more than one rank holds a step's largest amax
    for rank, (history, scales, values) in enumerate(results):
        assert history == global_amax[::-1] + [0.0] * (4 - STEPS), rank  # newest first
        assert scales == expected_scales(global_amax), rank
        for step in range(STEPS):
            x = torch.linspace(-1.0, 1.0, 33) * workers.rank_amax(rank, size, step)
            scale = scales[step]
            assert torch.equal(torch.tensor(values[step]), sft.quantize(x * scale, "e4m3", saturate=True) / scale), (rank, step)


def test_without_reduce_amax_each_rank_keeps_its_own_history():
    size = 2
    results = sfd.launch(size, workers.delayed_scaling_steps, STEPS, False, timeout=TIMEOUT)
    for rank, (history, scales, _) in enumerate(results):
        local = [float(np.float32(workers.rank_amax(rank, size, s))) for s in range(STEPS)]
        assert history == local[::-1] + [0.0] * (4 - STEPS)
        assert scales == expected_scales(local)
    assert results[0][0] != results[1][0]


def test_outside_torch_distributed_the_recipe_is_local():
    assert not torch.distributed.is_initialized()
    recipe = sft.DelayedScaling("e4m3", history_len=2)  # reduce_amax=True by default: nothing to reduce over
    recipe(torch.tensor([3.0, -5.0]))
    assert recipe.amax_history.tolist() == [5.0, 0.0]


@pytest.mark.parametrize("size", [2, 4])
def test_te_delayed_recipe_reduces_its_amaxes_across_ranks(size):
    """The recipe's own state (recipes.RecipeState, TransformerEngine's kernel_bulk): the
    input's history holds each step's largest amax over the ranks, the same on every rank."""
    results = sfd.launch(size, workers.recipe_delayed_scales, STEPS, timeout=TIMEOUT)
    global_amax = [float(np.float32(max(workers.rank_amax(r, size, s) for r in range(size)))) for s in range(STEPS)]
    for rank, state in enumerate(results):
        assert state["x_history"] == global_amax[::-1] + [0.0] * (4 - STEPS), rank
        assert state["x_scale"] == float(np.float32(448.0) / np.float32(max(global_amax))), rank
        assert state == results[0]  # the weight's and the gradient's histories agree too
