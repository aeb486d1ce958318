"""format_info, the names, and the documented constants of the formats.

Every expected value is worked out from the format's bit layout in the comment beside
it (as ml_dtypes documents its limits), never taken from the library. The formats that
ml_dtypes also offers are marked with its type name.
"""
import numpy as np
import pytest

import softfloat

# spec: (bits, E, M, bias, max, min_normal, min_subnormal, nan_code, infinity_code)
CONSTANTS = {
    # IEEE binary32: 0b0'11111110'111...1 = (2 - 2^-23) * 2^127; quiet NaN 0x7FC00000.
    "fp32": (32, 8, 23, 127, (2 - 2**-23) * 2.0**127, 2.0**-126, 2.0**-149, 0x7FC00000, 0x7F800000),
    # IEEE binary64: (2 - 2^-52) * 2^1023.
    "fp64": (64, 11, 52, 1023, (2 - 2**-52) * 2.0**1023, 2.0**-1022, 2.0**-1074, 0x7FF8000000000000,
             0x7FF0000000000000),
    # ml_dtypes.bfloat16: 0b0'11111110'1111111 = (2 - 2^-7) * 2^127; NaN 0x7FC0, inf 0x7F80.
    "bf16": (16, 8, 7, 127, (2 - 2**-7) * 2.0**127, 2.0**-126, 2.0**-133, 0x7FC0, 0x7F80),
    # IEEE binary16: 0b0'11110'1111111111 = (2 - 2^-10) * 2^15 = 65504; min subnormal 2^(1-15-10).
    "fp16": (16, 5, 10, 15, 65504.0, 2.0**-14, 2.0**-24, 0x7E00, 0x7C00),
    # TF32: 19 bits, 1 + 8 + 10; inf = 0xFF << 10 = 0x3FC00, quiet NaN adds 1 << 9.
    "tf32": (19, 8, 10, 127, (2 - 2**-10) * 2.0**127, 2.0**-126, 2.0**-136, 0x3FE00, 0x3FC00),
    # ml_dtypes.float8_e5m2: 0b0'11110'11 = 1.75 * 2^15 = 57344; 2^(1-15-2) = 2^-16; NaN 0x7E.
    "e5m2": (8, 5, 2, 15, 57344.0, 2.0**-14, 2.0**-16, 0x7E, 0x7C),
    # ml_dtypes.float8_e4m3fn: 0b0'1111'110 = 1.75 * 2^8 = 448; 2^(1-7-3) = 2^-9; NaN 0b0'1111'111.
    "e4m3": (8, 4, 3, 7, 448.0, 2.0**-6, 2.0**-9, 0x7F, None),
    # ml_dtypes.float8_e4m3fnuz: 0b0'1111'111 = 1.875 * 2^(15-8) = 240; 2^(1-8-3) = 2^-10; NaN 0x80.
    "e4m3fnuz": (8, 4, 3, 8, 240.0, 2.0**-7, 2.0**-10, 0x80, None),
    # ml_dtypes.float8_e5m2fnuz: 0b0'11111'11 = 1.75 * 2^(31-16) = 57344; 2^(1-16-2) = 2^-17.
    "e5m2fnuz": (8, 5, 2, 16, 57344.0, 2.0**-15, 2.0**-17, 0x80, None),
    # ml_dtypes.float6_e3m2fn: 0b0'111'11 = 1.75 * 2^(7-3) = 28; 2^(1-3-2) = 2^-4; no NaN, no inf.
    "e3m2": (6, 3, 2, 3, 28.0, 2.0**-2, 2.0**-4, None, None),
    # ml_dtypes.float6_e2m3fn: 0b0'11'111 = 1.875 * 2^(3-1) = 7.5; 2^(1-1-3) = 2^-3.
    "e2m3": (6, 2, 3, 1, 7.5, 1.0, 2.0**-3, None, None),
    # ml_dtypes.float4_e2m1fn: 0b0'11'1 = 1.5 * 2^(3-1) = 6; 2^(1-1-1) = 2^-1.
    "e2m1": (4, 2, 1, 1, 6.0, 1.0, 0.5, None, None),
    # ml_dtypes.float8_e8m0fnu: unsigned, no zero: 0b11111110 = 2^(254-127); code 0 = 2^-127; NaN 0xFF.
    "e8m0": (8, 8, 0, 127, 2.0**127, 2.0**-127, 2.0**-127, 0xFF, None),
    # P3109 binary8p3: E5M2, bias 2^(7-3) = 16; magnitude 0x7E = 0b11111'10 = 1.5 * 2^15 = 49152;
    # infinity 0x7F, the one NaN 0x80.
    "p3109_8p3": (8, 5, 2, 16, 49152.0, 2.0**-15, 2.0**-17, 0x80, 0x7F),
}


@pytest.mark.parametrize("spec", sorted(CONSTANTS))
def test_documented_constants(spec):
    bits, e, m, bias, largest, min_normal, min_subnormal, nan_code, infinity_code = CONSTANTS[spec]
    info = softfloat.format_info(spec)
    assert (info.name, info.bits, info.exponent_bits, info.mantissa_bits, info.bias) == (spec, bits, e, m, bias)
    assert info.max == largest
    assert info.min_normal == min_normal and info.smallest_normal == min_normal
    assert info.min_subnormal == min_subnormal and info.smallest_subnormal == min_subnormal
    assert info.epsilon == 2.0**-m and info.eps == 2.0**-m
    assert info.nan_code == nan_code
    assert info.infinity_code == infinity_code
    assert info.has_nan == (nan_code is not None)
    assert info.has_infinity == (infinity_code is not None)
    assert info.lowest == (-largest if info.signed else min_subnormal)


