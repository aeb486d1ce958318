// The SIMD array conversions (softfloat/simd.hpp) as candidates of the chunked sweep,
// so that one reference per chunk serves them and the scalar paths alike: the public
// simd::quantize (runtime dispatch, with the F16C / AVX512-BF16 shortcuts), the generic
// algorithm of every Highway target the library was compiled for and this CPU runs,
// and every such target's fused round trip. Each target is called through its own
// dispatch-table entry (simd::detail::*_on_target), not the global target choice, so
// that the sweep's threads may run several targets at once.
#pragma once

#include <cstdint>
#include <vector>

#include "softfloat/format.hpp"
#include "softfloat/rounding.hpp"
#include "verify/exhaustive/chunked_sweep.hpp"

namespace softfloat::verify {

// "dispatched" (simd::quantize) then "<TARGET> generic" for each target, nearest even
// with the standard overflow rule (the table reference's rounding). Throws
// std::runtime_error naming a compiled and supported target that cannot be called:
// a failure, not a skip.
std::vector<Candidate> array_quantize_candidates(const Format& format);

// "<TARGET> round_trip" for each target (or only the best one): its fused loop, whose
// floats must be the reference's codes decoded by dequantize. Throws as above.
std::vector<Candidate> array_round_trip_candidates(const Format& format, Rounding mode = Rounding::nearest_even,
                                                   Overflow policy = Overflow::standard, bool best_target_only = false);

// The best target's quantize in `mode` and `policy`, as the reference of a sweep of
// that target's round trip in the same mode (the table reference has nearest even only).
Conversion best_target_quantize(const Format& format, Rounding mode, Overflow policy);

// The float bits of every code of `format` (at most 16 bits), decoded by the array
// dequantize (checked on every code and target against the scalar operator float in
// verify/simd/array_conversion_test.cpp).
std::vector<std::uint32_t> decoded_codes(const Format& format);

}  // namespace softfloat::verify
