// What the three files of the array conversions share: the per-target entry points
// chosen at run time (defined in conversion_dispatch.cpp, beside Highway's dispatch
// tables), the generic algorithm on the calling thread without hardware shortcuts
// (prepared_conversions.cpp), and the loops that drive a per-target entry point over
// an array: the fp32 copy, the scalar loop over round_to_format(), the pieces that
// share their random counters' high half, and the fused round trip.
// array_conversions.cpp adds the argument checks, the thread split and the shortcuts.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "runtime/float_environment.hpp"
#include "simd/array_constants.hpp"
#include "simd/stream_store.hpp"
#include "softfloat/format.hpp"
#include "softfloat/random_bits.hpp"
#include "softfloat/round_to_format.hpp"
#include "softfloat/rounding.hpp"

namespace softfloat::simd::detail {

// The floating-point environment guard, from runtime/.
using softfloat::detail::ScopedDefaultFloatEnvironment;

// The dispatched entry point of each value and code type (HWY_DYNAMIC_DISPATCH).
void dispatch_quantize(const float* in, std::size_t n, std::uint8_t* out, const QuantizeConstants& c);
void dispatch_quantize(const float* in, std::size_t n, std::uint16_t* out, const QuantizeConstants& c);
void dispatch_quantize(const float* in, std::size_t n, std::uint32_t* out, const QuantizeConstants& c);
void dispatch_quantize(const double* in, std::size_t n, std::uint8_t* out, const QuantizeConstants& c);
void dispatch_quantize(const double* in, std::size_t n, std::uint16_t* out, const QuantizeConstants& c);
void dispatch_quantize(const double* in, std::size_t n, std::uint32_t* out, const QuantizeConstants& c);
// `stream`: non-temporal stores (WithStreamingStores in simd/stream-inl.h).
void dispatch_dequantize(const std::uint8_t* in, std::size_t n, float* out, const DequantizeConstants& c,
                         bool stream = false);
void dispatch_dequantize(const std::uint16_t* in, std::size_t n, float* out, const DequantizeConstants& c,
                         bool stream = false);
void dispatch_dequantize(const std::uint32_t* in, std::size_t n, float* out, const DequantizeConstants& c,
                         bool stream = false);
void dispatch_round_trip(const float* in, std::size_t n, float* out, const QuantizeConstants& q,
                         const DequantizeConstants& d, bool stream);

// The generic algorithm on this thread, without the hardware shortcuts: the vector
// algorithm through the dispatched entry, fp32 copied, the formats and modes outside
// the vector algorithm by the scalar loop (prepared_conversions.cpp; instances for
// every code type). `stream`: as for dispatch_dequantize.
template <class Code>
void quantize_generic_impl(const float* in, std::size_t n, Code* out, const Format& format, Rounding mode,
                           Overflow policy, const RandomStream& random);
template <class Code>
void dequantize_generic_impl(const Code* in, std::size_t n, float* out, const Format& format, bool stream = false);

// Whether an output of n floats takes non-temporal stores (simd/stream_store.hpp).
inline bool streams(std::size_t n) { return stream_output(n * sizeof(float)); }

// The random bits of element i of a call whose first element has counter random.offset.
inline std::uint32_t element_bits(Rounding mode, const RandomStream& random, std::size_t i) {
  return is_stochastic(mode) ? random_bits(random, i) : 0;
}

inline bool is_fp32(const Format& format) { return format == binary32_format; }

// fp32 -> fp32 (quantize from float to fp32 codes, or dequantize fp32 codes to float):
// every finite float is exact, so its bits are copied; only infinities and NaNs
// (exponent field all ones) ask round_to_format(), whose rules for them (a NaN made
// quiet, infinity saturated under Overflow::saturate) are stated nowhere else. In
// blocks: a copy without branches that notes whether the block holds such a lane, then
// the routine on those lanes alone. `in` may be `out`'s memory: a lane read again holds
// its own copied bits.
template <class In, class Out>
void copy_fp32(const In* in, std::size_t n, Out* out, Rounding mode, Overflow policy) {
  static_assert(sizeof(In) == 4 && sizeof(Out) == 4);
  constexpr std::size_t block = 1024;
  constexpr std::uint32_t exponent_all_ones = 0x7F800000u;
  const auto bits = [&](std::size_t i) {
    std::uint32_t u;
    std::memcpy(&u, in + i, 4);
    return u;
  };
  const auto store = [&](std::size_t i, std::uint32_t u) { std::memcpy(out + i, &u, 4); };
  for (std::size_t begin = 0; begin < n; begin += block) {
    const std::size_t end = n - begin < block ? n : begin + block;
    std::uint32_t special = 0;
    for (std::size_t i = begin; i < end; ++i) {
      const std::uint32_t u = bits(i);
      special |= (u & exponent_all_ones) == exponent_all_ones;
      store(i, u);
    }
    if (special == 0) continue;
    for (std::size_t i = begin; i < end; ++i) {
      const std::uint32_t u = bits(i);
      if ((u & exponent_all_ones) == exponent_all_ones)
        store(i, std::uint32_t(round_to_format(decode(u, binary32_format), binary32_format, mode, policy)));
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
  if constexpr (sizeof(Code) == 4)
    if (is_fp32(format)) return copy_fp32(in, n, out, mode, policy);
  if (!quantize_supported(format, mode)) return quantize_scalar_loop(in, n, out, format, mode, policy, random);
  quantize_vector(convert, in, n, out, quantize_constants(format, mode, policy), mode, random);
}

// Whether the fused per-target loop can serve: the vector algorithm covers both
// directions (fp32 is a copy, and the scalar loop serves the formats it does not).
inline bool fused_loop_covers(const Format& format, Rounding mode) {
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

// Elsewhere (fp32, formats outside the vector algorithm, the shortcuts, arrays in
// cache): quantize then dequantize through a code buffer on the stack, a
// cache-resident piece at a time, by `quantize_piece` and `dequantize_piece` (the
// generic conversions, or with the hardware shortcuts the public ones take).
template <class Code, class QuantizePiece, class DequantizePiece>
void round_trip_pieces(QuantizePiece quantize_piece, DequantizePiece dequantize_piece, const float* in,
                       std::size_t n, float* out, const RandomStream& random) {
  constexpr std::size_t block = 2048;
  Code codes[block];
  for (std::size_t i = 0; i < n; i += block) {
    const std::size_t count = n - i < block ? n - i : block;
    quantize_piece(in + i, count, codes, advanced(random, i));
    dequantize_piece(codes, count, out + i);
  }
}

// Below this many values a thread's share stays in cache, where the fused loop gains
// nothing (the work is the same) and runs slower for the 4- and 6-bit formats, whose two
// sets of constants no longer fit the registers (bench_simd_conversion: round_trip
// against quantize_then_dequantize); above it the fused loop saves the code array's
// traffic. The same bits either way.
constexpr std::size_t kFusedRoundTripMinimum = std::size_t{1} << 16;

}  // namespace softfloat::simd::detail
