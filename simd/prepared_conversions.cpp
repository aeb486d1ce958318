// The generic algorithm on the calling thread, without the F16C / AVX512-BF16
// shortcuts: the vector algorithm through the dispatched entry, fp32 copied, the
// scalar loop over round_to_format() for formats outside the vector algorithm's range.
// Prepared once (PreparedQuantize, PreparedDequantize) for the library's inner loops,
// or whole (quantize_generic and its kin) for the tests and benchmarks.

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "simd/array_constants.hpp"
#include "simd/conversion_drivers.hpp"
#include "simd/conversion_test_hooks.hpp"
#include "simd/prepared_conversions.hpp"
#include "softfloat/round_to_format.hpp"
#include "softfloat/simd.hpp"

namespace softfloat::simd::detail {

template <class Code>
void quantize_generic_impl(const float* in, std::size_t n, Code* out, const Format& format, Rounding mode,
                           Overflow policy, const RandomStream& random) {
  const auto dispatched = [](const float* i, std::size_t count, Code* o, const QuantizeConstants& c) {
    dispatch_quantize(i, count, o, c);
  };
  quantize_through(dispatched, in, n, out, format, mode, policy, random);
}

template <class Code>
void dequantize_generic_impl(const Code* in, std::size_t n, float* out, const Format& format, bool stream) {
  if (n == 0) return;
  // FP32 codes: their own floats (decoding rounds no finite value), as the scalar loop
  // below gives them.
  if constexpr (sizeof(Code) == 4)
    if (is_fp32(format)) return copy_fp32(in, n, out, Rounding::nearest_even, Overflow::standard);
  if (!dequantize_supported(format)) {
    const std::uint64_t mask = format.sign_bit() | format.magnitude_mask();
    for (std::size_t i = 0; i < n; ++i) {
      const auto bits = std::uint32_t(round_to_format(decode(in[i] & mask, format), binary32_format));
      std::memcpy(out + i, &bits, 4);
    }
    return;
  }
  dispatch_dequantize(in, n, out, dequantize_constants(format), stream);
}

void round_trip_generic(const float* in, std::size_t n, float* out, const Format& format, Rounding mode,
                        Overflow policy, RandomStream random) {
  if (n == 0) return;
  if (n >= kFusedRoundTripMinimum && fused_loop_covers(format, mode))
    return round_trip_through(dispatch_round_trip, in, n, out, format, mode, policy, random, streams(n));
  const auto pieces = [&]<class Code>(Code*) {
    round_trip_pieces<Code>(
        [&](const float* i, std::size_t count, Code* codes, const RandomStream& here) {
          quantize_generic_impl(i, count, codes, format, mode, policy, here);
        },
        [&](const Code* codes, std::size_t count, float* o) { dequantize_generic_impl(codes, count, o, format); },
        in, n, out, random);
  };
  if (format.total_bits() <= 8) pieces(static_cast<std::uint8_t*>(nullptr));
  else if (format.total_bits() <= 16) pieces(static_cast<std::uint16_t*>(nullptr));
  else pieces(static_cast<std::uint32_t*>(nullptr));
}

PreparedQuantize::PreparedQuantize(const Format& format, Rounding mode, Overflow policy)
    : format_(format), mode_(mode), policy_(policy), constants_{} {
  if (is_fp32(format)) path_ = Path::copy_fp32;
  else if (!quantize_supported(format, mode)) path_ = Path::scalar;
  else path_ = Path::vector, constants_ = quantize_constants(format, mode, policy);
}

template <CodeType Code>
void PreparedQuantize::operator()(const float* in, std::size_t n, Code* out, RandomStream random) const {
  if (n == 0) return;
  if (path_ == Path::vector) {
    const auto dispatched = [](const float* i, std::size_t count, Code* o, const QuantizeConstants& c) {
      dispatch_quantize(i, count, o, c);
    };
    return quantize_vector(dispatched, in, n, out, constants_, mode_, random);
  }
  if constexpr (sizeof(Code) == 4)
    if (path_ == Path::copy_fp32) return copy_fp32(in, n, out, mode_, policy_);
  quantize_scalar_loop(in, n, out, format_, mode_, policy_, random);
}

PreparedDequantize::PreparedDequantize(const Format& format)
    : format_(format), vector_(dequantize_supported(format)), constants_{} {
  if (vector_) constants_ = dequantize_constants(format);
}

template <CodeType Code>
void PreparedDequantize::operator()(const Code* in, std::size_t n, float* out) const {
  if (vector_) dispatch_dequantize(in, n, out, constants_);
  else dequantize_generic_impl(in, n, out, format_);
}

template <CodeType Code>
void quantize_generic(const float* in, std::size_t n, Code* out, const Format& format, Rounding mode,
                      Overflow policy, RandomStream random) {
  quantize_generic_impl(in, n, out, format, mode, policy, random);
}
template <CodeType Code>
void dequantize_generic(const Code* in, std::size_t n, float* out, const Format& format) {
  dequantize_generic_impl(in, n, out, format);
}
void quantize_scalar(const float* in, std::size_t n, std::uint32_t* out, const Format& format, Rounding mode,
                     Overflow policy, RandomStream random) {
  quantize_scalar_loop(in, n, out, format, mode, policy, random);
}

// The instances simd/conversion_drivers.hpp, simd/prepared_conversions.hpp and
// simd/conversion_test_hooks.hpp declare, for every code type.
#define SOFTFLOAT_SIMD_DETAIL_INSTANCES(Code)                                                                      \
  template void quantize_generic_impl(const float*, std::size_t, Code*, const Format&, Rounding, Overflow,         \
                                      const RandomStream&);                                                        \
  template void dequantize_generic_impl(const Code*, std::size_t, float*, const Format&, bool);                    \
  template void PreparedQuantize::operator()(const float*, std::size_t, Code*, RandomStream) const;              \
  template void PreparedDequantize::operator()(const Code*, std::size_t, float*) const;                           \
  template void quantize_generic(const float*, std::size_t, Code*, const Format&, Rounding, Overflow, RandomStream); \
  template void dequantize_generic(const Code*, std::size_t, float*, const Format&);
SOFTFLOAT_SIMD_DETAIL_INSTANCES(std::uint8_t)
SOFTFLOAT_SIMD_DETAIL_INSTANCES(std::uint16_t)
SOFTFLOAT_SIMD_DETAIL_INSTANCES(std::uint32_t)
#undef SOFTFLOAT_SIMD_DETAIL_INSTANCES

}  // namespace softfloat::simd::detail
