// Entry points of the array conversions for the tests and benchmarks only: the
// generic vector algorithm on its own (without the F16C / AVX512-BF16 shortcuts, so
// that fp16 and bf16 exercise it too), one Highway target's compilation of it, and the
// scalar definition. Arguments are not checked here: the public functions in
// softfloat/simd.hpp do that.
#pragma once

#include <cstddef>
#include <cstdint>

#include "softfloat/format.hpp"
#include "softfloat/random_bits.hpp"
#include "softfloat/rounding.hpp"
#include "softfloat/simd.hpp"

namespace softfloat::simd::detail {

// The generic algorithm on the currently dispatched target (or the scalar loop for
// formats outside its range, see quantize_supported()).
template <CodeType Code>
void quantize_generic(const float* in, std::size_t n, Code* out, const Format& format, Rounding mode,
                      Overflow policy, RandomStream random = {});
// quantize_generic then dequantize_generic on this thread: the fused per-target loop
// where the vector algorithm covers the format and n is beyond cache (2^16 values or
// more), else in pieces on the stack (in == out allowed; formats of at most 32 bits).
void round_trip_generic(const float* in, std::size_t n, float* out, const Format& format, Rounding mode,
                        Overflow policy, RandomStream random = {});
template <CodeType Code>
void dequantize_generic(const Code* in, std::size_t n, float* out, const Format& format);

// The generic algorithm compiled for one Highway target (a single HWY_* bit), called
// through that target's entry of the dispatch table rather than the global choice, so
// that a test may run several targets at once on several threads. Returns false, and
// converts nothing, when the library was not compiled for `target` or the CPU lacks it.
template <CodeType Code>
bool quantize_on_target(std::int64_t target, const float* in, std::size_t n, Code* out, const Format& format,
                        Rounding mode, Overflow policy, RandomStream random = {});

// dequantize_generic's vector algorithm compiled for one target; false, converting
// nothing, where quantize_on_target would be false or the format is outside the vector
// algorithm. `non_temporal_stores`: store as the public dequantize does for outputs far
// beyond the cache (from the first vector-aligned output address on).
template <CodeType Code>
bool dequantize_on_target(std::int64_t target, const Code* in, std::size_t n, float* out, const Format& format,
                          bool non_temporal_stores = false);

// The fused round trip (quantize then dequantize in registers) compiled for one
// target; false, converting nothing, where quantize_on_target would be false or the
// format is outside the vector algorithm (fp32, formats the scalar loop serves).
// `non_temporal_stores`: as for dequantize_on_target (unless in == out).
bool round_trip_on_target(std::int64_t target, const float* in, std::size_t n, float* out, const Format& format,
                          Rounding mode, Overflow policy, RandomStream random = {}, bool non_temporal_stores = false);

// The scalar definition, element by element (for benchmarks and as the fallback).
void quantize_scalar(const float* in, std::size_t n, std::uint32_t* out, const Format& format, Rounding mode,
                     Overflow policy, RandomStream random = {});

}  // namespace softfloat::simd::detail
