"""softfloat.torch.distributed.compress_hook inside DistributedDataParallel on 2, 3 and 4
real processes over gloo (127.0.0.1): fp32 through the engine's all-reduce is DDP's own
communication bit for bit; every format and algorithm leaves every rank with the same
parameters after every step; error feedback cancels the rounding's drift; stochastic
rounding draws independent noise per rank and repeats with the seed."""
import numpy as np
import pytest

torch = pytest.importorskip("torch")
import softfloat  # noqa: E402
import softfloat.torch.distributed as sfd  # noqa: E402

import distributed_workers as workers  # noqa: E402

TIMEOUT = 50  # seconds per launch; each test stays under 60


@pytest.mark.parametrize("size", [2, 3, 4])
def test_fp32_allreduce_hook_is_ddp_default_bit_for_bit(size):
    default = dict(fmt="fp32", scaling="none", algorithm="allreduce")
    # A bucket cap of 4 kB splits the model into several buckets: the hook sees each.
    runs = sfd.launch(size, workers.train_each, [None, default], 0.004, timeout=TIMEOUT)
    for rank, (plain, hooked) in enumerate(runs):
        assert plain["hashes"] == hooked["hashes"], f"rank {rank}: the fp32 hook differs from DDP's own"
        assert plain["hashes"] == runs[0][0]["hashes"]
        assert hooked["bytes"] > 0


HOOK_SETTINGS = [
    dict(fmt="e4m3"),
    dict(fmt="e5m2", algorithm="ring", scaling="none"),
    dict(fmt="e4m3", algorithm="ring", rounding="stochastic", error_feedback=True, seed=3),
    dict(fmt="bf16", algorithm="ring", scaling="none"),
    dict(fmt="bf16", algorithm="gather", scaling="none"),
    dict(fmt="fp16", algorithm="allreduce"),
    dict(fmt="mxfp8_e4m3", algorithm="gather", error_feedback=True),
    dict(fmt="mxfp4_e2m1", algorithm="ring"),
    dict(fmt="nvfp4", algorithm="gather", rounding="stochastic"),
    dict(fmt="e2m1", algorithm="ring", rounding="stochastic"),
]


@pytest.mark.parametrize("size", [2, 4])
def test_every_rank_has_the_same_parameters_after_every_step(size):
    runs = sfd.launch(size, workers.train_each, [None] + HOOK_SETTINGS, timeout=TIMEOUT)
    reference = runs[0][0]
    for index, options in enumerate(HOOK_SETTINGS, start=1):
        hashes = [runs[rank][index]["hashes"] for rank in range(size)]
        assert all(h == hashes[0] for h in hashes), f"{options}: ranks differ ({hashes})"
        parameters = runs[0][index]["parameters"]
        assert np.all(np.isfinite(parameters)), options
        # Rounded gradients move the parameters elsewhere than fp32 does, but not far.
        assert not np.array_equal(parameters, reference["parameters"]), options
        assert np.max(np.abs(parameters - reference["parameters"])) < 0.05, options
        bytes_per_step = runs[0][index]["last_step_bytes"]
        assert runs[0][index]["bytes"] == workers.STEPS * bytes_per_step


def test_bytes_per_step_fall_with_the_format():
    """Gather: (N - 1) payloads of the model's gradient; fp32 ring 2 (N - 1) / N of 4 bytes each."""
    settings = [dict(fmt="fp32", scaling="none", algorithm="ring"), dict(fmt="e4m3", scaling="none"),
                dict(fmt="e4m3", scaling="none", algorithm="ring"), dict(fmt="mxfp4_e2m1", algorithm="ring")]
    runs = sfd.launch(2, workers.train_each, settings, timeout=TIMEOUT)
    parameters = 64 * 48 + 48 + 48 * 10 + 10  # one bucket: DDP's default cap is 25 MB
    fp32_ring, e4m3_gather, e4m3_ring, mxfp4_ring = (run["last_step_bytes"] for run in runs[0])
    assert fp32_ring == 4 * parameters  # 2 (N - 1) / N = 1 for two ranks
    assert e4m3_gather == parameters and e4m3_ring == parameters
    assert mxfp4_ring < parameters * 0.6


def test_error_feedback_cancels_the_drift_of_repeated_rounding():
    steps = 16
    for fmt, algorithm in [("e2m1", "gather"), ("mxfp4_e2m1", "ring")]:
        ranks = sfd.launch(2, workers.error_feedback_sums, fmt, algorithm, steps, timeout=TIMEOUT)
        plain, feedback, exact = ranks[0]
        for other in ranks[1:]:  # the ranks agree bit for bit
            assert np.array_equal(other[0], plain) and np.array_equal(other[1], feedback)
        drift, compensated = np.abs(plain - exact).max(), np.abs(feedback - exact).max()
        # Without feedback the same rounding error adds up steps times; with it the sum
        # is off by what one step's rounding leaves over.
        assert drift > 0
        assert compensated < drift / 4, (fmt, algorithm, drift, compensated)


def test_stochastic_rounding_repeats_with_the_seed_and_differs_between_ranks():
    sr = dict(fmt="e2m1", algorithm="gather", rounding="stochastic", seed=11)
    runs = sfd.launch(2, workers.train_each, [sr, sr, dict(sr, seed=12)], timeout=TIMEOUT)
    first, again, other_seed = runs[0]
    assert first["hashes"] == again["hashes"]
    assert first["hashes"] != other_seed["hashes"]
    # The same values on both ranks: independent noise makes averages that lie between
    # two E2M1 neighbours (halfway), which one shared draw could never produce.
    x = np.tile(np.linspace(0.1, 5.9, 64, dtype=np.float32), 2)
    options = dict(algorithm="gather", rounding="stochastic", scaling="none", seed=5)
    results = sfd.launch(2, workers.reduce_values, [x, x], "e2m1", options, timeout=TIMEOUT)
    average = results[0][0]
    assert np.array_equal(average, results[1][0])
    off_grid = softfloat.round_trip(average, "e2m1") != average
    assert off_grid.any()
