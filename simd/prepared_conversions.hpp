// The library's own entry points into the array conversions: conversions prepared
// once (prepared_conversions.cpp) and the packed 4- and 6-bit codes built on them
// (packed.cpp), for the MX and NVFP4 blocks, packed codes and matmul operands.
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

}  // namespace softfloat::simd::detail
