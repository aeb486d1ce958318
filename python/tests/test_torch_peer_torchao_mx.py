"""softfloat.torch.mx_encode against torchao's MX reference, to_mx (torchao 0.18.0,
torchao/prototype/mx_formats/mx_tensor.py): every ScaleCalculationMode torchao has
(FLOOR, RCEIL, CEIL, EVEN: our scale rules floor, rceil, ceil, even) and every element
dtype its to_mx takes (float8_e4m3fn, float8_e5m2, FP6 E2M3 and E3M2 as one uint8 code a
value, FP4 E2M1 two a byte), scales and element codes compared bit for bit.

mx_rule below writes out two rules: ours (docs/design/block-formats.md) and torchao's as
its source states it, which differs from ours in five places (docs/peers/torchao.md):
  1. FLOOR, CEIL, EVEN: a block with scale code 0 (2^-127) has its elements divided by
     2^-126 (scale_fp32 = torch.clamp(scale_fp32, min=F32_MIN_NORMAL));
  2. RCEIL: a block with scale code 0 has its elements multiplied by 1.0, not 2^127
     (rcp_fp32 ... torch.where(exponent == 0, 1.0, ...), after TransformerEngine);
  3. RCEIL: s = ceil(log2(amax / max_elem)) computed in float32, quotient and log2 each
     rounded, so an amax a few ulps above max_elem * 2^k gets s = k, not k + 1, and the
     block's largest elements clamp to +-max_elem;
  4. a block whose amax is infinite (no NaN) gets scale 255 - emax_elem (FLOOR, CEIL,
     EVEN: the exponent field of inf, 255, as a float exponent) or 254 (RCEIL) and
     elements x / 2^s clamped (ours: the NaN scale 0xFF and zero elements);
  5. a block holding a NaN gets scale 255 (as ours) and elements x / inf (FLOOR, CEIL,
     EVEN: +-0, NaN for NaN and inf) or x * NaN (RCEIL: all NaN), where torch's cast
     gives float8's NaN code and torchao's FP6 / FP4 bit conversion, which has no NaN,
     a finite code (ours: zero elements).
Each side is checked against its rule bit for bit, on random tensors, on a sweep of every
float32 amax where a scale rule turns, and on special blocks; where the rules agree, ours
and torchao's codes are equal bit for bit, and where they disagree the blocks are
counted exactly."""
import numpy as np
import pytest

torch = pytest.importorskip("torch")
mx_tensor = pytest.importorskip("torchao.prototype.mx_formats.mx_tensor")
config = pytest.importorskip("torchao.prototype.mx_formats.config")
constants = pytest.importorskip("torchao.prototype.mx_formats.constants")
import softfloat  # noqa: E402
import softfloat.torch as sft  # noqa: E402

MODES = ["floor", "rceil", "ceil", "even"]
# name: (torchao's element dtype, our element spec, emax_elem, max_elem, mantissa bits,
# sign bit of a code, the code torchao gives NaN without its sign).
ELEMENTS = {
    "mxfp8_e4m3": (torch.float8_e4m3fn, "e4m3", 8, 448.0, 3, 0x80, 0x7F),
    "mxfp8_e5m2": (torch.float8_e5m2, "e5m2", 15, 57344.0, 2, 0x80, 0x7F),
    # _f32_to_floatx_unpacked (torchao/prototype/custom_fp_utils.py) has "no special
    # values (NaN, inf) support": the bits of a quiet NaN, 0x7FC00000, take its normal-
    # range path ((bits + bias change + rounding bias) >> (23 - M), cast to uint8) and
    # come out as the code of 1.5 (E2M3 0x0C, E3M2 0x0E, E2M1 0x3).
    "mxfp6_e2m3": (constants.DTYPE_FP6_E2M3, "e2m3", 2, 7.5, 3, 0x20, 0x0C),
    "mxfp6_e3m2": (constants.DTYPE_FP6_E3M2, "e3m2", 4, 28.0, 2, 0x20, 0x0E),
    "mxfp4_e2m1": (torch.float4_e2m1fn_x2, "e2m1", 2, 6.0, 1, 0x08, 0x3),
}
BLOCK = 32


