"""Our P3109 formats against gfloat 0.5.2 (Graphcore's reference implementation of the
IEEE P3109 formats), code for code.

gfloat's format_info_p3109(8, P) is signed with the Extended domain (+-inf at 0x7F /
0xFF), no -0 and the single NaN 0x80: our p3109_8pP. Its Finite domain (no infinities,
0x7F is max) is our generic e<8-P>m<P-1>:fnuz, which is compared too. For every P:
every code decoded, every value encoded, and every rounding boundary (each value, each
midpoint, the float64 neighbours of both, the overflow threshold, values below the
smallest subnormal, +-0, +-inf, NaN) rounded in each direction gfloat has, with and
without saturation. Stochastic rounding is compared in distribution. The disagreements
are counted exactly here and explained in docs/peers/gfloat.md."""
import numpy as np
import pytest

gfloat = pytest.importorskip("gfloat")
gfloat_formats = pytest.importorskip("gfloat.formats")
import softfloat  # noqa: E402

RoundMode, Domain, Signedness = gfloat.RoundMode, gfloat.Domain, gfloat.Signedness
PRECISIONS = range(1, 8)
# Our rounding name for each of gfloat's directed and nearest modes. gfloat 0.5.2 has no
# round-to-odd (test_odd_is_gfloats_toward_zero_with_a_sticky_last_bit derives it).
MODES = {"nearest_even": RoundMode.TiesToEven, "nearest_away": RoundMode.TiesToAway,
         "toward_zero": RoundMode.TowardZero, "up": RoundMode.TowardPositive, "down": RoundMode.TowardNegative}
DOMAINS = {"extended": Domain.Extended, "finite": Domain.Finite}


def our_spec(precision, domain):
    """p3109_8pP, or for the Finite domain the generic spec with the same encoding:
    E = 8 - P, M = P - 1, :fnuz (NaN 0x80, no infinity, no -0, bias one above IEEE's
    2^(E-1) - 1, that is 2^(7-P))."""
    return f"p3109_8p{precision}" if domain == "extended" else f"e{8 - precision}m{precision - 1}:fnuz"


def their_format(precision, domain):
    return gfloat_formats.format_info_p3109(8, precision, Signedness.Signed, DOMAINS[domain])


def decoded(spec):
    return softfloat.dequantize(np.arange(256, dtype=np.uint8), spec, dtype=np.float64)


def boundary_values(spec):
    """Every value where a rounding decision of the format changes, both signs: the
    representable magnitudes, the first would-be value past max, the midpoints between
    neighbours, the float64 neighbours of all of these, values far below the smallest
    subnormal and far beyond max, and +-0, +-inf, NaN."""
    values = decoded(spec)
    magnitudes = np.unique(values[np.isfinite(values) & (values >= 0)])
    top_ulp = np.ldexp(1.0, np.frexp(magnitudes[-1])[1] - 1 - softfloat.format_info(spec).mantissa_bits)
    grid = np.append(magnitudes, magnitudes[-1] + top_ulp)
    points = np.concatenate([grid, (grid[1:] + grid[:-1]) / 2])
    points = np.concatenate([points, np.nextafter(points, np.inf), np.nextafter(points, -np.inf),
                             [magnitudes[1] / 4, 5e-324, 4 * magnitudes[-1], 1e300, np.finfo(np.float64).max]])
    positive = np.unique(points[points >= 0])
    return np.concatenate([positive, -positive, [np.inf, -np.inf, np.nan]]), grid


# boundary_values' size for each P: 768 magnitudes of each sign, +-inf and NaN (Finite: 774,
# its 0x7F being max adds a value, a midpoint and their neighbours).
BOUNDARY_VALUES = {"extended": 1539, "finite": 1551}


def gfloat_codes(fi, x, mode, saturate):
    return gfloat.encode_ndarray(fi, gfloat.round_ndarray(fi, x, mode, saturate)).astype(np.int64)


def test_gfloats_default_p3109_format_is_ours():
    for precision in PRECISIONS:
        fi = gfloat_formats.format_info_p3109(8, precision)
        ours = softfloat.format_info(f"p3109_8p{precision}")
        assert fi.is_signed and fi.domain == Domain.Extended and not fi.has_nz and fi.num_high_nans == 0
        assert (fi.code_of_nan, fi.code_of_posinf, fi.code_of_neginf) == (0x80, 0x7F, 0xFF)
        assert fi.bias == ours.bias == 2 ** (7 - precision)
        assert fi.max == ours.max and fi.smallest_normal == ours.min_normal
        assert fi.smallest_subnormal == ours.min_subnormal  # P = 1: the smallest normal 2^-63, no subnormals


