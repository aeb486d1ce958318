// The public array conversions (softfloat/simd.hpp): argument checks, the split of an
// array between threads, and the choice on each thread between the bit-identical
// hardware shortcuts (F16C for fp16, AVX512-BF16 for bf16) and the generic algorithm
// (prepared_conversions.cpp, through the per-target entry points that
// conversion_dispatch.cpp picks at run time), which falls back on the scalar loop over
// round_to_format() for formats outside the vector algorithm's range.

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "runtime/float_environment.hpp"
#include "runtime/memory_checks.hpp"
#include "runtime/parallel.hpp"
#include "simd/array_constants.hpp"
#include "simd/conversion_drivers.hpp"
#include "simd/hardware_shortcuts.hpp"
#include "softfloat/exact_value.hpp"
#include "softfloat/format_spec.hpp"
#include "softfloat/random_bits.hpp"
#include "softfloat/round_to_format.hpp"
#include "softfloat/simd.hpp"

namespace softfloat::simd {
namespace detail {

// The worker pool, from runtime/.
using softfloat::detail::parallel_for;

namespace {

// The exported (by-value) descriptions for the named shortcuts.
constexpr Format fp16_format{5, 10, 15};
constexpr Format bf16_format{8, 7, 127};

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

// F16C's vcvtph2ps writes with plain stores, so an output beyond the cache (`stream`)
// takes the generic kernel, whose stores stream: on the model-207 Xeon, dequantize of
// 2^26 fp16 codes took 43-44 ms by F16C and 19-21 by the generic kernel (memcpy of
// the floats: 26-30 ms in the same runs).
template <class Code>
void dequantize_part(const Code* in, std::size_t n, float* out, const Format& format, bool stream = false) {
  if constexpr (sizeof(Code) == 2) {
    if (format == fp16_format && !stream && f16c_usable()) {
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
      round_trip_pieces<Code>(
          [&](const float* i, std::size_t count, Code* codes, const RandomStream& piece) {
            quantize_part(i, count, codes, format, mode, policy, piece);
          },
          [&](const Code* codes, std::size_t count, float* o) { dequantize_part(codes, count, o, format); },
          in + begin, end - begin, out + begin, here);
  });
}

}  // namespace

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