def test_torchao_has_the_modes_and_elements_compared_here():
    assert sorted(mode.value for mode in config.ScaleCalculationMode) == sorted(MODES)
    assert list(constants.SUPPORTED_ELEM_DTYPES) == [ELEMENTS[name][0] for name in
                                                     ("mxfp8_e4m3", "mxfp8_e5m2", "mxfp6_e2m3", "mxfp6_e3m2",
                                                      "mxfp4_e2m1")]


def exact_exponent(amax, mode, emax, top, mantissa):
    """s of a finite nonzero amax (float64 array) under our rules, exactly."""
    fraction, exponent = np.frexp(amax)
    exponent, significand = exponent - 1, 2 * fraction  # amax = significand * 2^exponent, significand in [1, 2)
    if mode == "floor":
        return exponent - emax
    if mode == "ceil":
        return exponent + (significand != 1.0) - emax
    if mode == "even":  # amax rounded to M + 1 significant bits, ties away, then floor(log2)
        return exponent + (significand >= 2.0 - 2.0 ** -(mantissa + 1)) - emax
    s = np.ceil(np.log2(amax / top)).astype(np.int64)  # rceil: the smallest s with amax <= top * 2^s
    s = np.where(np.ldexp(top, s - 1) >= amax, s - 1, s)
    return np.where(np.ldexp(top, s) < amax, s + 1, s)


