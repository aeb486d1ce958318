// Float's scalar conversions without the general routine, each giving
// round_to_format()'s bits (all 2^32 floats and every code are checked against the
// MPFR-verified table in verify/exhaustive, doubles in verify/conversion). The
// constants follow from the format's fields at compile time; a format a path does not
// fit goes to the next one, and finally to round_to_format():
//   float -> code: encode_same_exponent (fp32's exponent field: bf16, tf32) or
//     encode_nearest (every input, by selects a caller's loop can vectorise), else
//     fast_encode for floats normal in the format;
//   double -> code: encode_normal, then encode_nearest;
//   code -> float: a table of round_to_format's results for formats of up to 8 bits,
//     decode_branch_free for wider IEEE formats, else fast_decode for normal codes.
// The base formulas are the SIMD fast path's for one value (simd/quantize_floats-inl.h has
// the derivation); fast_float_path applies to formats whose normal range is inside
// fp32's, with 1 <= M <= 22 and a zero code:
//
//   encode: a = |x| bits, shift = 23 - M, lsb = (a >> shift) & 1,
//           code = (a + lsb + 2^(shift - 1) - 1 + ((bias - 127) << 23)) >> shift  (mod 2^32)
//   decode: bits = (g << shift) + ((127 - bias) << 23) for the magnitude g of a normal code
#pragma once

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "softfloat/exact_value.hpp"
#include "softfloat/format.hpp"
#include "softfloat/round_to_format.hpp"

