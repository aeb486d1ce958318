"""matmul over code matrices: sums written out step by step in NumPy, a low-precision
accumulator worked by hand, strided operands, and the errors."""
import numpy as np
import pytest

import softfloat


def codes_of(values, fmt):
    codes = softfloat.quantize(np.asarray(values, np.float64), fmt)
    assert np.array_equal(softfloat.dequantize(codes, fmt, dtype=np.float64), values)  # exact by construction
    return codes


def test_exact_sums():
    # Small multiples of 1/2 times small integers: every partial sum is exact in fp32,
    # so C is the exact product.
    a = np.array([[1, 2, 0.5, -3], [4, -1.5, 2, 0], [0.25, 1, 1, 1]])
    b = np.arange(20, dtype=np.float64).reshape(4, 5) - 7
    c = softfloat.matmul(codes_of(a, "e4m3"), codes_of(b, "bf16"), "e4m3", "bf16")
    assert c.dtype == np.float32 and c.shape == (3, 5)
    assert c.tolist() == (a @ b).tolist()
    # An empty sum (k = 0) is +0 everywhere.
    empty = softfloat.matmul(np.zeros((2, 0), np.uint8), np.zeros((0, 3), np.uint16), "e4m3", "bf16")
    assert empty.tolist() == [[0.0] * 3] * 2


def test_fp32_accumulator_is_a_chain_of_fused_multiply_adds():
    # c = fl32(c + a_ip * b_pj) for p = 0..k-1. E4M3 products have at most 8 significant
    # bits and c 24, within 2^-18 .. 2^23 here, so c + a * b is exact in float64 and one
    # float32 conversion is the fused step's single rounding.
    rng = np.random.default_rng(3)
    a = softfloat.round_trip(rng.normal(size=(17, 33)) * 8, "e4m3")
    b = softfloat.round_trip(rng.normal(size=(33, 9)) * 8, "e4m3")
    expected = np.zeros((17, 9), np.float32)
    for p in range(33):
        expected = (expected.astype(np.float64) + np.outer(a[:, p], b[p, :])).astype(np.float32)
    c = softfloat.matmul(codes_of(a, "e4m3"), codes_of(b, "e4m3"), "e4m3", "e4m3")
    assert c.tolist() == expected.tolist()


def test_bf16_accumulator_loses_what_bf16_cannot_hold():
    # [256, 1, 1] . [1, 1, 1]: in bf16 (8 significant bits) 256 + 1 = 257 is halfway between
    # 256 and 258 and rounds to the even 256, twice; fp32 keeps 258.
    a = codes_of(np.array([[256.0, 1.0, 1.0]]), "bf16")
    b = codes_of(np.ones((3, 1)), "e4m3")
    assert softfloat.matmul(a, b, "bf16", "e4m3", acc="bf16").tolist() == [[256.0]]
    assert softfloat.matmul(a, b, "bf16", "e4m3").tolist() == [[258.0]]


def test_low_precision_accumulator_step_by_step():
    # c = round_bf16(c + a_ip * b_pj), each sum exact in float64 before its one rounding.
    rng = np.random.default_rng(4)
    a = softfloat.round_trip(rng.normal(size=(4, 20)), "e4m3")
    b = softfloat.round_trip(rng.normal(size=(20, 3)), "e5m2")
    expected = np.zeros((4, 3))
    for p in range(20):
        expected = softfloat.round_trip(expected + np.outer(a[:, p], b[p, :]), "bf16")
    c = softfloat.matmul(codes_of(a, "e4m3"), codes_of(b, "e5m2"), "e4m3", "e5m2", acc="bf16")
    assert c.tolist() == expected.astype(np.float32).tolist()


def test_strided_operands():
    rng = np.random.default_rng(5)
    big = softfloat.quantize(rng.normal(size=(12, 40)).astype(np.float32), "e4m3")
    b = softfloat.quantize(rng.normal(size=(16, 6)).astype(np.float32), "e4m3")
    expected = softfloat.matmul(np.ascontiguousarray(big[2:9, 3:19]), b, "e4m3", "e4m3")
    # Rows spaced 40 apart, read in place; every other row; a transposed (copied) view.
    assert softfloat.matmul(big[2:9, 3:19], b, "e4m3", "e4m3").tolist() == expected.tolist()
    assert softfloat.matmul(big[2:9, 3:19], np.asfortranarray(b), "e4m3", "e4m3").tolist() == expected.tolist()
    every_other = softfloat.matmul(big[::2, :16], b, "e4m3", "e4m3")
    assert every_other.tolist() == softfloat.matmul(np.ascontiguousarray(big[::2, :16]), b, "e4m3", "e4m3").tolist()
    # E2M1 codes, one per byte, as quantize returns them.
    x = softfloat.quantize(np.array([[1.0, 2.0], [3.0, -0.5]], np.float32), "e2m1")
    assert softfloat.matmul(x, x, "e2m1", "e2m1").tolist() == [[7.0, 1.0], [1.5, 6.25]]