@pytest.mark.parametrize("domain", sorted(DOMAINS))
def test_every_code_decodes_to_the_same_value(domain):
    compared = 0
    codes = np.arange(256)
    for precision in PRECISIONS:
        fi, spec = their_format(precision, domain), our_spec(precision, domain)
        ours = decoded(spec)
        for theirs in (gfloat.decode_ndarray(fi, codes),
                       np.array([gfloat.decode_float(fi, int(code)).fval for code in codes])):
            nan = np.isnan(ours)
            assert np.array_equal(np.isnan(theirs), nan) and np.count_nonzero(nan) == 1 and nan[0x80]
            assert np.array_equal(ours[~nan].view(np.uint64), theirs[~nan].view(np.uint64))  # +0 only, no -0
            compared += codes.size
        if domain == "extended":
            assert ours[0x7F] == np.inf and ours[0xFF] == -np.inf
    assert compared == 2 * 7 * 256


@pytest.mark.parametrize("domain", sorted(DOMAINS))
def test_every_value_encodes_to_its_code(domain):
    compared = 0
    for precision in PRECISIONS:
        fi, spec = their_format(precision, domain), our_spec(precision, domain)
        values = decoded(spec)
        codes = np.arange(256)
        scalar = np.array([gfloat.encode_float(fi, float(v)) for v in values])
        assert np.array_equal(gfloat.encode_ndarray(fi, values).astype(np.int64), codes)
        assert np.array_equal(scalar, codes)
        assert np.array_equal(softfloat.quantize(values, spec).astype(np.int64), codes)
        compared += codes.size
    assert compared == 7 * 256


def p1_tie_to_even_code(x, grid):
    """Where gfloat's TiesToEven at P = 1 differs from ours: |x| halfway between grid
    codes c and c + 1 with c even and nonzero (gfloat/round_ndarray.py: for precision 1,
    code_is_odd = (isignificand != 0) & _isodd(expval + bias), the parity of the code).
    Ours takes the integer significand's parity, 1, odd, so a tie between two powers of
    two goes to the larger one, as MPFR does at precision 1. Returns the mask and the
    code gfloat chooses there, c with x's sign."""
    midpoints = (grid[1:] + grid[:-1]) / 2
    c = np.minimum(np.searchsorted(midpoints, np.abs(x)), midpoints.size - 1)  # NaN sorts last
    mask = (midpoints[c] == np.abs(x)) & (c % 2 == 0) & (c != 0)
    return mask, np.where(np.signbit(x), 0x80 | c, c)


@pytest.mark.parametrize("domain", sorted(DOMAINS))
@pytest.mark.parametrize("saturate", [False, True])
@pytest.mark.parametrize("mode", sorted(MODES))
def test_rounding_at_every_boundary_is_gfloats(mode, saturate, domain):
    """round_ndarray (then encode_ndarray) against quantize, bit for bit, except P = 1
    under nearest_even (counted), and the scalar round_float too, except one
    float64 subtlety of its TiesToAway (counted)."""
    compared = differing = scalar_differing = 0
    for precision in PRECISIONS:
        fi, spec = their_format(precision, domain), our_spec(precision, domain)
        x, grid = boundary_values(spec)
        ours = softfloat.quantize(x, spec, rounding=mode, saturate=saturate).astype(np.int64)
        with np.errstate(over="ignore"):
            theirs = gfloat_codes(fi, x, MODES[mode], saturate)
        expected = ours.copy()
        if precision == 1 and mode == "nearest_even":
            tie, code = p1_tie_to_even_code(x, grid)
            expected[tie] = code[tie]
            differing += np.count_nonzero(ours != expected)
        assert np.array_equal(theirs, expected), (precision, x[theirs != expected])
        scalar = np.array([gfloat.encode_float(fi, gfloat.round_float(fi, float(v), MODES[mode], saturate))
                           for v in x])
        if mode == "nearest_away":
            # gfloat/round.py decides TiesToAway by delta + 0.5 >= 1.0 in float64, which
            # rounds 1 - 2^-54 up to 1.0: the float64 just below half the smallest
            # subnormal rounds away from zero (round_ndarray's delta >= 0.5 does not).
            below_half = np.abs(x) == np.nextafter(grid[1] / 2, 0)
            assert np.count_nonzero(below_half) == 2
            assert np.array_equal(scalar[below_half], np.where(x[below_half] > 0, 0x01, 0x81))
            scalar_differing += np.count_nonzero(scalar != theirs)
            scalar[below_half] = theirs[below_half]
        assert np.array_equal(scalar, theirs)
        compared += x.size
    assert compared == 7 * BOUNDARY_VALUES[domain]
    # P = 1, ties to even: the ties whose lower code is even and nonzero, both signs: 62
    # a sign between codes 0x02 and 0x7E, and the tie above 0x7E, which gfloat rounds to
    # 0x7E and we to the next code (Extended: inf, equal to max under saturation;
    # Finite: 0x7F, max).
    assert differing == (126 if mode == "nearest_even" and (domain == "finite" or not saturate) else
                         124 if mode == "nearest_even" else 0)
    assert scalar_differing == (2 * 7 if mode == "nearest_away" else 0)


