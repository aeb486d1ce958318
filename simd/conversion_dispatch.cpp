// Highway's dispatch of the array conversions: the three kernel headers compiled once
// per target (foreach_target.h), the HWY_EXPORT tables of their entry points, the
// dispatched calls the other conversion files make (conversion_drivers.hpp), and the
// test hooks that call one target's entry through the layout of those tables.

// Highway compiles this file once per target, re-including the kernel headers each time.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "simd/conversion_dispatch.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include "simd/dequantize_round_trip-inl.h"
#include "simd/quantize_doubles-inl.h"
#include "simd/quantize_floats-inl.h"

#if HWY_ONCE
#include <bit>

#include "simd/array_constants.hpp"
#include "simd/conversion_drivers.hpp"
#include "simd/conversion_test_hooks.hpp"
#include "softfloat/simd.hpp"

namespace softfloat::simd::detail {

HWY_EXPORT(QuantizeTo8);
HWY_EXPORT(QuantizeTo16);
HWY_EXPORT(QuantizeTo32);
HWY_EXPORT(DequantizeFrom8);
HWY_EXPORT(DequantizeFrom16);
HWY_EXPORT(DequantizeFrom32);
HWY_EXPORT(RoundTripFloats);
HWY_EXPORT(QuantizeDoublesTo8);
HWY_EXPORT(QuantizeDoublesTo16);
HWY_EXPORT(QuantizeDoublesTo32);

void dispatch_quantize(const float* in, std::size_t n, std::uint8_t* out, const QuantizeConstants& c) {
  HWY_DYNAMIC_DISPATCH(QuantizeTo8)(in, n, out, c);
}
void dispatch_quantize(const float* in, std::size_t n, std::uint16_t* out, const QuantizeConstants& c) {
  HWY_DYNAMIC_DISPATCH(QuantizeTo16)(in, n, out, c);
}
void dispatch_quantize(const float* in, std::size_t n, std::uint32_t* out, const QuantizeConstants& c) {
  HWY_DYNAMIC_DISPATCH(QuantizeTo32)(in, n, out, c);
}
void dispatch_quantize(const double* in, std::size_t n, std::uint8_t* out, const QuantizeConstants& c) {
  HWY_DYNAMIC_DISPATCH(QuantizeDoublesTo8)(in, n, out, c);
}
void dispatch_quantize(const double* in, std::size_t n, std::uint16_t* out, const QuantizeConstants& c) {
  HWY_DYNAMIC_DISPATCH(QuantizeDoublesTo16)(in, n, out, c);
}
void dispatch_quantize(const double* in, std::size_t n, std::uint32_t* out, const QuantizeConstants& c) {
  HWY_DYNAMIC_DISPATCH(QuantizeDoublesTo32)(in, n, out, c);
}
void dispatch_dequantize(const std::uint8_t* in, std::size_t n, float* out, const DequantizeConstants& c,
                         bool stream) {
  HWY_DYNAMIC_DISPATCH(DequantizeFrom8)(in, n, out, c, stream);
}
void dispatch_dequantize(const std::uint16_t* in, std::size_t n, float* out, const DequantizeConstants& c,
                         bool stream) {
  HWY_DYNAMIC_DISPATCH(DequantizeFrom16)(in, n, out, c, stream);
}
void dispatch_dequantize(const std::uint32_t* in, std::size_t n, float* out, const DequantizeConstants& c,
                         bool stream) {
  HWY_DYNAMIC_DISPATCH(DequantizeFrom32)(in, n, out, c, stream);
}
void dispatch_round_trip(const float* in, std::size_t n, float* out, const QuantizeConstants& q,
                         const DequantizeConstants& d, bool stream) {
  HWY_DYNAMIC_DISPATCH(RoundTripFloats)(in, n, out, q, d, stream);
}

namespace {

// Where `target`'s entry sits in a HWY_EXPORT table (the layout of HWY_EXPORT in
// hwy/highway.h: 0 the dispatcher, then one entry per dynamic target in the order of
// HWY_CHOSEN_TARGET_SHIFT, last the fallback), or -1 if this file was not compiled
// for it or the CPU cannot run it.
int table_index(std::int64_t target) {
  if (target == 0 || (target & (target - 1)) != 0) return -1;
  if ((HWY_TARGETS & target) == 0 || (hwy::SupportedTargets() & target) == 0) return -1;
  const bool fallback = target == HWY_EMU128 || (target == HWY_SCALAR && (HWY_TARGETS & HWY_EMU128) == 0);
  if (fallback) return HWY_MAX_DYNAMIC_TARGETS + 1;
  const std::uint64_t shifted = std::uint64_t(HWY_CHOSEN_TARGET_SHIFT(target));
  return shifted == 0 ? -1 : std::countr_zero(shifted);
}

template <class Code>
const auto& dequantize_table() {
  if constexpr (sizeof(Code) == 1) return HWY_DISPATCH_TABLE(DequantizeFrom8);
  else if constexpr (sizeof(Code) == 2) return HWY_DISPATCH_TABLE(DequantizeFrom16);
  else return HWY_DISPATCH_TABLE(DequantizeFrom32);
}

// The per-target entries of each code type's quantize.
template <class Code>
const auto& quantize_table() {
  if constexpr (sizeof(Code) == 1) return HWY_DISPATCH_TABLE(QuantizeTo8);
  else if constexpr (sizeof(Code) == 2) return HWY_DISPATCH_TABLE(QuantizeTo16);
  else return HWY_DISPATCH_TABLE(QuantizeTo32);
}

}  // namespace

template <CodeType Code>
bool quantize_on_target(std::int64_t target, const float* in, std::size_t n, Code* out, const Format& format,
                        Rounding mode, Overflow policy, RandomStream random) {
  const int index = table_index(target);
  if (index < 0) return false;
  quantize_through(quantize_table<Code>()[index], in, n, out, format, mode, policy, random);
  return true;
}

template <CodeType Code>
bool dequantize_on_target(std::int64_t target, const Code* in, std::size_t n, float* out, const Format& format,
                          bool non_temporal_stores) {
  const int index = table_index(target);
  if (index < 0 || !dequantize_supported(format)) return false;
  if (n > 0) dequantize_table<Code>()[index](in, n, out, dequantize_constants(format), non_temporal_stores);
  return true;
}

bool round_trip_on_target(std::int64_t target, const float* in, std::size_t n, float* out, const Format& format,
                          Rounding mode, Overflow policy, RandomStream random, bool non_temporal_stores) {
  const int index = table_index(target);
  if (index < 0 || !fused_loop_covers(format, mode)) return false;
  if (n > 0)
    round_trip_through(HWY_DISPATCH_TABLE(RoundTripFloats)[index], in, n, out, format, mode, policy, random,
                       non_temporal_stores);
  return true;
}

// The instances simd/conversion_test_hooks.hpp declares, for every code type.
#define SOFTFLOAT_SIMD_DETAIL_INSTANCES(Code)                                                                 \
  template bool quantize_on_target(std::int64_t, const float*, std::size_t, Code*, const Format&, Rounding, \
                                   Overflow, RandomStream);                                                 \
  template bool dequantize_on_target(std::int64_t, const Code*, std::size_t, float*, const Format&, bool);
SOFTFLOAT_SIMD_DETAIL_INSTANCES(std::uint8_t)
SOFTFLOAT_SIMD_DETAIL_INSTANCES(std::uint16_t)
SOFTFLOAT_SIMD_DETAIL_INSTANCES(std::uint32_t)
#undef SOFTFLOAT_SIMD_DETAIL_INSTANCES

}  // namespace softfloat::simd::detail
#endif  // HWY_ONCE