def test_errors():
    a = np.zeros((3, 4), np.uint8)
    with pytest.raises(ValueError, match="mismatched shapes: a_codes is 3x4 and b_codes 5x2"):
        softfloat.matmul(a, np.zeros((5, 2), np.uint8), "e4m3", "e4m3")
    with pytest.raises(ValueError, match="must be a 2-D matrix, got 1 dimensions"):
        softfloat.matmul(a, np.zeros(4, np.uint8), "e4m3", "e4m3")
    with pytest.raises(TypeError, match="b_codes must hold codes as uint8, uint16 or uint32, not float32"):
        softfloat.matmul(a, np.zeros((4, 2), np.float32), "e4m3", "e4m3")
    with pytest.raises(ValueError, match="a_codes holds bf16 codes of 16 bits, which do not fit its 8-bit dtype"):
        softfloat.matmul(a, np.zeros((4, 2), np.uint8), "bf16", "e4m3")
    with pytest.raises(ValueError, match="softfloat.matmul: .*'fp8'"):
        softfloat.matmul(a, np.zeros((4, 2), np.uint8), "e4m3", "e4m3", acc="fp8")


def chain_of_fused_multiply_adds(a, b):
    """The in-order fp32 chain for E4M3 values: products are multiples of 2^-18 and the
    sums stay far below 2^30, so c + a * b is exact in float64 (see above)."""
    c = np.zeros((a.shape[0], b.shape[1]), np.float32)
    for p in range(a.shape[1]):
        c = (c.astype(np.float64) + np.outer(a[:, p], b[p, :])).astype(np.float32)
    return c


def tile_order(a, b):
    """S in the order of AMX TDPBF16PS (MatmulSummation::tiles): per block of 32 depth
    steps, the even steps' and the odd steps' products each summed from +0 in fp32,
    their sum added to the running value; every product of two bf16 values is exact
    in fp32."""
    c = np.zeros((a.shape[0], b.shape[1]), np.float32)
    for block in range(0, a.shape[1], 32):
        sums = [np.zeros_like(c), np.zeros_like(c)]
        for p in range(block, min(block + 32, a.shape[1])):
            sums[(p - block) % 2] += np.outer(a[:, p], b[p, :]).astype(np.float32)
        c += sums[0] + sums[1]
    return c


def e4m3_operands(seed, m, k, n):
    """Uniformly drawn E4M3 codes (every binade, NaN left out): their sums round often,
    so the two summation orders give different bits wherever vdpbf16ps runs."""
    rng = np.random.default_rng(seed)

    def codes(shape):
        c = rng.integers(0, 256, size=shape, dtype=np.uint8)
        c[(c & 0x7F) == 0x7F] = 0  # 0x7F and 0xFF are E4M3's NaNs
        return c

    a_codes, b_codes = codes((m, k)), codes((k, n))
    return (softfloat.dequantize(a_codes, "e4m3", dtype=np.float64),
            softfloat.dequantize(b_codes, "e4m3", dtype=np.float64), a_codes, b_codes)


