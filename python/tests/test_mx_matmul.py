"""mx_matmul against a NumPy reference built from the definition (softfloat/mx_matmul.hpp):
each block's dot product summed exactly in int64 from the element values (mx_dequantize
with unit scales), scaled exactly in float64 and rounded once to float32, the blocks
added in k order in float32. Every kernel this CPU has is run; one it lacks is skipped
with the reason."""
import numpy as np
import pytest

import softfloat

INTEGER_SCALE = {"mxfp4_e2m1": 2, "mxfp6_e2m3": 8, "mxfp6_e3m2": 16, "mxint8": 64}
VNNI = "avx512-vnni vpdpbusd"
AMX = "amx int8 tiles"


def integers(elements, scales, kind):
    values = softfloat.mx_dequantize(elements, np.full_like(scales, 0x7F), kind).astype(np.float64)
    scaled = values * INTEGER_SCALE[kind]
    assert np.array_equal(scaled, np.floor(scaled))
    return scaled.astype(np.int64)


def reference(a, b, kind_a, kind_b):
    (ae, as_), (be, bs) = a, b
    x, y = integers(ae, as_, kind_a), integers(be, bs, kind_b)
    shift = int(np.log2(INTEGER_SCALE[kind_a] * INTEGER_SCALE[kind_b]))
    m, n, blocks = x.shape[0], y.shape[0], as_.shape[1]
    total = np.zeros((m, n), dtype=np.float32)
    for t in range(blocks):
        dot = x[:, 32 * t:32 * t + 32] @ y[:, 32 * t:32 * t + 32].T  # exact: int64
        exponent = as_[:, t, None].astype(np.int64) + bs[None, :, t].astype(np.int64) - 254 - shift
        with np.errstate(over="ignore"):  # a NaN scale's exponent; the value is replaced below
            value = np.ldexp(dot.astype(np.float64), exponent).astype(np.float32)  # one rounding
        nan = (as_[:, t, None] == 0xFF) | (bs[None, :, t] == 0xFF)
        value[nan] = np.nan
        total = (total + value).astype(np.float32)
    return total


def random_blocks(rng, rows, k, spread):
    x = rng.standard_normal((rows, k)).astype(np.float32)
    x *= np.exp2(rng.integers(-spread, spread + 1, size=(rows, k // 32))).repeat(32, axis=1).astype(np.float32)
    return x


def kernels(kind_a, kind_b):
    """The kernels to run, and why the vectorised ones are missing where they should apply."""
    names, missing = ["exact scalar", None], []
    if "mxfp6_e3m2" in (kind_a, kind_b):
        return names, None
    a = softfloat.mx_quantize(np.zeros((1, 32), dtype=np.float32), kind_a)
    b = softfloat.mx_quantize(np.zeros((1, 32), dtype=np.float32), kind_b)
    for name in (VNNI, AMX):
        try:
            softfloat.mx_matmul(*a, *b, kind_a, b_element=kind_b, kernel=name)
            names.append(name)
        except ValueError as error:
            missing.append(f"{name} skipped ({error}); the other kernels ran")
    return names, "; ".join(missing) or None


def assert_same(got, want):
    assert got.dtype == np.float32 and got.shape == want.shape
    assert np.array_equal(np.isnan(got), np.isnan(want))
    ok = ~np.isnan(want)
    assert np.array_equal(got[ok].view(np.uint32), want[ok].view(np.uint32))


@pytest.mark.parametrize("kind_b", list(INTEGER_SCALE))
@pytest.mark.parametrize("kind_a", list(INTEGER_SCALE))
def test_every_pair_of_kinds_matches_the_definition(kind_a, kind_b):
    rng = np.random.default_rng(len(kind_a) * 7 + len(kind_b))
    m, n, k = 9, 35, 128
    a = softfloat.mx_quantize(random_blocks(rng, m, k, 20), kind_a)
    b = softfloat.mx_quantize(random_blocks(rng, n, k, 20), kind_b)
    want = reference(a, b, kind_a, kind_b)
    names, missing = kernels(kind_a, kind_b)
    for kernel in names:
        assert_same(softfloat.mx_matmul(*a, *b, kind_a, b_element=kind_b, kernel=kernel), want)
    if missing:
        pytest.skip(missing)


def test_b_quantized_along_axis_0_and_nan_scales():
    rng = np.random.default_rng(5)
    a = rng.standard_normal((6, 96)).astype(np.float32)
    b = rng.standard_normal((96, 10)).astype(np.float32)
    ae, as_ = softfloat.mx_quantize(a, "mxint8")
    be, bs = softfloat.mx_quantize(b, "mxint8", axis=0)
    as_[2, 1] = 0xFF
    bs[0, 7] = 0xFF
    c = softfloat.mx_matmul(ae, as_, be.T, bs.T, "mxint8")
    assert np.array_equal(np.isnan(c), np.add.outer(np.arange(6) == 2, np.arange(10) == 7))
    assert_same(c, reference((ae, as_), (np.ascontiguousarray(be.T), np.ascontiguousarray(bs.T)), "mxint8", "mxint8"))


def test_integer_values_give_exact_sums():
    rng = np.random.default_rng(9)
    grid = np.array([0, 0.5, 1, 1.5, 2, 3, 4, 6, -0.5, -1, -1.5, -2, -3, -4, -6], dtype=np.float32)
    a, b = rng.choice(grid, size=(4, 256)), rng.choice(grid, size=(256, 6))
    a[:, ::32] = 6  # every block's max is 6: scale 2^0, no rounding
    b[::32, :] = 6
    c = softfloat.mx_matmul(*softfloat.mx_quantize(a, "mxfp4_e2m1"), *softfloat.mx_quantize(b.T.copy(), "mxfp4_e2m1"),
                            "mxfp4_e2m1")
    assert np.array_equal(c.astype(np.float64), a.astype(np.float64) @ b.astype(np.float64))


def test_errors():
    x = np.ones((2, 64), dtype=np.float32)
    e, s = softfloat.mx_quantize(x, "mxfp4_e2m1")
    with pytest.raises(ValueError, match="MXFP8"):
        softfloat.mx_matmul(*softfloat.mx_quantize(x, "mxfp8_e4m3"), *softfloat.mx_quantize(x, "mxfp8_e4m3"),
                            "mxfp8_e4m3")
    with pytest.raises(ValueError, match="blocks"):
        softfloat.mx_matmul(e, s, e[:, :16], s[:, :1], "mxfp4_e2m1")
    with pytest.raises(ValueError, match="bytes"):
        softfloat.mx_matmul(e, s, e, s, "mxint8")
    with pytest.raises(TypeError, match="uint8"):
        softfloat.mx_matmul(e.astype(np.uint16), s, e, s, "mxfp4_e2m1")
    with pytest.raises(ValueError, match="unknown kernel"):
        softfloat.mx_matmul(e, s, e, s, "mxfp4_e2m1", kernel="fast")
    with pytest.raises(ValueError, match="mxfp5"):
        softfloat.mx_matmul(e, s, e, s, "mxfp5")
