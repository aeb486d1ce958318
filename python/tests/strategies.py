"""Hypothesis strategies shared by the property suites (test_properties_*.py): format
specs, rounding modes, shapes, strided views and values that sit where rounding is
decided (the format's own values, their neighbours and midpoints, specials)."""
import math

import numpy as np
from hypothesis import settings
from hypothesis import strategies as st

import softfloat
from conftest import ARRAY_FORMATS

MODES = softfloat.rounding_modes()

# The rejection properties draw from few choices and fail fast: a quarter of the
# profile's examples (conftest.py) is plenty for them.
rejection_settings = settings(max_examples=max(10, settings.default.max_examples // 4))
CONVENTIONS = ["", ":ieee", ":fn", ":finite", ":fnuz"]


@st.composite
def custom_specs(draw):
    """A generic spec eXmY with options, valid or not (E and M a little past their limits,
    conventions that need more bits than drawn, repeated or contradictory options)."""
    e = draw(st.integers(0, 12))
    m = draw(st.integers(0, 24)) if draw(st.booleans()) else draw(st.integers(25, 54))
    options = [draw(st.sampled_from(CONVENTIONS))]
    if draw(st.integers(0, 3)) == 0:
        options.append(":unsigned")
    if draw(st.integers(0, 5)) == 0:
        options.append(":nozero")
    if draw(st.integers(0, 3)) == 0:
        options.append(f":bias={draw(st.integers(-8, (1 << max(e, 1)) + 4))}")
    options = draw(st.permutations(options))
    spec = f"e{e}m{m}" + "".join(options)
    return spec.upper() if draw(st.integers(0, 7)) == 0 else spec


def is_valid_spec(spec):
    try:
        softfloat.format_info(spec)
    except ValueError:
        return False
    return True


# Formats the array functions take: every named one of at most 32 bits, and valid custom
# specs (of any width up to 64 bits: wider ones take the scalar routine).
formats = st.one_of(st.sampled_from(ARRAY_FORMATS), custom_specs().filter(is_valid_spec))
modes = st.sampled_from(MODES)
seeds = st.integers(0, 2**64 - 1)
offsets = st.one_of(st.integers(0, 1000), st.integers(2**64 - 1000, 2**64 - 1))


@st.composite
def shapes(draw, max_size=96, max_dims=7):
    """Any rank from 0-d up, extents from 0 (empty arrays), at most max_size elements."""
    sides = draw(st.lists(st.integers(0, 6), max_size=max_dims))
    while math.prod(sides) > max_size:
        sides[sides.index(max(sides))] -= 1
    return tuple(sides)


def format_values(fmt):
    """Values where `fmt` decides: its codes decoded (exact in float64 up to 53 significant
    bits), the midpoints of neighbouring codes and the floats just beside both."""
    info = softfloat.format_info(fmt)
    code_dtype = np.uint64 if info.bits > 32 else np.uint32
    codes = st.integers(0, (1 << info.bits) - 1)

    def value(code):
        return float(softfloat._scalar_dequantize(np.array([code], code_dtype), fmt, dtype=np.float64)[0])

    def midpoint(code):
        low, high = value(code), value(min(code + 1, (1 << info.bits) - 1))
        return low / 2 + high / 2 if math.isfinite(low) and math.isfinite(high) else low

    exact = codes.map(value)
    between = codes.map(midpoint)
    beside = st.tuples(st.one_of(exact, between), st.sampled_from([-np.inf, np.inf])).map(
        lambda pair: float(np.nextafter(pair[0], pair[1])))
    return st.one_of(exact, between, beside)


def float_values(fmt, width):
    """Any float of the width (NaNs, infinities, subnormals, signed zeros) or a value at
    one of the format's rounding boundaries, as that width holds it."""
    anything = st.floats(width=width, allow_nan=True, allow_infinity=True, allow_subnormal=True)
    return st.one_of(anything, format_values(fmt))


@st.composite
def float_arrays(draw, fmt, dtype, max_size=96):
    shape = draw(shapes(max_size=max_size))
    width = 32 if dtype == np.float32 else 64
    values = draw(st.lists(float_values(fmt, width), min_size=math.prod(shape), max_size=math.prod(shape)))
    with np.errstate(over="ignore"):  # boundary values beyond float32 become infinities
        return np.array(values, dtype=np.float64).astype(dtype).reshape(shape)


@st.composite
def views(draw, array):
    """A view of `array` with steps, reversed axes and a transposition; the array
    repeated along a new axis of stride 0 (read-only); byte-swapped; or as it is."""
    kind = draw(st.sampled_from(["as is", "strided", "broadcast", "byteswapped"]))
    if kind == "byteswapped":
        return array.astype(array.dtype.newbyteorder())
    if kind == "broadcast":
        return np.broadcast_to(array, (draw(st.integers(0, 2)),) + array.shape)
    if kind == "as is" or array.ndim == 0:
        return array
    index = []
    for side in array.shape:
        step = draw(st.sampled_from([1, 2, 3, -1, -2]))
        start = draw(st.integers(0, max(side - 1, 0)))
        index.append(slice(start, None, step) if step > 0 else slice(side - 1 - start, None, step))
    view = array[tuple(index)]
    return view.transpose(draw(st.permutations(range(view.ndim))))
