"""Bad input to softfloat.torch.distributed and the launcher's bounds: unknown formats and
options at once, a non-float bucket, bf16 through gloo's all-reduce, ranks configured
differently (the same clear error on every rank, no hang), a rank that hangs (ended,
named) and a rank that fails (its traceback)."""
import multiprocessing
import time

import pytest

torch = pytest.importorskip("torch")
import softfloat.torch.distributed as sfd  # noqa: E402

import distributed_workers as workers  # noqa: E402

TIMEOUT = 50


@pytest.mark.parametrize("options, error, text", [
    (dict(fmt="e4m3x"), ValueError, "e4m3x"),
    (dict(fmt=8), TypeError, "format spec"),
    (dict(fmt="e4m3", algorithm="tree"), ValueError, "algorithm 'tree'"),
    (dict(fmt="e4m3", scaling="row"), ValueError, "scaling 'row'"),
    (dict(fmt="e4m3", scaling="block"), ValueError, "MX element"),
    (dict(fmt="e4m3", rounding="nearest"), ValueError, "rounding 'nearest'"),
    (dict(fmt="mxfp4_e2m1", block_size=0), ValueError, "block_size"),
    (dict(fmt="e4m3", seed=1.5), TypeError, "seed"),
])
def test_bad_settings_fail_before_any_communication(options, error, text):
    with pytest.raises(error, match=text):
        sfd.compress_hook(**options)


def test_bad_all_reduce_arguments():
    with pytest.raises(TypeError, match="float32, float64, float16 or bfloat16"):
        sfd.all_reduce(torch.zeros(4, dtype=torch.int32), "e4m3")
    with pytest.raises(ValueError, match="op 'max'"):
        sfd.all_reduce(torch.zeros(4), "e4m3", op="max")
    with pytest.raises(TypeError, match="torch.Tensor"):
        sfd.all_reduce([1.0, 2.0], "e4m3")


def test_non_float_bucket_is_refused():
    [message] = sfd.launch(1, workers.non_float_bucket, timeout=TIMEOUT)
    assert message is not None and "torch.int32" in message and "float bucket" in message


@pytest.mark.parametrize("fmt, text", [("bf16", "gloo cannot all-reduce bfloat16"), ("e4m3", "has none")])
def test_allreduce_needs_a_dtype_the_engine_sums(fmt, text):
    messages = sfd.launch(2, workers.reduce_or_error, [fmt, fmt], dict(algorithm="allreduce"), timeout=TIMEOUT)
    assert all(m is not None and text in m for m in messages), messages


@pytest.mark.parametrize("size", [2, 4])
def test_ranks_with_different_formats_all_report_it(size):
    formats = ["e4m3"] * size
    formats[-1] = "e5m2"
    start = time.monotonic()
    messages = sfd.launch(size, workers.reduce_or_error, formats, dict(algorithm="ring"), timeout=TIMEOUT)
    for rank, message in enumerate(messages):
        assert message is not None and message.startswith("ValueError") and "disagree" in message, (rank, message)
        assert "fmt=e4m3" in message and "fmt=e5m2" in message and f"rank {size - 1}: fmt=e5m2" in message
    assert time.monotonic() - start < TIMEOUT


def test_hooks_with_different_formats_all_report_it():
    messages = sfd.launch(2, workers.hook_or_error, ["mxfp8_e4m3", "nvfp4"], timeout=TIMEOUT)
    for message in messages:
        assert message is not None and "disagree" in message and "fmt=nvfp4" in message, message


def test_a_hanging_rank_is_ended_and_named():
    # Rank 0 must start, import torch and meet rank 1 before the deadline: 20 s leaves
    # room for a machine busy with other work (8 s was too little at a load of 12).
    start = time.monotonic()
    with pytest.raises(TimeoutError, match=r"rank\(s\) 1 of 2 had not finished"):
        sfd.launch(2, workers.hang_on_rank_one, timeout=20)
    assert time.monotonic() - start < 35
    assert not multiprocessing.active_children()


def test_a_failing_rank_reports_its_traceback():
    # Rank 0 may fail too (its peer gone): every failure is reported, rank 1's cause with it.
    # Rank 1's section runs up to the next "--- rank" header (its traceback's paths may
    # hold hyphens, as a checkout folder's name does).
    cause = (r"(?s)rank\(s\) (0, )?1 of 2 failed.*--- rank 1 ---\n(?:(?!--- rank ).)*"
             r"ArithmeticError: rank one fails on purpose")
    with pytest.raises(RuntimeError, match=cause):
        sfd.launch(2, workers.fail_on_rank_one, timeout=TIMEOUT)
    assert not multiprocessing.active_children()
    with pytest.raises(ValueError, match="world_size"):
        sfd.launch(0, workers.float_sizes)