namespace softfloat::detail {

struct FastFloatPath {
  bool usable = false;
  std::uint32_t abs_mask = 0;     // 0x7FFFFFFF, or all ones for unsigned formats (negatives fail)
  std::uint32_t low = 0;          // float bits of the smallest normal: a - low < span takes the path
  std::uint32_t span = 0;         // up to 2^max_exponent, below which no rounding overflows
  std::uint32_t shift = 0;        // 23 - M
  std::uint32_t encode_add = 0;   // 2^(shift - 1) - 1 + ((bias - 127) << 23)
  std::uint32_t decode_add = 0;   // (127 - bias) << 23
  std::uint32_t sign_shift = 0;   // 31 - (E + M): the float's sign to the code's sign bit
  std::uint32_t sign_bit = 0;     // 0 for unsigned formats
  std::uint32_t magnitude_mask = 0;
  std::uint32_t normal_low = 0;   // magnitude of the smallest normal code (1 << M)
  std::uint32_t normal_span = 0;  // normal codes: g - normal_low < normal_span
};

constexpr FastFloatPath fast_float_path(const Format& f) {
  FastFloatPath p;
  const int m = f.mantissa_bits;
  const int low_field = f.min_normal_exponent() + 127, high_field = f.max_exponent() + 127;
  if (!f.valid() || !f.has_zero || m < 1 || m > 22 || f.total_bits() > 32 || low_field < 1 || high_field > 254 ||
      high_field <= low_field)
    return p;
  p.usable = true;
  p.abs_mask = f.is_signed ? 0x7FFFFFFFu : 0xFFFFFFFFu;
  p.low = std::uint32_t(low_field) << 23;
  p.span = (std::uint32_t(high_field) << 23) - p.low;
  p.shift = std::uint32_t(23 - m);
  p.encode_add = ((std::uint32_t{1} << (p.shift - 1)) - 1) + (std::uint32_t(f.bias - 127) << 23);
  p.decode_add = std::uint32_t(127 - f.bias) << 23;
  p.sign_shift = f.is_signed ? std::uint32_t(31 - (f.exponent_bits + m)) : 0;
  p.sign_bit = std::uint32_t(f.sign_bit());
  p.magnitude_mask = std::uint32_t(f.magnitude_mask());
  p.normal_low = std::uint32_t{1} << m;
  p.normal_span = std::uint32_t(f.max_finite_magnitude()) + 1 - p.normal_low;
  return p;
}

// The code of float bits u if the fast path takes them (true), else false.
constexpr bool fast_encode(const FastFloatPath& p, std::uint32_t u, std::uint32_t& code) {
  const std::uint32_t a = u & p.abs_mask;
  if (a - p.low >= p.span) return false;
  const std::uint32_t magnitude = (a + ((a >> p.shift) & 1u) + p.encode_add) >> p.shift;
  code = magnitude | ((u >> p.sign_shift) & p.sign_bit);
  return true;
}

// The float bits of `code` if it is normal (true), else false.
constexpr bool fast_decode(const FastFloatPath& p, std::uint32_t code, std::uint32_t& bits) {
  const std::uint32_t g = code & p.magnitude_mask;
  if (g - p.normal_low >= p.normal_span) return false;
  bits = ((g << p.shift) + p.decode_add) | ((code & p.sign_bit) << p.sign_shift);
  return true;
}

// ---------------------------------------------------------------------------
// Branch-free scalar paths. Every select below is a `pick` of two values, so a
// caller's loop over an array compiles to straight-line code that the compiler can
// vectorise; every constant is computed at compile time from the format, and the
// results that encode a convention (overflow, NaN, -0) are taken from
// round_to_format() itself, so no rule is restated here.

// `yes` where `condition` holds, else `no`, by masks: written as a conditional, some
// selects reach the optimiser as branches, which stop a caller's loop from vectorising.
// The paths are forced inline for the same reason: a call in the loop stops it too.
template <class Word>
[[gnu::always_inline]] constexpr Word pick(bool condition, Word yes, Word no) {
  return no ^ ((yes ^ no) & (Word{0} - Word{condition}));
}

// The source formats of the encoders: float and double, their bits as one word.
template <class Source>
struct SourceFloat;
template <>
struct SourceFloat<float> {
  using Word = std::uint32_t;
  using Int = std::int32_t;  // holds every subnormal code (M <= 22)
  static constexpr Format format = binary32_format;
};
template <>
struct SourceFloat<double> {
  using Word = std::uint64_t;
  using Int = std::int64_t;  // holds every subnormal code (M <= 51)
  static constexpr Format format = binary64_format;
};

// The code round_to_format gives (nearest even) for the source value with bits `w`.
template <class Source>
constexpr std::uint64_t round_source(typename SourceFloat<Source>::Word w, const Format& f) {
  return round_to_format(decode(std::bit_cast<Source>(w)), f);
}

// Float or double -> code, nearest even, for every input. Each case below gives the
// code shifted left by shift = P - M (P = 23 or 52 source mantissa bits; any bits
// below 2^shift are ignored), and one shift right ends them all: the selects work on
// full words, and a loop narrows its results once. By the magnitude bits a:
//   normal:    a in [2^emin, overflow): the integer formula of the header comment with
//              the source's widths, before its final shift;
//   subnormal: a below 2^emin: z = min(|x|, 2^emin) * 2^(M - emin) is |x| in units of
//              the subnormal quantum 2^(emin - M); n = trunc(z), and the code is n, plus
//              one when the fraction z - n is above 1/2 or is 1/2 with n odd. Every
//              operation is exact (a multiplication by a power of two whose result is
//              normal; trunc; an integer below 2^M back to floating point; the
//              difference of z and its integer part, whose sign is dropped as a zero
//              difference is -0 when rounding downward), so the result does not depend
//              on the rounding mode. When M - emin <= bias_source - 2, every source
//              subnormal gives z < 1/2 and code 0 whether or not it is flushed, and a z
//              that underflows also lies below 1/2: flush-to-zero and
//              denormals-are-zero do not change the result either;
//   sign:      a negative input adds the sign bit, except that a zero magnitude takes
//              -0's code (round_to_format(-0): the sign bit, or 0 without negative zero);
//   overflow:  a from `overflow` (the smallest magnitude whose rounding is round(inf),
//              found by bisection with round_to_format) up to infinity: round(+-inf);
//   NaN:       a above infinity: round_to_format's code for the quiet NaN of that sign,
//              with the payload bits the format keeps (a & payload_mask, the mask
//              shifted: 0 for formats whose NaN carries none).
template <class Source>
struct NearestEncode {
  using Word = typename SourceFloat<Source>::Word;
  bool usable = false;
  Word shift = 0;
  Word encode_add = 0;
  Word low = 0;       // bits of 2^emin
  Word overflow = 0;  // bits of the smallest magnitude that rounds like infinity
  Word infinity = 0;  // the source's infinity: larger magnitudes are NaNs
  Source subnormal_scale = 0;  // 2^(M - emin)
  // Codes, shifted left by `shift` like every result before the last step.
  Word unit = 0;  // code 1
  Word sign_bit = 0, negative_zero = 0;
  Word overflow_positive = 0, overflow_negative = 0;
  Word nan_positive = 0, nan_negative = 0, payload_mask = 0;
  bool overflow_by_clamp = false, sign_last = false;  // see the end of nearest_encode
};

template <class Source>
constexpr NearestEncode<Source> nearest_encode(const Format& f) {
  using Word = typename SourceFloat<Source>::Word;
  constexpr Format s = SourceFloat<Source>::format;
  NearestEncode<Source> p;
  const int m = f.mantissa_bits, emin = f.min_normal_exponent();
  if (!f.valid() || !f.is_signed || !f.has_zero || m < 1 || m >= s.mantissa_bits || emin < s.min_normal_exponent() ||
      f.max_exponent() > s.max_exponent() || m - emin > s.bias - 2)
    return p;
  p.usable = true;
  const auto word = [](int field) { return Word(field) << s.mantissa_bits; };
  p.shift = Word(s.mantissa_bits - m);
  p.encode_add = ((Word{1} << (p.shift - 1)) - 1) + (Word(f.bias - s.bias) << s.mantissa_bits);
  p.low = word(emin + s.bias);
  p.infinity = word(2 * s.bias + 1);
  p.subnormal_scale = std::bit_cast<Source>(word(m - emin + s.bias));
  const auto code = [&](Word source_bits) { return Word(round_source<Source>(source_bits, f)) << p.shift; };
  p.unit = Word{1} << p.shift;
  p.sign_bit = Word(f.sign_bit()) << p.shift;
  const Word negative = Word{1} << (s.total_bits() - 1), quiet_nan = p.infinity | (Word{1} << (s.mantissa_bits - 1));
  p.negative_zero = code(negative);
  p.overflow_positive = code(p.infinity);
  p.overflow_negative = code(negative | p.infinity);
  p.nan_positive = code(quiet_nan);
  p.nan_negative = code(negative | quiet_nan);
  p.payload_mask = code(negative - 1) ^ p.nan_positive;  // the NaN with every payload bit set
  // Rounding is monotone, so the magnitudes that round like infinity form one range up
  // to it: the bisection keeps round(lo) different and round(hi) equal.
  Word lo = 0, hi = p.infinity;
  while (hi - lo > 1) {
    const Word mid = lo + (hi - lo) / 2;
    (code(mid) == p.overflow_positive ? hi : lo) = mid;
  }
  p.overflow = hi;
  // Two shortcuts where round_to_format's codes allow them: the normal formula at the
  // threshold itself gives the overflow code (it rounds up into infinity, the NaN or
  // the saturated max), so clamping a there replaces a select; and the negative
  // results are the positive ones with the sign bit, so the sign goes on last.
  p.overflow_by_clamp = ((p.overflow + ((p.overflow >> p.shift) & 1u) + p.encode_add) >> p.shift) ==
                        p.overflow_positive >> p.shift;
  p.sign_last = p.negative_zero == p.sign_bit && p.overflow_negative == (p.overflow_positive | p.sign_bit) &&
                p.nan_negative == (p.nan_positive | p.sign_bit);
  return p;
}

template <class Source>
[[gnu::always_inline]] constexpr typename SourceFloat<Source>::Word encode_nearest(
    const NearestEncode<Source>& p, typename SourceFloat<Source>::Word u) {
  using Word = typename SourceFloat<Source>::Word;
  using Signed = std::make_signed_t<Word>;
  using Int = typename SourceFloat<Source>::Int;
  constexpr int top = SourceFloat<Source>::format.total_bits() - 1;
  const Word a = u & ((Word{1} << top) - 1);
  // a < 2^top: compared as signed words, which SSE2 has.
  const auto below = [a](Word limit) { return Signed(a) < Signed(limit); };
  const bool negative = (u >> top) != 0;
  const Word c = p.overflow_by_clamp ? pick(below(p.overflow), a, p.overflow) : a;
  const Word normal = c + ((c >> p.shift) & 1u) + p.encode_add;
  // Clamped as bits (a NaN too takes the limit), so that z <= 2^M and trunc is defined.
  const Source z = std::bit_cast<Source>(pick(below(p.low), a, p.low)) * p.subnormal_scale;
  const Int n = static_cast<Int>(z);
  // Up when the fraction exceeds 1/2, or equals it with n odd. The fraction is 0 or a
  // normal number below 1, whose bits order as its values, so with h the bits of 1/2
  // the test is bits + (n & 1) > h: the sign bit of h - bits - (n & 1). Its sign bit is
  // cleared: a zero difference is -0 when rounding downward.
  constexpr Word half = std::bit_cast<Word>(Source(0.5));
  const Word fraction = std::bit_cast<Word>(z - static_cast<Source>(n)) & ((Word{1} << top) - 1);
  const Word subnormal = (Word(n) + ((half - fraction - (Word(n) & 1u)) >> top)) << p.shift;
  Word result = pick(below(p.low), subnormal, normal);
  if (!p.overflow_by_clamp) result = pick(below(p.overflow), result, p.overflow_positive);
  const Word sign = pick(negative, p.sign_bit, Word{0});
  if (p.sign_last) {
    const Word nan = p.nan_positive | (a & p.payload_mask);
    return (pick(below(p.infinity + 1), result, nan) | sign) >> p.shift;
  }
  result |= pick(result >= p.unit, sign, pick(negative, p.negative_zero, Word{0}));
  result = pick(below(p.overflow), result, pick(negative, p.overflow_negative, p.overflow_positive));
  const Word nan = pick(negative, p.nan_negative, p.nan_positive) | (a & p.payload_mask);
  return pick(below(p.infinity + 1), result, nan) >> p.shift;
}

// The normal case of encode_nearest alone, for callers that branch (true) or fall back
// to encode_nearest (false): for double, whose loops the baseline x86-64 instruction set
// cannot vectorise (no 64-bit compares), a predicted branch costs less than the selects.
template <class Source>
constexpr bool encode_normal(const NearestEncode<Source>& p, typename SourceFloat<Source>::Word u,
                             typename SourceFloat<Source>::Word& code) {
  using Word = typename SourceFloat<Source>::Word;
  constexpr int top = SourceFloat<Source>::format.total_bits() - 1;
  const Word a = u & ((Word{1} << top) - 1);
  if (a - p.low >= p.overflow - p.low) return false;
  code = ((a + ((a >> p.shift) & 1u) + p.encode_add) | ((u >> top) != 0 ? p.sign_bit : 0)) >> p.shift;
  return true;
}

// Float -> code for IEEE formats with fp32's exponent field (E = 8, bias 127: bf16,
// tf32). Their binades, subnormal quantum and overflow threshold are fp32's, so the
// normal formula with encode_add = 2^(shift - 1) - 1 rounds every non-NaN float,
// subnormals included, and the largest finite floats carry into the infinity code;
// applied to the signed bits it keeps the sign, as no carry reaches bit 31
// (|u| + 2^(shift - 1) <= 0x7F800000 + 2^22). A NaN keeps its sign and top payload
// bits with the quiet bit set (round_to_format's NaN rule): (u | quiet) >> shift. The
// select comes before the one shift, as in encode_nearest.
struct SameExponentEncode {
  bool usable = false;
  std::uint32_t shift = 0, round_add = 0, quiet = 0;  // quiet: the code's quiet bit, shifted
};

constexpr SameExponentEncode same_exponent_encode(const Format& f) {
  SameExponentEncode p;
  if (!f.valid() || f.exponent_bits != 8 || f.bias != 127 || f.specials != Specials::ieee || !f.is_signed ||
      f.mantissa_bits < 1 || f.mantissa_bits > 22)
    return p;
  p.usable = true;
  p.shift = std::uint32_t(23 - f.mantissa_bits);
  p.round_add = (std::uint32_t{1} << (p.shift - 1)) - 1;
  p.quiet = std::uint32_t{1} << 22;
  return p;
}

[[gnu::always_inline]] constexpr std::uint32_t encode_same_exponent(const SameExponentEncode& p, std::uint32_t u) {
  const std::uint32_t rounded = u + ((u >> p.shift) & 1u) + p.round_add;
  // |u| > infinity, compared as signed words (which SSE2 has): |u| < 2^31.
  return pick(std::int32_t(u & 0x7FFF'FFFFu) > 0x7F80'0000, u | p.quiet, rounded) >> p.shift;
}

// Code -> float for IEEE formats of more than 8 bits whose values are all normal
// floats or share fp32's exponent field (fp16, bf16, tf32). With g the magnitude:
//   fp32's exponent field (E = 8, bias 127): the code shifted by shift = 23 - M is the
//     float, sign, subnormals and infinity included (the sign moves by 31 - (E + M) =
//     shift too); a NaN also gets the quiet bit (round_to_format keeps the payload's
//     top bits and sets it);
//   otherwise, normal codes: (g << shift) + decode_add, as in the header comment;
//   subnormal codes g < 2^M: the value g * 2^(emin - M) as float(g) * 2^(emin - M).
//     float(g) is exact (g < 2^23) and so is the product, a power-of-two multiple that
//     is 0 or a normal float when emin - M >= -126, so neither the rounding mode nor
//     flush-to-zero / denormals-are-zero can change it;
//   infinity and NaN (exponent field all ones): the normal formula's bits with the
//     float's exponent field set (decode_add only moves the exponent), and the quiet
//     bit for a NaN.
struct BranchFreeDecode {
  bool usable = false;
  bool same_exponent = false;
  std::uint32_t magnitude_mask = 0, sign_bit = 0, sign_shift = 0, shift = 0, decode_add = 0;
  std::uint32_t normal_low = 0, infinity_magnitude = 0;
  float subnormal_scale = 0;  // 2^(emin - M)
};

constexpr BranchFreeDecode branch_free_decode(const Format& f) {
  BranchFreeDecode p;
  const FastFloatPath fast = fast_float_path(f);
  const int quantum = f.min_normal_exponent() - f.mantissa_bits;
  p.same_exponent = f.exponent_bits == 8 && f.bias == 127;
  if (!fast.usable || f.specials != Specials::ieee || !f.is_signed || (!p.same_exponent && quantum < -126))
    return p;
  p.usable = true;
  p.magnitude_mask = fast.magnitude_mask;
  p.sign_bit = fast.sign_bit;
  p.sign_shift = fast.sign_shift;
  p.shift = fast.shift;
  p.decode_add = fast.decode_add;
  p.normal_low = fast.normal_low;
  p.infinity_magnitude = std::uint32_t(f.infinity_magnitude());
  if (!p.same_exponent) p.subnormal_scale = std::bit_cast<float>(std::uint32_t(quantum + 127) << 23);
  return p;
}

[[gnu::always_inline]] constexpr std::uint32_t decode_branch_free(const BranchFreeDecode& p, std::uint32_t code) {
  // Magnitudes are below 2^31: compared as signed words, which SSE2 has.
  const std::int32_t g = std::int32_t(code & p.magnitude_mask), infinity = std::int32_t(p.infinity_magnitude);
  const std::uint32_t quiet = pick(g > infinity, 0x0040'0000u, 0u);
  if (p.same_exponent) return (code << p.shift) | quiet;
  std::uint32_t bits = (std::uint32_t(g) << p.shift) + p.decode_add;
  bits = pick(g < std::int32_t(p.normal_low), std::bit_cast<std::uint32_t>(float(g) * p.subnormal_scale), bits);
  bits |= pick(g >= infinity, 0x7F80'0000u, 0u) | quiet;
  return bits | ((code & p.sign_bit) << p.sign_shift);
}

// Code -> float bits for every code of a format of at most 8 bits, each entry from
// round_to_format(decode(code), binary32): a table of the general routine's own
// results, built at compile time.
template <std::size_t N>
constexpr std::array<std::uint32_t, N> decode_table(const Format& f) {
  std::array<std::uint32_t, N> table{};
  for (std::size_t code = 0; code < N; ++code)
    table[code] = std::uint32_t(round_to_format(decode(code, f), binary32_format));
  return table;
}
template <Format F>
inline constexpr std::array<std::uint32_t, (std::size_t{1} << F.total_bits())> decode_table_of =
    decode_table<(std::size_t{1} << F.total_bits())>(F);

}  // namespace softfloat::detail