@pytest.mark.parametrize("domain", sorted(DOMAINS))
@pytest.mark.parametrize("saturate", [False, True])
def test_odd_is_gfloats_toward_zero_with_a_sticky_last_bit(saturate, domain):
    """gfloat 0.5.2 has no round-to-odd, so the expectation is built from its TowardZero:
    exact values keep their code; otherwise the neighbour with an odd significand, that
    is TowardZero's code with the last bit set (P >= 2), TowardZero's code itself at
    P = 1 (every nonzero significand is 1) and the smallest value instead of zero;
    beyond max, max (round-to-odd overflows to max, docs/formats.md "Rounding directions and overflow")."""
    compared = 0
    for precision in PRECISIONS:
        fi, spec = their_format(precision, domain), our_spec(precision, domain)
        x, _ = boundary_values(spec)
        with np.errstate(over="ignore"):
            truncated = gfloat.round_ndarray(fi, x, RoundMode.TowardZero, saturate)
        code = gfloat.encode_ndarray(fi, truncated).astype(np.int64)
        with np.errstate(invalid="ignore"):
            inexact = (truncated != x) & np.isfinite(x)
        sign = np.where(np.signbit(x) & (x != 0), 0x80, 0)
        magnitude = code & 0x7F  # a negative value truncated to zero gives +0: no -0 here
        odd = sign | (np.maximum(magnitude, 1) if precision == 1 else magnitude | 1)
        expected = np.where(inexact, odd, code)
        beyond = np.isfinite(x) & (np.abs(x) > fi.max)
        expected = np.where(beyond, sign | fi.code_of_max, expected)
        ours = softfloat.quantize(x, spec, rounding="odd", saturate=saturate).astype(np.int64)
        assert np.array_equal(ours, expected), (precision, x[ours != expected])
        compared += x.size
    assert compared == 7 * BOUNDARY_VALUES[domain]


# Stochastic rounding: our "stochastic" rounds away from zero iff 32 random bits are below
# the first 32 bits of the discarded fraction (docs/design/stochastic-rounding.md, "The
# rule"); gfloat's RoundMode.Stochastic with srnumbits=32 rounds away iff
# round-to-nearest-even(delta * 2^32) + srbits >= 2^32. For the fractions below, dyadic
# with at most 32 bits or not, both probabilities are within 2^-32 of the exact
# fraction. Each side draws DRAWS roundings of the same value.
DRAWS = 20000
STOCHASTIC_CASES = [  # (P, code of the neighbour nearer zero, fraction of the gap to the next code)
    (3, 0x3C, 0.125), (3, 0x3C, 0.3), (3, 0xBC, 0.5), (4, 0x41, 0.9), (4, 0x01, 0.25),
    (4, 0x7D, 0.75), (7, 0x40, 1 / 1024), (7, 0xBF, 0.6), (1, 0x40, 0.25), (5, 0x00, 0.4),
]


@pytest.mark.parametrize("precision, near, fraction", STOCHASTIC_CASES)
def test_stochastic_rounding_has_gfloats_distribution(precision, near, fraction):
    """Both round x = v[near] + fraction * (v[near + 1] - v[near]) to v[near + 1] (away
    from zero) with probability `fraction`: each count is within five binomial standard
    deviations of DRAWS * fraction, and no other code appears."""
    spec = f"p3109_8p{precision}"
    fi = gfloat_formats.format_info_p3109(8, precision)
    values = decoded(spec)
    x = values[near] + fraction * (values[near + 1] - values[near])
    assert values[near] != x != values[near + 1] and abs(values[near]) < abs(values[near + 1])
    ours = softfloat.quantize(np.full(DRAWS, x), spec, rounding="stochastic", seed=2024).astype(np.int64)
    srbits = np.random.default_rng(2024).integers(0, 1 << 32, size=DRAWS, dtype=np.int64)
    theirs = gfloat.encode_ndarray(fi, gfloat.round_ndarray(fi, np.full(DRAWS, x), RoundMode.Stochastic,
                                                             srbits=srbits, srnumbits=32)).astype(np.int64)
    bound = 5 * np.sqrt(DRAWS * fraction * (1 - fraction)) + 1
    for codes in (ours, theirs):
        assert codes.size == DRAWS and set(np.unique(codes).tolist()) <= {near, near + 1}
        assert abs(np.count_nonzero(codes == near + 1) - DRAWS * fraction) <= bound
