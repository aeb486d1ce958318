// The public array conversions: argument checks, the choice between the per-target
// generic algorithm (quantize-inl.h, compiled for every Highway target and picked at
// run time by HWY_DYNAMIC_DISPATCH), the bit-identical hardware shortcuts, and the
// scalar loop over round_to_format() for formats outside the vector algorithm's range.

// Highway compiles this file once per target, re-including quantize-inl.h each time.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "simd/quantize-inl.h"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include "simd/quantize-inl.h"

#if HWY_ONCE
#include <bit>
#include <cstring>
#include <stdexcept>
#include <string>

#include "runtime/float_environment.hpp"
#include "runtime/memory_checks.hpp"
#include "runtime/parallel.hpp"
#include "simd/array_constants.hpp"
#include "simd/array_paths.hpp"
#include "simd/hardware_shortcuts.hpp"
#include "simd/stream_store.hpp"
#include "softfloat/exact_value.hpp"
#include "softfloat/format_spec.hpp"
#include "softfloat/random_bits.hpp"
#include "softfloat/round_to_format.hpp"
#include "softfloat/simd.hpp"

namespace softfloat::simd {
namespace detail {

// The worker pool and the floating-point environment guard, from runtime/.
using softfloat::detail::parallel_for;
using softfloat::detail::ScopedDefaultFloatEnvironment;

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

namespace {

// The exported (by-value) descriptions for the named shortcuts.
constexpr Format fp16_format{5, 10, 15};
constexpr Format bf16_format{8, 7, 127};

// The dispatched entry point of each value and code type.
template <class Value, class Code>
void dispatch_quantize(const Value* in, std::size_t n, Code* out, const QuantizeConstants& c) {
  if constexpr (std::is_same_v<Value, double>) {
    if constexpr (sizeof(Code) == 1) HWY_DYNAMIC_DISPATCH(QuantizeDoublesTo8)(in, n, out, c);
    else if constexpr (sizeof(Code) == 2) HWY_DYNAMIC_DISPATCH(QuantizeDoublesTo16)(in, n, out, c);
    else HWY_DYNAMIC_DISPATCH(QuantizeDoublesTo32)(in, n, out, c);
  } else {
    if constexpr (sizeof(Code) == 1) HWY_DYNAMIC_DISPATCH(QuantizeTo8)(in, n, out, c);
    else if constexpr (sizeof(Code) == 2) HWY_DYNAMIC_DISPATCH(QuantizeTo16)(in, n, out, c);
    else HWY_DYNAMIC_DISPATCH(QuantizeTo32)(in, n, out, c);
  }
}
// `stream`: non-temporal stores (WithStreamingStores in simd/stream-inl.h).
template <class Code>
void dispatch_dequantize(const Code* in, std::size_t n, float* out, const DequantizeConstants& c,
                         bool stream = false) {
  if constexpr (sizeof(Code) == 1) HWY_DYNAMIC_DISPATCH(DequantizeFrom8)(in, n, out, c, stream);
  else if constexpr (sizeof(Code) == 2) HWY_DYNAMIC_DISPATCH(DequantizeFrom16)(in, n, out, c, stream);
  else HWY_DYNAMIC_DISPATCH(DequantizeFrom32)(in, n, out, c, stream);
}

// Whether an output of n floats takes non-temporal stores (simd/stream_store.hpp).
bool streams(std::size_t n) { return stream_output(n * sizeof(float)); }

std::string describe_format(const Format& format) {
  try {
    return format_name(format);
  } catch (...) {
    return "the format";
  }
}

// `Code` is the type of the codes, whichever side of the conversion holds them; `In` and
// `Out` are the element types of the two arrays (in place needs them of one size).
template <class Code, class In, class Out>
void check_arguments(const In* in, std::size_t n, const Out* out, const Format& format, const char* function) {
  const softfloat::detail::Caller where{"softfloat::simd::", function};
  if (!format.valid())
    throw std::invalid_argument(where.text() + "invalid format: " + std::string(describe(format.problem())));
  if (n > 0 && (in == nullptr || out == nullptr))
    throw std::invalid_argument(where.text() + "null pointer with n = " + std::to_string(n));
  softfloat::detail::check_in_place(where, in, softfloat::detail::checked_bytes(where, n, sizeof(In), "input values"),
                                    sizeof(In), out,
                                    softfloat::detail::checked_bytes(where, n, sizeof(Out), "output values"),
                                    sizeof(Out));
  if (format.total_bits() > int(8 * sizeof(Code)))
    throw std::invalid_argument(where.text() + describe_format(format) + " has " +
                                std::to_string(format.total_bits()) + " bits and does not fit the " +
                                std::to_string(8 * sizeof(Code)) + "-bit output type");
}

// The random bits of element i of a call whose first element has counter random.offset.
std::uint32_t element_bits(Rounding mode, const RandomStream& random, std::size_t i) {
  return is_stochastic(mode) ? random_bits(random, i) : 0;
}

bool is_fp32(const Format& format) { return format == binary32_format; }

// fp32 -> fp32: every finite float is exact, so its bits are copied; only infinities
// and NaNs (exponent field all ones) ask round_to_format(), whose rules for them (a NaN
// made quiet, infinity saturated under Overflow::saturate) are stated nowhere else. In
// blocks: a copy without branches that notes whether the block holds such a lane, then
// the routine on those lanes alone. `in` may be `out`'s memory: a lane read again holds
// its own copied bits.
template <class Code>
void copy_fp32(const float* in, std::size_t n, Code* out, Rounding mode, Overflow policy) {
  constexpr std::size_t block = 1024;
  constexpr std::uint32_t exponent_all_ones = 0x7F800000u;
  const auto bits = [&](std::size_t i) {
    std::uint32_t u;
    std::memcpy(&u, in + i, 4);
    return u;
  };
  for (std::size_t begin = 0; begin < n; begin += block) {
    const std::size_t end = n - begin < block ? n : begin + block;
    std::uint32_t special = 0;
    for (std::size_t i = begin; i < end; ++i) {
      const std::uint32_t u = bits(i);
      special |= (u & exponent_all_ones) == exponent_all_ones;
      out[i] = Code(u);
    }
    if (special == 0) continue;
    for (std::size_t i = begin; i < end; ++i) {
      const std::uint32_t u = bits(i);
      if ((u & exponent_all_ones) == exponent_all_ones)
        out[i] = Code(round_to_format(decode(u, binary32_format), binary32_format, mode, policy));
    }
  }
}

template <class Code, class Input>
void quantize_scalar_loop(const Input* in, std::size_t n, Code* out, const Format& format, Rounding mode,
                          Overflow policy, const RandomStream& random) {
  for (std::size_t i = 0; i < n; ++i)
    out[i] = Code(round_to_format(decode(in[i]), format, mode, policy, element_bits(mode, random, i)));
}

// Elements [0, n) cut where the 64-bit counter random.offset + i crosses a multiple of
// 2^32, so that the counters of each piece share their high half (the vector code keys
// its random bits by it). Deterministic modes take one piece.
template <class Body>
void for_each_counter_block(std::size_t n, const RandomStream& random, Rounding mode, Body body) {
  std::size_t begin = 0;
  while (begin < n) {
    std::size_t end = n;
    if (is_stochastic(mode)) {
      const std::uint64_t to_boundary = (std::uint64_t{1} << 32) - ((random.offset + begin) & 0xFFFFFFFFu);
      if (to_boundary < end - begin) end = begin + std::size_t(to_boundary);
    }
    body(begin, end);
    begin = end;
  }
}

// The vector algorithm through `convert`, a per-target entry point (the dispatched one,
// or one target's for the tests), with the constants `base` of the call's format,
// direction and policy, in pieces that share their random counters' high half.
template <class Code, class Convert>
void quantize_vector(Convert convert, const float* in, std::size_t n, Code* out, const QuantizeConstants& base,
                     Rounding mode, const RandomStream& random) {
  ScopedDefaultFloatEnvironment environment;
  for_each_counter_block(n, random, mode, [&](std::size_t begin, std::size_t end) {
    convert(in + begin, end - begin, out + begin, at_stream(base, advanced(random, begin)));
  });
}

// The generic algorithm through `convert`: fp32 copied, the formats and modes outside
// the vector algorithm by the scalar loop.
template <class Code, class Convert>
void quantize_through(Convert convert, const float* in, std::size_t n, Code* out, const Format& format,
                      Rounding mode, Overflow policy, const RandomStream& random) {
  if (n == 0) return;
  if (is_fp32(format) && sizeof(Code) == 4) return copy_fp32(in, n, out, mode, policy);
  if (!quantize_supported(format, mode)) return quantize_scalar_loop(in, n, out, format, mode, policy, random);
  quantize_vector(convert, in, n, out, quantize_constants(format, mode, policy), mode, random);
}

template <class Code>
void quantize_generic_impl(const float* in, std::size_t n, Code* out, const Format& format, Rounding mode,
                           Overflow policy, const RandomStream& random) {
  const auto dispatched = [](const float* i, std::size_t count, Code* o, const QuantizeConstants& c) {
    dispatch_quantize(i, count, o, c);
  };
  quantize_through(dispatched, in, n, out, format, mode, policy, random);
}

template <class Code>
void dequantize_generic_impl(const Code* in, std::size_t n, float* out, const Format& format, bool stream = false) {
  if (n == 0) return;
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

// Starts of the blocks handed to threads: a multiple of any vector's lane count.
constexpr std::size_t kThreadBlockAlignment = 64;

// One thread's share of quantize(). The floating-point environment is per thread, so
// the F16C shortcut sets it up here, on the thread that runs it.
template <class Code>
void quantize_part(const float* in, std::size_t n, Code* out, const Format& format, Rounding mode,
                   Overflow policy, const RandomStream& random) {
  if constexpr (sizeof(Code) == 2) {
    const bool nearest_standard = mode == Rounding::nearest_even && policy == Overflow::standard;
    if (nearest_standard && format == fp16_format && f16c_usable()) {
      ScopedDefaultFloatEnvironment environment;
      return fp16_from_float_f16c(in, n, out);
    }
    if (nearest_standard && format == bf16_format && avx512bf16_usable())
      return bf16_from_float_avx512bf16(in, n, out);
  }
  quantize_generic_impl(in, n, out, format, mode, policy, random);
}

template <class Code>
void dequantize_part(const Code* in, std::size_t n, float* out, const Format& format, bool stream = false) {
  if constexpr (sizeof(Code) == 2) {
    if (format == fp16_format && f16c_usable()) {
      ScopedDefaultFloatEnvironment environment;
      return float_from_fp16_f16c(in, n, out);
    }
  }
  dequantize_generic_impl(in, n, out, format, stream);
}

template <class Code>
void quantize_public(const float* in, std::size_t n, Code* out, const Format& format, Rounding mode,
                     Overflow policy, const RandomStream& random) {
  check_arguments<Code>(in, n, out, format, "quantize");
  if (n == 0) return;
  parallel_for(n, kThreadBlockAlignment, [&](std::size_t begin, std::size_t end) {
    quantize_part(in + begin, end - begin, out + begin, format, mode, policy, advanced(random, begin));
  });
}

template <class Code>
void dequantize_public(const Code* in, std::size_t n, float* out, const Format& format) {
  check_arguments<Code>(in, n, out, format, "dequantize");
  if (n == 0) return;
  parallel_for(n, kThreadBlockAlignment, [&](std::size_t begin, std::size_t end) {
    dequantize_part(in + begin, end - begin, out + begin, format, streams(n));
  });
}

// From double: rounded to odd into floats and then by the float algorithm where
// double_input_via_float admits the format and direction (the same bits as rounding
// the double itself), else the scalar loop over round_to_format.
template <class Code>
void quantize_double(const double* in, std::size_t n, Code* out, const Format& format, Rounding mode,
                     Overflow policy, const RandomStream& random) {
  check_arguments<Code>(in, n, out, format, "quantize");
  if (n == 0) return;
  const bool vector = double_input_via_float(format, mode);
  const QuantizeConstants constants = vector ? quantize_constants(format, mode, policy) : QuantizeConstants{};
  parallel_for(n, kThreadBlockAlignment, [&](std::size_t begin, std::size_t end) {
    if (!vector)
      return quantize_scalar_loop(in + begin, end - begin, out + begin, format, mode, policy, advanced(random, begin));
    ScopedDefaultFloatEnvironment environment;  // per thread: the demotion rounds to nearest
    dispatch_quantize(in + begin, end - begin, out + begin, constants);
  });
}

// Whether the fused per-target loop can serve: the vector algorithm covers both
// directions (fp32 is a copy, and the scalar loop serves the formats it does not).
bool fused_loop_covers(const Format& format, Rounding mode) {
  return !is_fp32(format) && quantize_supported(format, mode) && dequantize_supported(format);
}

// The fused loop through `convert` (the dispatched entry or one target's), in pieces
// that share their random counters' high half, as quantize_vector does.
// `stream`: non-temporal stores (RoundTripFloats).
template <class Convert>
void round_trip_through(Convert convert, const float* in, std::size_t n, float* out, const Format& format,
                        Rounding mode, Overflow policy, const RandomStream& random, bool stream) {
  ScopedDefaultFloatEnvironment environment;
  const QuantizeConstants encode_constants = quantize_constants(format, mode, policy);
  const DequantizeConstants decode_constants = dequantize_constants(format);
  for_each_counter_block(n, random, mode, [&](std::size_t begin, std::size_t end) {
    convert(in + begin, end - begin, out + begin, at_stream(encode_constants, advanced(random, begin)),
            decode_constants, stream);
  });
}

void dispatch_round_trip(const float* in, std::size_t n, float* out, const QuantizeConstants& q,
                         const DequantizeConstants& d, bool stream) {
  HWY_DYNAMIC_DISPATCH(RoundTripFloats)(in, n, out, q, d, stream);
}


// Elsewhere (fp32, formats outside the vector algorithm, the shortcuts, arrays in
// cache): quantize then dequantize through a code buffer on the stack, a
// cache-resident piece at a time; `generic` leaves the hardware shortcuts out.
template <class Code>
void round_trip_pieces(const float* in, std::size_t n, float* out, const Format& format, Rounding mode,
                       Overflow policy, const RandomStream& random, bool generic) {
  constexpr std::size_t block = 2048;
  Code codes[block];
  for (std::size_t i = 0; i < n; i += block) {
    const std::size_t count = n - i < block ? n - i : block;
    if (generic) {
      quantize_generic_impl(in + i, count, codes, format, mode, policy, advanced(random, i));
      dequantize_generic_impl(codes, count, out + i, format);
    } else {
      quantize_part(in + i, count, codes, format, mode, policy, advanced(random, i));
      dequantize_part(codes, count, out + i, format);
    }
  }
}

// Below this many values a thread's share stays in cache, where the fused loop gains
// nothing (the work is the same) and runs slower for the 4- and 6-bit formats, whose two
// sets of constants no longer fit the registers (bench_simd_conversion: round_trip
// against quantize_then_dequantize); above it the fused loop saves the code array's
// traffic. The same bits either way.
constexpr std::size_t kFusedRoundTripMinimum = std::size_t{1} << 16;

template <class Code>
void round_trip_blocks(const float* in, std::size_t n, float* out, const Format& format, Rounding mode,
                       Overflow policy, const RandomStream& random) {
  // fp16 and bf16 too: beyond cache the fused loop's one pass beats the F16C and
  // AVX512-BF16 shortcuts' two (its fast path rounds in fp32's own bits).
  const bool fused = fused_loop_covers(format, mode);
  parallel_for(n, kThreadBlockAlignment, [&](std::size_t begin, std::size_t end) {
    const RandomStream here = advanced(random, begin);
    if (fused && end - begin >= kFusedRoundTripMinimum)
      round_trip_through(dispatch_round_trip, in + begin, end - begin, out + begin, format, mode, policy, here,
                         streams(n));
    else
      round_trip_pieces<Code>(in + begin, end - begin, out + begin, format, mode, policy, here, false);
  });
}

}  // namespace

void round_trip_generic(const float* in, std::size_t n, float* out, const Format& format, Rounding mode,
                        Overflow policy, RandomStream random) {
  if (n == 0) return;
  if (n >= kFusedRoundTripMinimum && fused_loop_covers(format, mode))
    return round_trip_through(dispatch_round_trip, in, n, out, format, mode, policy, random, streams(n));
  if (format.total_bits() <= 8) round_trip_pieces<std::uint8_t>(in, n, out, format, mode, policy, random, true);
  else if (format.total_bits() <= 16) round_trip_pieces<std::uint16_t>(in, n, out, format, mode, policy, random, true);
  else round_trip_pieces<std::uint32_t>(in, n, out, format, mode, policy, random, true);
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
  if (path_ == Path::copy_fp32 && sizeof(Code) == 4) return copy_fp32(in, n, out, mode_, policy_);
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

void check_span_lengths(std::size_t in, std::size_t out) {
  if (out < in)
    throw std::invalid_argument("softfloat::simd: the output span has " + std::to_string(out) +
                                " elements for an input of " + std::to_string(in));
}

// What the AVX512-BF16 shortcut converts its blocks with a flushed or NaN lane by
// (hardware_shortcuts.hpp). The constants are the same for every call, so they are
// derived once; the environment matters to the middle path's float addition.
void bf16_from_float_generic(const float* in, std::size_t n, std::uint16_t* out) {
  static const QuantizeConstants constants =
      quantize_constants(bf16_format, Rounding::nearest_even, Overflow::standard);
  ScopedDefaultFloatEnvironment environment;
  dispatch_quantize(in, n, out, constants);
}

// The instances simd/array_paths.hpp declares, for every code type.
#define SOFTFLOAT_SIMD_DETAIL_INSTANCES(Code)                                                                      \
  template void PreparedQuantize::operator()(const float*, std::size_t, Code*, RandomStream) const;              \
  template void PreparedDequantize::operator()(const Code*, std::size_t, float*) const;                           \
  template void quantize_generic(const float*, std::size_t, Code*, const Format&, Rounding, Overflow, RandomStream); \
  template void dequantize_generic(const Code*, std::size_t, float*, const Format&);                              \
  template bool quantize_on_target(std::int64_t, const float*, std::size_t, Code*, const Format&, Rounding,      \
                                   Overflow, RandomStream);                                                      \
  template bool dequantize_on_target(std::int64_t, const Code*, std::size_t, float*, const Format&, bool);
SOFTFLOAT_SIMD_DETAIL_INSTANCES(std::uint8_t)
SOFTFLOAT_SIMD_DETAIL_INSTANCES(std::uint16_t)
SOFTFLOAT_SIMD_DETAIL_INSTANCES(std::uint32_t)
#undef SOFTFLOAT_SIMD_DETAIL_INSTANCES

}  // namespace detail

template <ValueType Value, CodeType Code>
void quantize(const Value* in, std::size_t n, Code* out, const Format& format, Rounding mode, Overflow policy,
              RandomStream random) {
  if constexpr (std::is_same_v<Value, double>) detail::quantize_double(in, n, out, format, mode, policy, random);
  else detail::quantize_public(in, n, out, format, mode, policy, random);
}
template <CodeType Code>
void dequantize(const Code* in, std::size_t n, float* out, const Format& format) {
  detail::dequantize_public(in, n, out, format);
}

// The instances softfloat/simd.hpp declares: every value type with every code type.
#define SOFTFLOAT_SIMD_INSTANCES(Code)                                                                          \
  template void quantize(const float*, std::size_t, Code*, const Format&, Rounding, Overflow, RandomStream);  \
  template void quantize(const double*, std::size_t, Code*, const Format&, Rounding, Overflow, RandomStream); \
  template void dequantize(const Code*, std::size_t, float*, const Format&);
SOFTFLOAT_SIMD_INSTANCES(std::uint8_t)
SOFTFLOAT_SIMD_INSTANCES(std::uint16_t)
SOFTFLOAT_SIMD_INSTANCES(std::uint32_t)
#undef SOFTFLOAT_SIMD_INSTANCES

void round_trip(const float* in, std::size_t n, float* out, const Format& format, Rounding mode, Overflow policy,
                RandomStream random) {
  detail::check_arguments<std::uint32_t>(in, n, out, format, "round_trip");
  if (format.total_bits() <= 8) detail::round_trip_blocks<std::uint8_t>(in, n, out, format, mode, policy, random);
  else if (format.total_bits() <= 16)
    detail::round_trip_blocks<std::uint16_t>(in, n, out, format, mode, policy, random);
  else if (format.total_bits() <= 32)
    detail::round_trip_blocks<std::uint32_t>(in, n, out, format, mode, policy, random);
  else throw std::invalid_argument("softfloat::simd::round_trip: formats of more than 32 bits are not supported");
}
void round_trip(std::span<const float> in, std::span<float> out, const Format& format, Rounding mode,
                Overflow policy, RandomStream random) {
  detail::check_span_lengths(in.size(), out.size());
  round_trip(in.data(), in.size(), out.data(), format, mode, policy, random);
}

}  // namespace softfloat::simd
#endif  // HWY_ONCE