def mx_rule(x, element, mode, torchao):
    """(scale codes (rows, blocks), element codes (rows, columns), NaN element mask) of
    x (float32, rows of whole blocks) under our rule or, with torchao=True, torchao's.
    Elements are x times a power of two, exact in float64, rounded by quantize to
    nearest even with saturation (torchao clamps to +-max_elem, then casts)."""
    _, spec, emax, top, mantissa, _, nan_code = ELEMENTS[element]
    rows, columns = x.shape
    blocks = x.reshape(rows, columns // BLOCK, BLOCK).astype(np.float64)
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        amax = np.max(np.abs(blocks), axis=-1)  # NaN if the block holds one
        nan, inf = np.isnan(amax), np.isinf(amax)
        finite = ~(nan | inf) & (amax != 0)
        safe = np.where(finite, amax, 1.0)
        # torchao's FLOOR, CEIL and EVEN read s from amax's float32 bits: the exact rules.
        if torchao and mode == "rceil":
            # descale = max_abs / max_pos and ceil(log2(descale)), both float32 (the log2
            # rounded to float32 here gives torch.log2's ceiling on every amax tested)
            descale = safe.astype(np.float32) / np.float32(top)
            s = np.ceil(np.log2(descale.astype(np.float64)).astype(np.float32)).astype(np.int64)
        else:
            s = exact_exponent(safe, mode, emax, top, mantissa)
        code = np.where(finite, np.clip(s, -127, 127), -127) + 127
        if torchao:
            code = np.where(inf, 254 if mode == "rceil" else 255 - emax, code)
        else:
            code = np.where(inf, 255, code)
        code = np.where(nan, 255, code)
        if not torchao:
            factor = np.where(nan | inf, 0.0, np.ldexp(1.0, 127 - code))
        elif mode == "rceil":
            factor = np.where(nan, np.nan, np.where(code == 0, 1.0, np.ldexp(1.0, 127 - code)))
        else:
            factor = np.ldexp(1.0, -np.maximum(code - 127, -126))  # division by max(2^s, 2^-126)
        scaled = blocks * factor[..., None]
        if torchao and mode != "rceil":  # a NaN block's scale 255 << 23 is +inf as float32: x / inf
            scaled = np.where(nan[..., None], np.where(np.isfinite(blocks), np.copysign(0.0, blocks), np.nan),
                              scaled)
        nan_elements = np.isnan(scaled) if torchao else np.zeros(scaled.shape, bool)
        codes = softfloat.quantize(scaled, spec, saturate=True).astype(np.uint8)
    codes = np.where(nan_elements, nan_code, codes)
    if not torchao:
        codes = np.where((nan | inf)[..., None], 0, codes)
    return code.astype(np.uint8), codes.reshape(rows, columns), nan_elements.reshape(rows, columns)


def element_codes(elements, element):
    """One uint8 code a value; FP4 bytes unpacked, element 0 in the low nibble."""
    raw = elements.view(torch.uint8).numpy()
    if element == "mxfp4_e2m1":
        return np.stack([raw & 0xF, raw >> 4], axis=-1).reshape(raw.shape[0], -1)
    return raw


def encode_both(x, element, mode):
    """(scales, codes, packed bytes) of torchao's to_mx and of our mx_encode."""
    tensor = torch.from_numpy(x)
    scale, data = mx_tensor.to_mx(tensor, ELEMENTS[element][0], BLOCK, config.ScaleCalculationMode(mode))
    elements, scales = sft.mx_encode(tensor, element, block_size=BLOCK, scale_rule=mode)
    assert scale.dtype == scales.dtype == torch.float8_e8m0fnu
    assert data.shape == elements.shape
    theirs = (scale.view(torch.uint8).numpy().reshape(x.shape[0], -1), element_codes(data, element),
              data.view(torch.uint8).numpy())
    ours = (scales.view(torch.uint8).numpy(), element_codes(elements, element), elements.view(torch.uint8).numpy())
    return theirs, ours


def compare(x, element, mode):
    """Checks both sides against their rules and ours against torchao where the rules
    agree. Returns (blocks, blocks whose scales differ, blocks whose element codes
    differ, blocks with scale code 0 whose codes differ)."""
    theirs, ours = encode_both(x, element, mode)
    sign = ELEMENTS[element][5]
    their_scales, their_codes, nan_elements = mx_rule(x, element, mode, torchao=True)
    our_scales, our_codes, _ = mx_rule(x, element, mode, torchao=False)
    # torchao's rule, bit for bit; the sign of a NaN element is not compared (x86 makes
    # inf / inf a negative NaN, other processors a positive one).
    mask = np.where(nan_elements, 0xFF & ~sign, 0xFF).astype(np.uint8)
    assert np.array_equal(theirs[0], their_scales)
    assert np.array_equal(theirs[1] & mask, their_codes & mask)
    # ours, bit for bit
    assert np.array_equal(ours[0], our_scales)
    assert np.array_equal(ours[1], our_codes)
    # where the rules agree, ours is torchao's, bit for bit, packed bytes too
    rows, blocks = our_scales.shape
    rules_differ = (our_scales != their_scales) | (our_codes != their_codes).reshape(rows, blocks, BLOCK).any(-1)
    per_byte = BLOCK // 2 if element == "mxfp4_e2m1" else BLOCK
    same = ~rules_differ
    assert np.array_equal(ours[0][same], theirs[0][same])
    assert np.array_equal(ours[2].reshape(rows, blocks, per_byte)[same],
                          theirs[2].reshape(rows, blocks, per_byte)[same])
    codes_differ = (ours[1] != theirs[1]).reshape(rows, blocks, BLOCK).any(-1)
    assert np.array_equal(rules_differ, (ours[0] != theirs[0]) | codes_differ)
    return (rows * blocks, int(np.count_nonzero(ours[0] != theirs[0])), int(np.count_nonzero(codes_differ)),
            int(np.count_nonzero(codes_differ & (ours[0] == 0))))


def hashed(count, salt):
    """count pseudo-random 64-bit integers (splitmix64 of a counter): the same on every
    NumPy."""
    z = np.arange(count, dtype=np.uint64) + np.uint64(salt * 0x9E3779B97F4A7C15 % 2 ** 64)
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


def fill_blocks(amax, salt):
    """One block per amax: the amax itself (random sign) and 31 values amax * u * 2^-d,
    u in [0.5, 1) with 24 random bits and d in [0, 24), so that the block's elements
    fall on every binade of the element format, its subnormals and below."""
    amax = np.asarray(amax, np.float64)
    bits = hashed(amax.size * BLOCK, salt).reshape(amax.size, BLOCK)
    u = 0.5 + (bits >> np.uint64(40)).astype(np.float64) * 2.0 ** -25
    d = ((bits >> np.uint64(8)) % np.uint64(24)).astype(np.int64)
    values = amax[:, None] * np.ldexp(u, -d)
    values[:, 0] = amax
    sign = np.where((bits & np.uint64(1)) == 1, -1.0, 1.0)
    return (values * sign).astype(np.float32)


def random_tensor(rows, low, high, salt):
    """rows x 128 float32, four blocks a row, each block's amax 2^k times a random
    significand, k uniform in [low, high]."""
    bits = hashed(rows * 4, salt + 1)
    k = low + (bits % np.uint64(high - low + 1)).astype(np.int64)
    significand = 1.0 + (bits >> np.uint64(40)).astype(np.float64) * 2.0 ** -24
    return fill_blocks(np.ldexp(significand, k), salt).reshape(rows, 4 * BLOCK)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("element", sorted(ELEMENTS))
def test_random_tensors_agree_bit_for_bit(element, mode):
    """Blocks of every magnitude from 2^-100 to 2^100: no scale clamps, no special
    values, so ours and torchao's are equal everywhere."""
    x = random_tensor(1024, -100, 100, salt=7)
    blocks, scales_differ, codes_differ, _ = compare(x, element, mode)
    assert (blocks, scales_differ, codes_differ) == (4096, 0, 0)
    theirs, ours = encode_both(x, element, mode)
    assert np.array_equal(ours[2], theirs[2]) and ours[1].size == 4096 * BLOCK


# Blocks of random_tensor(1024, -160, 127, salt=11) (4096 blocks, amax from float32
# denormals to 2^128) whose element codes differ, for FLOOR, RCEIL, CEIL, EVEN: all of them
# blocks with scale code 0 (rules 1 and 2); no scale differs.
RANDOM_CODE_ZERO_BLOCKS_DIFFERING = {
    "mxfp8_e4m3": (274, 272, 263, 273), "mxfp8_e5m2": (485, 483, 468, 485), "mxfp6_e2m3": (103, 102, 88, 102),
    "mxfp6_e3m2": (148, 144, 132, 145), "mxfp4_e2m1": (75, 68, 60, 70),
}


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("element", sorted(ELEMENTS))
def test_random_tensors_over_the_whole_float32_range(element, mode):
    x = random_tensor(1024, -160, 127, salt=11)
    blocks, scales_differ, codes_differ, code_zero = compare(x, element, mode)
    expected = RANDOM_CODE_ZERO_BLOCKS_DIFFERING[element][MODES.index(mode)]
    assert (blocks, scales_differ, codes_differ, code_zero) == (4096, 0, expected, expected)


def amax_sweep(element):
    """Every float32 amax where a scale rule can turn, one block each: for every k, the
    64 float32 values from max_elem * 2^k up (RCEIL's boundary; torchao's float32 RCEIL
    gives a lower scale only within 44 ulps of it), 2^k and (2 - 2^-(M+1)) * 2^k (FLOOR,
    CEIL and EVEN's) and three values below each, from the float32 denormals to FLT_MAX."""
    _, _, _, top, mantissa, _, _ = ELEMENTS[element]
    f32 = np.float32
    values = [np.finfo(f32).max]
    for k in range(-152, 129):
        for base, up in ((top * 2.0 ** k, 64), (2.0 ** k, 4), ((2 - 2.0 ** -(mantissa + 1)) * 2.0 ** k, 4)):
            if not 2.0 ** -149 <= base <= float(np.finfo(f32).max):
                continue
            first = f32(base)
            steps = first.view(np.uint32) + np.arange(-3, up, dtype=np.int64)
            values.append(steps[(steps > 0) & (steps < 0x7F800000)].astype(np.uint32).view(f32))
    amax = np.unique(np.concatenate([np.atleast_1d(v) for v in values]))
    return fill_blocks(amax, salt=3)


# For each element: the sweep's blocks, the blocks whose RCEIL scale is lower in torchao
# (rule 3: every float32 amax where this happens, as the sweep covers every ulp within
# reach), and for FLOOR, RCEIL, CEIL, EVEN the blocks with scale code 0 whose element codes
# differ (rules 1 and 2). The RCEIL blocks of rule 3 differ in their element codes too.
SWEEP = {
    "mxfp8_e4m3": (21989, 6290, (1537, 1465, 1457, 1530)),
    "mxfp8_e5m2": (21582, 6017, (2199, 2127, 2119, 2192)),
    "mxfp6_e2m3": (22006, 6995, (564, 493, 484, 557)),
    "mxfp6_e3m2": (22012, 6446, (807, 736, 727, 800)),
    "mxfp4_e2m1": (22010, 5534, (403, 331, 323, 396)),
}


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("element", sorted(ELEMENTS))
def test_every_amax_where_a_scale_rule_turns(element, mode):
    x = amax_sweep(element)
    blocks, scales_differ, codes_differ, code_zero = compare(x, element, mode)
    sweep_blocks, rceil_lower, code_zero_blocks = SWEEP[element]
    lower = rceil_lower if mode == "rceil" else 0
    expected_code_zero = code_zero_blocks[MODES.index(mode)]
    assert (blocks, scales_differ, code_zero, codes_differ) == (sweep_blocks, lower, expected_code_zero,
                                                                 expected_code_zero + lower)


def special_blocks(element):
    """Blocks 0-9: all +0; +-0; a NaN among finite values; -NaN first; +inf; -inf and the
    largest finite float32; inf and NaN together; amax FLT_MAX; amax 2^-149, the smallest
    float32 denormal; amax 2^-127."""
    finite = fill_blocks(np.ones(1), salt=5)[0]
    x = np.zeros((10, BLOCK), np.float32)
    x[1, 1::2] = -0.0
    x[2:7] = finite
    x[2, 5] = np.nan
    x[3, 0] = -np.float32(np.nan)
    x[4, 3] = np.inf
    x[5, 0], x[5, 7] = -np.inf, np.finfo(np.float32).max
    x[6, 2], x[6, 9] = np.inf, np.nan
    x[7] = fill_blocks([np.finfo(np.float32).max], salt=6)[0]
    x[8, :3] = [2.0 ** -149, -(2.0 ** -149), 2.0 ** -148 / 3]
    x[9] = fill_blocks([2.0 ** -127], salt=8)[0]
    return x


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("element", sorted(ELEMENTS))
def test_special_blocks(element, mode):
    _, _, emax, top, mantissa, sign, nan_code = ELEMENTS[element]
    x = special_blocks(element)
    compare(x, element, mode)
    theirs, ours = encode_both(x, element, mode)
    top_scale = int(exact_exponent(np.array([np.finfo(np.float32).max], np.float64), mode, emax, top,
                                   mantissa)[0]) + 127  # 127 - emax + 127 (FLOOR), one more for the others
    assert top_scale < 254  # no finite float32 amax reaches E8M0's largest scale with these elements
    assert ours[0].ravel().tolist() == [0, 0, 255, 255, 255, 255, 255, top_scale, 0, 0]
    infinite = 254 if mode == "rceil" else 255 - emax
    assert theirs[0].ravel().tolist() == [0, 0, 255, 255, infinite, infinite, 255, top_scale, 0, 0]
    # ours: NaN and infinity blocks have zero elements; zero blocks keep -0
    assert not ours[1][2:7].any()
    assert ours[1][1].tolist() == [0, sign] * (BLOCK // 2) and theirs[1][1].tolist() == ours[1][1].tolist()
    # torchao: a NaN block's NaN is the NaN code (FP6 / FP4: the code of 1.5)
    assert int(theirs[1][2, 5]) & ~sign == nan_code and int(theirs[1][3, 0]) & ~sign == nan_code
    # torchao: an infinity becomes +-max_elem
    max_code = int(softfloat.quantize(top, ELEMENTS[element][1]))
    assert theirs[1][4, 3] == max_code and theirs[1][5, 0] == sign | max_code
    # blocks 2-6 (NaN and infinity) and 9 (scale code 0, elements 2^-127 * [0.5, 1]) differ;
    # block 8's elements vanish either way, 2^-149 * 2^127 being below every element's
    # smallest subnormal.
    differ = (ours[0] != theirs[0]).ravel() | (ours[1] != theirs[1]).any(-1)
    assert np.nonzero(differ)[0].tolist() == [2, 3, 4, 5, 6, 9]
