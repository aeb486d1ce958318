"""softfloat.torch.distributed.all_reduce on 2 and 4 processes over gloo: the bytes each
rank sends against softfloat::cost::simulate_ring_all_reduce (whole-byte codes) and the
byte formula of docs/reference/torch.md (scales, packed codes); exact sums where the format holds them; the
gather and ring results against a single-process replay of the protocol with the NumPy
module's round trips; fp32 orders within the summation bound; world size 1."""
import math

import numpy as np
import pytest

torch = pytest.importorskip("torch")
import softfloat  # noqa: E402
import softfloat.torch.distributed as sfd  # noqa: E402

import distributed_workers as workers  # noqa: E402

TIMEOUT = 50


# ---- the byte formula of docs/reference/torch.md, restated -------------------------

def payload_bytes(fmt, n, scaling):
    """Bytes of one message of n values (docs/reference/torch.md, "Gradients on the wire")."""
    if fmt == "nvfp4":
        padded = math.ceil(n / 16) * 16
        return padded // 2 + padded // 16 + 4
    if fmt.startswith("mx"):
        bits = {"mxfp8_e4m3": 8, "mxfp6_e2m3": 6, "mxfp4_e2m1": 4}[fmt]
        return math.ceil(n * bits / 8) + math.ceil(n / 32)
    bits = softfloat.format_info(fmt).bits
    codes = math.ceil(n * bits / 8) if bits in (4, 6) else n * math.ceil(bits / 8)
    return codes + (4 if scaling == "tensor" else 0)


def unit_of(fmt):
    if fmt == "nvfp4":
        return 16
    if fmt.startswith("mx"):
        return 32
    return {4: 2, 6: 4}.get(softfloat.format_info(fmt).bits, 1)


