// Internal entry points of the array conversions, for the tests and benchmarks: the
// generic vector algorithm on its own (without the F16C / AVX512-BF16 shortcuts, so
// that fp16 and bf16 exercise it too), and the names of the shortcuts this CPU takes.
// Arguments are not checked here: the public functions in softfloat/simd.hpp do that.
#pragma once

#include <cstddef>
#include <cstdint>

#include "simd/array_constants.hpp"
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

// A conversion prepared once for a format, rounding and overflow policy: which path it
// takes and the per-target constants, for inner loops that convert many pieces (MX
// blocks, packed codes, matmul operands) without checking arguments, splitting threads
// or rebuilding constants on every piece. The bits are quantize_generic's and
// dequantize_generic's (no hardware shortcut); the calling thread does the work, and
// quantize pins the floating-point environment per call as the public functions do.
class PreparedQuantize {
 public:
  PreparedQuantize(const Format& format, Rounding mode, Overflow policy);
  // `random`: the stream of in[0] (stochastic modes only), as in simd::quantize.
  template <CodeType Code>
  void operator()(const float* in, std::size_t n, Code* out, RandomStream random = {}) const;

 private:
  enum class Path { copy_fp32, scalar, vector };
  Format format_;
  Rounding mode_;
  Overflow policy_;
  Path path_;
  QuantizeConstants constants_;
};

class PreparedDequantize {
 public:
  explicit PreparedDequantize(const Format& format);
  template <CodeType Code>
  void operator()(const Code* in, std::size_t n, float* out) const;

 private:
  Format format_;
  bool vector_;
  DequantizeConstants constants_;
};

// quantize_packed / dequantize_packed of in[0, n) through a prepared conversion of a
// format of `width` (4 or 6) bits, into or from packed bytes starting at out / in: the
// codes of the first value start on a byte boundary there. Unchecked.
void quantize_packed_prepared(const PreparedQuantize& rounding, int width, const float* in, std::size_t n,
                              std::uint8_t* out, RandomStream random);
void dequantize_packed_prepared(const PreparedDequantize& decoding, int width, const std::uint8_t* in, std::size_t n,
                                float* out);

// The scalar definition, element by element (for benchmarks and as the fallback).
void quantize_scalar(const float* in, std::size_t n, std::uint32_t* out, const Format& format, Rounding mode,
                     Overflow policy, RandomStream random = {});

}  // namespace softfloat::simd::detail
