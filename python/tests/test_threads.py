"""Python threads converting and multiplying at once: the calls release the GIL (arrays
of 4096 values or more), so several Python threads run the library side by side, and
with its own worker threads, while another thread changes set_num_threads or the
process-wide summation order. Each result is checked against an independent reference:
NumPy's own IEEE conversion to float16 (round to nearest even, overflow to infinity),
bfloat16 by the integer rounding of the float32 bits, and for matmul the in-order fp32
chain in NumPy float32 arithmetic. Label threads: scripts/dev.sh also runs this file
under ThreadSanitizer."""
import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np

import softfloat
from conftest import assert_same_bits

N = (1 << 18) + 5  # four of the library's 2^16-element parts, and a tail


def inputs(seed):
    """Normals over many binades, random bit patterns (NaNs, infinities, subnormals), -0."""
    rng = np.random.default_rng(seed)
    x = (rng.normal(size=N) * np.exp2(rng.integers(-30, 30, size=N))).astype(np.float32)
    x[::3] = rng.integers(0, 1 << 32, size=x[::3].size, dtype=np.uint64).astype(np.uint32).view(np.float32)
    x[::101] = -0.0
    return x


def fp16_reference(x):
    with np.errstate(over="ignore"):  # overflow to infinity is the expected result
        return x.astype(np.float16)


def bf16_reference(x):
    """Round to nearest even on the bits: add 0x7FFF plus the lowest kept bit, keep the
    top 16 bits (a carry into the exponent is the right rounding, up to infinity). NaNs
    are compared as NaNs, their codes by class only."""
    bits = x.view(np.uint32).astype(np.uint64)
    return ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16).astype(np.uint16)


def check_fp16(x, codes, round_trip):
    want = fp16_reference(x)
    nan = np.isnan(x)
    assert np.array_equal(codes.view(np.float16)[~nan].view(np.uint16), want[~nan].view(np.uint16))
    assert np.isnan(codes.view(np.float16)[nan]).all()
    assert np.array_equal(round_trip[~nan].view(np.uint32), want[~nan].astype(np.float32).view(np.uint32))
    assert np.isnan(round_trip[nan]).all()


def check_bf16(x, codes):
    nan = np.isnan(x)
    assert np.array_equal(codes[~nan], bf16_reference(x)[~nan])
    assert ((codes[nan] & 0x7F80) == 0x7F80).all() and ((codes[nan] & 0x7F) != 0).all()


def convert(seed):
    x = inputs(seed)
    return x, softfloat.quantize(x, "fp16"), softfloat.round_trip(x, "fp16"), softfloat.quantize(x, "bf16")


def test_references_agree_with_a_lone_call():
    x, fp16, fp16_round_trip, bf16 = convert(0)
    assert fp16.dtype == np.uint16 and bf16.dtype == np.uint16 and fp16_round_trip.dtype == np.float32
    check_fp16(x, fp16, fp16_round_trip)
    check_bf16(x, bf16)
    # The inputs reach the cases the references must get right.
    assert np.isnan(x).any() and np.isinf(fp16_reference(x)).any() and (fp16_reference(x) == 0).any()


def test_python_threads_convert_at_once_while_the_thread_count_changes():
    previous = softfloat.num_threads()
    stop = threading.Event()

    def change_thread_count():
        count = 0
        while not stop.is_set():
            softfloat.set_num_threads(1 + count % 4)
            count += 1
        return count

    try:
        with ThreadPoolExecutor(max_workers=5) as pool:
            changer = pool.submit(change_thread_count)
            results = list(pool.map(convert, [seed for seed in range(1, 9)]))
            stop.set()
            assert changer.result() > 0
    finally:
        stop.set()
        softfloat.set_num_threads(previous)
    assert len(results) == 8
    for x, fp16, fp16_round_trip, bf16 in results:
        check_fp16(x, fp16, fp16_round_trip)
        check_bf16(x, bf16)


# --- matmul ----------------------------------------------------------------------------

def e4m3_values(codes):
    """E4M3 (1 sign, 4 exponent bits with bias 7, 3 mantissa bits) decoded by its
    definition: (-1)^s * 2^(e - 7) * (1 + m / 8), subnormals 2^-6 * m / 8."""
    codes = codes.astype(np.int64)
    sign = np.where(codes & 0x80, -1.0, 1.0)
    exponent, mantissa = (codes >> 3) & 0xF, codes & 0x7
    magnitude = np.where(exponent == 0, mantissa / 8 * 2.0**-6, (1 + mantissa / 8) * np.exp2(exponent - 7))
    return (sign * magnitude).astype(np.float32)


def in_order_chain(a_codes, b_codes):
    """c = +0, then c = fma(a_ip, b_pj, c) for p in k order. A product of two E4M3 values
    is exact in float32 (8 significant bits), so each fma is one float32 addition of it."""
    a, b = e4m3_values(a_codes), e4m3_values(b_codes)
    c = np.zeros((a.shape[0], b.shape[1]), np.float32)
    for p in range(a.shape[1]):
        c += np.outer(a[:, p], b[p])  # float32: the product exact, the sum rounded once
    return c


def finite_e4m3_codes(rng, shape):
    codes = rng.integers(0, 256, size=shape).astype(np.uint8)
    codes[(codes & 0x7F) == 0x7F] = 0x38  # the NaNs (S.1111.111) replaced by 1.0
    return codes


def test_python_threads_multiply_at_once_while_the_default_order_changes():
    # 32 x 512 by 512 x 512: 2^23 multiply-adds, enough for the library to split a call
    # over two of its worker threads (matmul/column_parts.hpp).
    rng = np.random.default_rng(7)
    operands = [(finite_e4m3_codes(rng, (32, 512)), finite_e4m3_codes(rng, (512, 512))) for _ in range(4)]
    expected = [in_order_chain(a, b) for a, b in operands]
    previous_count, previous_order = softfloat.num_threads(), softfloat.matmul_summation()
    stop = threading.Event()

    def flip_default_order():
        flips = 0
        while not stop.is_set():
            softfloat.set_matmul_summation("pairs" if flips % 2 else "fastest")
            flips += 1
        return flips

    try:
        softfloat.set_num_threads(2)
        with ThreadPoolExecutor(max_workers=5) as pool:
            flipper = pool.submit(flip_default_order)
            results = list(pool.map(lambda ab: softfloat.matmul(*ab, "e4m3", "e4m3", summation="in_order"),
                                    operands))
            stop.set()
            assert flipper.result() > 0
    finally:
        stop.set()
        softfloat.set_num_threads(previous_count)
        softfloat.set_matmul_summation(previous_order)
    for result, want in zip(results, expected):
        assert_same_bits(result, want)