def ring_chunks(n, size, unit):
    units = math.ceil(n / unit)
    starts = [min(n, unit * (c * (units // size) + c * (units % size) // size)) for c in range(size + 1)]
    return [(starts[c], starts[c + 1]) for c in range(size)]


def ring_bytes(fmt, n, size, rank, scaling):
    """Reduce-scatter: chunks (rank - s), all-gather: chunks (rank + 1 - s), s < N - 1."""
    chunks = ring_chunks(n, size, unit_of(fmt))
    sent = [(rank - s) % size for s in range(size - 1)] + [(rank + 1 - s) % size for s in range(size - 1)]
    return sum(payload_bytes(fmt, chunks[c][1] - chunks[c][0], scaling) for c in sent)


@pytest.mark.parametrize("size", [2, 4])
def test_ring_bytes_equal_the_cost_model_for_whole_byte_codes(size):
    cases = [(n, fmt) for n in (1, 7, 1000, 1003) for fmt in ("fp32", "bf16", "e4m3", "e3m4")]
    results = sfd.launch(size, workers.reduce_each,
                         [(n, fmt, dict(algorithm="ring", scaling="none")) for n, fmt in cases], timeout=TIMEOUT)
    for index, (n, fmt) in enumerate(cases):
        model = softfloat.simulate_ring_all_reduce([[1] * n for _ in range(size)])
        assert model["every_device_has_exact_sum"]
        code_bytes = math.ceil(softfloat.format_info(fmt).bits / 8)
        for rank in range(size):
            assert results[rank][index][1] == model["numbers_sent"][rank] * code_bytes, (n, fmt, rank)


@pytest.mark.parametrize("size", [2, 4])
def test_bytes_with_scales_and_packed_codes_follow_the_formula(size):
    cases = [(n, fmt, scaling, algorithm) for n in (16, 1000, 4099)
             for fmt, scaling in [("e4m3", "tensor"), ("e2m1", "none"), ("e2m1", "tensor"), ("e3m2", "none"),
                                  ("mxfp8_e4m3", "tensor"), ("mxfp6_e2m3", "tensor"), ("mxfp4_e2m1", "none"),
                                  ("nvfp4", "tensor")]
             for algorithm in ("ring", "gather")]
    results = sfd.launch(size, workers.reduce_each,
                         [(n, fmt, dict(algorithm=algorithm, scaling=scaling)) for n, fmt, scaling, algorithm in cases],
                         timeout=TIMEOUT)
    for index, (n, fmt, scaling, algorithm) in enumerate(cases):
        for rank in range(size):
            expected = (ring_bytes(fmt, n, size, rank, scaling) if algorithm == "ring"
                        else (size - 1) * payload_bytes(fmt, n, scaling))
            assert results[rank][index][1] == expected, (n, fmt, scaling, algorithm, rank)


@pytest.mark.parametrize("size", [2, 4])
def test_sums_the_format_holds_are_exact(size):
    """Small integers in E4M3: every partial sum and the average are E4M3 values, so ring
    and gather return the exact average (and fp16 through the engine)."""
    g = np.random.default_rng(size)
    limit = 16 // size
    values = [g.integers(-limit, limit + 1, 999).astype(np.float32) for _ in range(size)]
    exact = np.sum(values, axis=0, dtype=np.float64) / size
    for fmt, algorithm in [("e4m3", "ring"), ("e4m3", "gather"), ("fp16", "allreduce"), ("bf16", "ring")]:
        results = sfd.launch(size, workers.reduce_values, values, fmt, dict(algorithm=algorithm, scaling="none"),
                             timeout=TIMEOUT)
        for rank in range(size):
            assert np.array_equal(results[rank][0], exact.astype(np.float32)), (fmt, algorithm, rank)


def fake_quantize(x, fmt, scaling):
    """One message's values after the wire, by the NumPy module's round trips."""
    if fmt == "nvfp4":
        padded = np.concatenate([x, np.zeros(-len(x) % 16, np.float32)])
        return softfloat.nvfp4_round_trip(padded)[:len(x)]
    if fmt.startswith("mx"):
        return softfloat.mx_round_trip(x, fmt)
    if scaling == "none":
        return softfloat.round_trip(x, fmt)
    amax = float(np.max(np.abs(x))) if len(x) else 0.0
    scale = 2.0 ** math.floor(math.log2(softfloat.format_info(fmt).max / amax)) if amax > 0 else 1.0
    return (softfloat.round_trip((x * np.float32(scale)).astype(np.float32), fmt, saturate=True)
            / np.float32(scale)).astype(np.float32)


def replay_gather(inputs, fmt, scaling):
    total = np.zeros_like(inputs[0])
    for x in inputs:
        total += fake_quantize(x, fmt, scaling)
    return total / np.float32(len(inputs))


def replay_ring(inputs, fmt, scaling):
    """The ring of softfloat/cost/all_reduce.hpp, each hop's partial sum fake-quantized."""
    size, n = len(inputs), len(inputs[0])
    chunks = ring_chunks(n, size, unit_of(fmt))
    sums = [x.copy() for x in inputs]
    for step in range(size - 1):
        messages = []
        for rank in range(size):
            begin, end = chunks[(rank - step) % size]
            messages.append(((rank + 1) % size, begin, end, fake_quantize(sums[rank][begin:end], fmt, scaling)))
        for to, begin, end, values in messages:
            sums[to][begin:end] += values
    result = np.empty(n, np.float32)
    for rank in range(size):
        begin, end = chunks[(rank + 1) % size]
        result[begin:end] = fake_quantize(sums[rank][begin:end] / np.float32(size), fmt, scaling)
    return result


@pytest.mark.parametrize("size", [2, 4])
def test_results_equal_a_replay_of_the_protocol(size):
    n = 2000
    inputs = [workers.rank_data(rank, n).numpy() for rank in range(size)]
    cases = [(fmt, scaling, algorithm) for fmt, scaling in [("e4m3", "tensor"), ("e5m2", "none"), ("e2m1", "tensor"),
                                                           ("mxfp4_e2m1", "tensor"), ("mxfp8_e4m3", "tensor"),
                                                           ("nvfp4", "tensor")]
             for algorithm in ("gather", "ring")]
    results = sfd.launch(size, workers.reduce_each,
                         [(n, fmt, dict(algorithm=algorithm, scaling=scaling)) for fmt, scaling, algorithm in cases],
                         timeout=TIMEOUT)
    for index, (fmt, scaling, algorithm) in enumerate(cases):
        expected = (replay_gather if algorithm == "gather" else replay_ring)(inputs, fmt, scaling)
        for rank in range(size):
            assert np.array_equal(results[rank][index][0], expected), (fmt, scaling, algorithm, rank)
        exact = np.mean(inputs, axis=0)
        assert not np.array_equal(expected, exact)  # the formats do round


@pytest.mark.parametrize("size", [2, 4])
def test_fp32_orders_differ_only_within_the_summation_bound(size):
    """|ring or gather - allreduce| <= (2N + 2) u sum_r |x_r| / N (u = 2^-24): each is
    within (N + 1) u sum |x_r| / N of the exact average (N - 1 additions, the 1 / N)."""
    n = 5000
    cases = [(n, "fp32", dict(algorithm=algorithm, scaling="none")) for algorithm in ("allreduce", "ring", "gather")]
    results = sfd.launch(size, workers.reduce_each, cases, timeout=TIMEOUT)
    magnitudes = sfd.launch(size, workers.summed_magnitudes, n, timeout=TIMEOUT)[0]
    bound = (2 * size + 2) * 2.0**-24 * magnitudes / size
    engine = results[0][0][0].astype(np.float64)
    for index in (1, 2):
        for rank in range(size):
            difference = np.abs(results[rank][index][0].astype(np.float64) - engine)
            assert np.all(difference <= bound), (cases[index], rank, float(np.max(difference / bound)))
    inputs = [workers.rank_data(rank, n).numpy().astype(np.float64) for rank in range(size)]
    exact = np.sum(inputs, axis=0) / size
    assert np.all(np.abs(engine - exact) <= bound / 2)


@pytest.mark.parametrize("fmt", ["e4m3", "bf16", "e2m1"])
@pytest.mark.parametrize("algorithm", ["gather", "ring"])
def test_world_size_one_fake_quantizes_and_sends_nothing(fmt, algorithm):
    [(result, sent, expected)] = sfd.launch(1, workers.fake_quantize_alone, 777, fmt, algorithm, timeout=TIMEOUT)
    assert sent == 0
    assert np.array_equal(result, expected)