@pytest.mark.parametrize("spec", [s for s in sorted(CONSTANTS) if CONSTANTS[s][0] <= 32])
def test_array_functions_agree_with_the_constants(spec):
    """The limit codes decode to the limits, the limits encode to their codes, and the
    code above max is the format's infinity or NaN (or does not exist)."""
    info = softfloat.format_info(spec)
    codes = np.array([info.max_code, info.min_normal_code, info.min_subnormal_code, info.lowest_code], np.uint32)
    values = softfloat.dequantize(codes, spec, dtype=np.float64)
    assert list(values) == [info.max, info.min_normal, info.min_subnormal, info.lowest]
    assert list(softfloat.quantize(values, spec).astype(np.uint32)) == list(codes)
    if info.nan_code is not None:
        assert np.isnan(softfloat.dequantize(np.array([info.nan_code], np.uint32), spec)[0])
        assert softfloat.quantize(np.array([np.nan]), spec)[0] == info.nan_code
    if info.infinity_code is not None:
        assert softfloat.dequantize(np.array([info.infinity_code], np.uint32), spec)[0] == np.inf


def test_fnuz_and_p3109_have_no_negative_zero_and_fn_has_two_nans():
    # ml_dtypes: float8_e4m3fn NaN is 0x7F and 0xFF; the fnuz formats turn -0 into +0.
    assert softfloat.quantize(np.array([-np.nan, np.nan], np.float32), "e4m3").tolist() == [0xFF, 0x7F]
    for spec in ("e4m3fnuz", "e5m2fnuz", "p3109_8p4"):
        assert not softfloat.format_info(spec).has_negative_zero
        assert softfloat.quantize(np.array([-0.0], np.float32), spec)[0] == 0
    assert softfloat.format_info("e4m3").has_negative_zero


def test_generic_specs():
    # IEEE-style E4M3: 0b0'1110'111 = 1.875 * 2^7 = 240, with infinity 0b0'1111'000.
    ieee = softfloat.format_info("e4m3:ieee")
    assert (ieee.max, ieee.infinity_code, ieee.specials) == (240.0, 0x78, "ieee")
    # A bias of 5 moves E3M4's top binade to 2^(6-5): max 0b0'110'1111 = 1.9375 * 2.
    assert softfloat.format_info("e3m4:bias=5").max == 1.9375 * 2
    assert softfloat.format_name("E8M7") == "bf16"
    assert softfloat.format_name("e4m3:fnuz") == "e4m3fnuz"
    assert softfloat.format_info("e5m2:unsigned").lowest == 0.0


def test_names():
    assert softfloat.rounding_modes() == ["nearest_even", "nearest_away", "nearest_zero", "toward_zero",
                                          "away_from_zero", "up", "down", "odd", "stochastic",
                                          "stochastic_equal"]
    names = softfloat.named_formats()
    assert names[:3] == ["fp32", "fp64", "bf16"] and "p3109_8p7" in names
    assert softfloat.mx_elements() == ["mxfp8_e4m3", "mxfp8_e5m2", "mxfp6_e3m2", "mxfp6_e2m3", "mxfp4_e2m1",
                                       "mxint8"]
    assert "name='e4m3'" in repr(softfloat.format_info("e4m3"))
    assert "max=448.0" in repr(softfloat.format_info("e4m3"))


def test_bad_specs_raise_value_error_with_the_grammar():
    with pytest.raises(ValueError, match=r"softfloat\.format_info: .*unknown format 'e4m3x'.*eXmY"):
        softfloat.format_info("e4m3x")
    with pytest.raises(ValueError, match="exponent bits must be between 1 and 11"):
        softfloat.format_info("e12m3")
    with pytest.raises(ValueError, match="softfloat.round_trip"):
        softfloat.round_trip(np.zeros(3, np.float32), "fp12")


def test_messages_quote_control_characters_escaped():
    # The spec's newline is quoted as backslash-n, so the message is one line.
    with pytest.raises(ValueError) as raised:
        softfloat.format_info("e4m3\n")
    assert str(raised.value) == (
        r"softfloat.format_info: invalid format spec 'e4m3\n': unknown format 'e4m3\n'; expected a named format "
        r"(fp32 fp64 bf16 fp16 tf32 e5m2 e4m3 e3m2 e2m3 e2m1 e8m0 e4m3fnuz e5m2fnuz p3109_8p1..p3109_8p7) or eXmY "
        r"with options :ieee :fn :finite :fnuz :unsigned :nozero :bias=N")
    assert "\n" not in str(raised.value)
    with pytest.raises(ValueError) as raised:
        softfloat.format_info("e4m3:\x1b[2J")
    assert str(raised.value) == (r"softfloat.format_info: invalid format spec 'e4m3:\x1b[2J': unknown option "
                                 r"'\x1b[2j'; options are :ieee :fn :finite :fnuz :unsigned :nozero :bias=N")
    with pytest.raises(ValueError) as raised:
        softfloat.round_trip(np.zeros(3, np.float32), "e4m3", rounding="up\r")
    assert str(raised.value) == (r"softfloat.round_trip: unknown rounding mode 'up\r' (accepted: nearest_even, "
                                 r"nearest_away, nearest_zero, toward_zero, away_from_zero, up, down, odd, stochastic, "
                                 r"stochastic_equal)")
    # A class name is user text too.
    with pytest.raises(TypeError) as raised:
        softfloat.round_trip(np.zeros(3, np.float32), "e4m3", rounding="stochastic", seed=type("a\tb", (), {})())
    assert str(raised.value) == r"softfloat.round_trip: seed must be an integer, not a\tb"