def test_summation_per_call():
    a, b, a_codes, b_codes = e4m3_operands(6, 20, 150, 40)
    chain = chain_of_fused_multiply_adds(a, b)
    has_pairs = softfloat.matmul_path("e4m3", "e4m3", 20, 40, 150, summation="pairs") == "vdpbf16ps pairs gemm"
    has_tiles = softfloat.matmul_path("e4m3", "e4m3", 20, 40, 150, summation="tiles") == "amx tiles gemm"
    saved = softfloat.matmul_summation()
    try:
        for default in ("fastest", "in_order", "pairs", "tiles"):
            softfloat.set_matmul_summation(default)
            assert softfloat.matmul_summation() == default
            # A call's own order wins over the default; no order takes the default.
            in_order = softfloat.matmul(a_codes, b_codes, "e4m3", "e4m3", summation="in_order")
            assert in_order.tolist() == chain.tolist()
            pairs = softfloat.matmul(a_codes, b_codes, "e4m3", "e4m3", summation="pairs")
            by_default = softfloat.matmul(a_codes, b_codes, "e4m3", "e4m3")
            named = softfloat.matmul(a_codes, b_codes, "e4m3", "e4m3", summation=default)
            assert by_default.tolist() == named.tolist()
            # Pairs of products stay within the bound of a 150-term fp32 sum.
            exact = a @ b
            bound = 150 * 2.0**-24 / (1 - 150 * 2.0**-24) * (np.abs(a) @ np.abs(b))
            assert np.all(np.abs(pairs - exact) <= bound)
            if has_pairs:
                assert np.count_nonzero(pairs != in_order) > pairs.size // 10
            else:
                assert pairs.tolist() == in_order.tolist()
            # Tiles: the tile order where AMX runs, else the chain.
            tiles = softfloat.matmul(a_codes, b_codes, "e4m3", "e4m3", summation="tiles")
            expected = tile_order(a, b) if has_tiles else chain
            assert tiles.tolist() == expected.tolist()
            if has_tiles:
                assert np.count_nonzero(tiles != in_order) > tiles.size // 10
    finally:
        softfloat.set_matmul_summation(saved)


def test_summation_threads_each_get_their_own():
    # The GIL is released during a product, so two threads multiply at once.
    import threading

    _, _, a_codes, b_codes = e4m3_operands(7, 24, 300, 96)
    expected = {s: softfloat.matmul(a_codes, b_codes, "e4m3", "e4m3", summation=s).tolist()
                for s in ("in_order", "pairs", "tiles")}
    if softfloat.matmul_path("e4m3", "e4m3", 24, 96, 300, summation="pairs") == "vdpbf16ps pairs gemm":
        assert expected["in_order"] != expected["pairs"]  # so a thread given the other's order would show
    if softfloat.matmul_path("e4m3", "e4m3", 24, 96, 300, summation="tiles") == "amx tiles gemm":
        assert expected["in_order"] != expected["tiles"]
    wrong = {"in_order": 0, "pairs": 0, "tiles": 0}

    def work(summation):
        for _ in range(100):
            if softfloat.matmul(a_codes, b_codes, "e4m3", "e4m3", summation=summation).tolist() != expected[summation]:
                wrong[summation] += 1

    threads = [threading.Thread(target=work, args=(s,)) for s in ("in_order", "pairs", "tiles")]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert wrong == {"in_order": 0, "pairs": 0, "tiles": 0}


def test_matmul_path():
    assert softfloat.matmul_path("e4m3", "e4m3", 64, 64, 64, summation="in_order") == "fma gemm"
    assert softfloat.matmul_path("e4m3", "e4m3", 1, 64, 64, summation="in_order") == "fma matvec"
    assert softfloat.matmul_path("e4m3", "e4m3", 64, 64, 64, acc="bf16") == "scalar accumulator"
    assert softfloat.matmul_path("fp16", "fp16", 64, 64, 64, summation="pairs") == "fma gemm"
    assert softfloat.matmul_path("e4m3", "e4m3", 0, 64, 64) == "none"
    assert softfloat.matmul_path("e4m3", "e4m3", 64, 64, 64, summation="pairs") in (
        "vdpbf16ps pairs gemm", "fma gemm")  # the latter on CPUs without vdpbf16ps
    assert softfloat.matmul_path("e4m3", "e4m3", 64, 64, 64, summation="tiles") in (
        "amx tiles gemm", "fma gemm")  # the latter where AMX cannot run
    assert softfloat.matmul_path("e4m3", "e4m3", 1, 64, 64, summation="tiles") == "fma matvec"
    print("fastest on this CPU:", softfloat.matmul_path("e4m3", "e4m3", 1024, 1024, 1024, summation="fastest"))


def test_summation_errors():
    a = np.zeros((2, 2), np.uint8)
    with pytest.raises(ValueError, match="softfloat.matmul: unknown summation 'sideways' "
                                         r"\(accepted: fastest, in_order, pairs, tiles\)"):
        softfloat.matmul(a, a, "e4m3", "e4m3", summation="sideways")
    with pytest.raises(ValueError, match="softfloat.set_matmul_summation: unknown summation 'x'"):
        softfloat.set_matmul_summation("x")
    with pytest.raises(ValueError, match="softfloat.matmul_path: unknown summation 'y'"):
        softfloat.matmul_path("e4m3", "e4m3", 2, 2, 2, summation="y")
    with pytest.raises(TypeError):  # keyword only
        softfloat.matmul(a, a, "e4m3", "e4m3", "fp32", "in_order")
