// The scan behind Bf16Fit::add (bf16_dot.hpp), per Highway target (compiled by
// bf16_fit.cpp through foreach_target.h): it reads every value of a BF16 operand on
// each matmul call that may take the pairs or tile kernels, so it runs in vectors.

// Per-target include guard (Highway's idiom for -inl.h files).
#if defined(SOFTFLOAT_MATMUL_BF16_FIT_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef SOFTFLOAT_MATMUL_BF16_FIT_INL_H_
#undef SOFTFLOAT_MATMUL_BF16_FIT_INL_H_
#else
#define SOFTFLOAT_MATMUL_BF16_FIT_INL_H_
#endif

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "hwy/highway.h"

#ifndef SOFTFLOAT_MATMUL_FIT_FIELDS_
#define SOFTFLOAT_MATMUL_FIT_FIELDS_
namespace softfloat::matmul_detail {
// What the scan finds, in fp32 exponent fields.
struct FitFields {
  std::uint32_t subnormal = 0;        // nonzero: some value is an fp32 subnormal
  std::uint32_t infinities = 0;       // nonzero: some value is infinite
  std::uint32_t beyond_8_bits = 0;    // nonzero: some finite value has more than 8 significant bits
  std::uint32_t beyond_16_bits = 0;   // nonzero: some finite value has more than 16
  std::uint32_t lowest_field = 0xFF;  // min over finite nonzero values (0xFF: none)
  std::uint32_t highest_field = 0;    // max over finite nonzero values
};
}  // namespace softfloat::matmul_detail
#endif

HWY_BEFORE_NAMESPACE();
namespace softfloat::matmul_detail {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

FitFields ScanFit(const float* values, std::size_t count) {
  const hn::ScalableTag<std::uint32_t> d;
  const std::size_t lanes = hn::Lanes(d);
  const auto field_mask = hn::Set(d, 0xFFu), low_half = hn::Set(d, 0xFFFFu), magnitude = hn::Set(d, 0x7FFFFFFFu);
  const auto zero = hn::Zero(d);
  const auto infinity = hn::Set(d, 0x7F800000u);
  const auto low_byte = hn::Set(d, 0xFFu);
  auto subnormal = zero, infinities = zero, beyond_8 = zero, beyond_16 = zero, lowest = field_mask, highest = zero;
  const auto* bits = reinterpret_cast<const std::uint32_t*>(values);
  if (count < lanes) {  // one vector, padded with zeros (which the rule leaves out)
    alignas(HWY_MAX_BYTES) std::uint32_t padded[HWY_MAX_BYTES / sizeof(std::uint32_t)] = {};
    std::copy(bits, bits + count, padded);
    return ScanFit(reinterpret_cast<const float*>(padded), lanes);
  }
  // The last partial vector reads overlapping lanes again: min, max and or ignore repeats.
  for (std::size_t i = 0; i < count; i += lanes) {
    const auto v = hn::LoadU(d, bits + std::min(i, count - lanes));
    const auto field = hn::And(hn::ShiftRight<23>(v), field_mask);
    // Infinities, NaNs and zeros are outside the rule.
    const auto counted = hn::And(hn::Ne(field, field_mask), hn::Ne(hn::And(v, magnitude), zero));
    // A subnormal fp32 value is read as zero by the bf16 instructions; the low bits say
    // how many bf16 pieces hold a value (Bf16Fit::pieces).
    subnormal = hn::Or(subnormal, hn::VecFromMask(d, hn::And(counted, hn::Eq(field, zero))));
    beyond_8 = hn::Or(beyond_8, hn::VecFromMask(d, hn::And(counted, hn::Ne(hn::And(v, low_half), zero))));
    beyond_16 = hn::Or(beyond_16, hn::VecFromMask(d, hn::And(counted, hn::Ne(hn::And(v, low_byte), zero))));
    infinities = hn::Or(infinities, hn::VecFromMask(d, hn::Eq(hn::And(v, magnitude), infinity)));
    lowest = hn::Min(lowest, hn::IfThenElse(counted, field, field_mask));
    highest = hn::Max(highest, hn::IfThenElseZero(counted, field));
  }
  FitFields fields;
  fields.subnormal = hn::GetLane(hn::MaxOfLanes(d, subnormal));
  fields.infinities = hn::GetLane(hn::MaxOfLanes(d, infinities));
  fields.beyond_8_bits = hn::GetLane(hn::MaxOfLanes(d, beyond_8));
  fields.beyond_16_bits = hn::GetLane(hn::MaxOfLanes(d, beyond_16));
  fields.lowest_field = hn::GetLane(hn::MinOfLanes(d, lowest));
  fields.highest_field = hn::GetLane(hn::MaxOfLanes(d, highest));
  return fields;
}

}  // namespace HWY_NAMESPACE
}  // namespace softfloat::matmul_detail
HWY_AFTER_NAMESPACE();

#endif  // include guard
