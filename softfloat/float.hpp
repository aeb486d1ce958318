// Float<E, M, Bias, HasInf, Specials, Signed, HasZero>: a typed value of one format.
// The class is a thin wrapper over its constexpr Format: every conversion gives the
// bits of decoding the argument exactly and rounding once with round_to_format(); the
// common ones get there by the format-specialised paths of softfloat/fast_conversion.hpp.
#pragma once

#include <bit>
#include <concepts>
#include <cstdint>
#include <string>
#include <type_traits>

#include "softfloat/exact_value.hpp"
#include "softfloat/fast_conversion.hpp"
#include "softfloat/format.hpp"
#include "softfloat/round_to_format.hpp"

namespace softfloat {

namespace detail {
// The smallest unsigned type that holds `bits` bits.
template <int bits>
using storage_for = std::conditional_t<
    (bits <= 8), std::uint8_t,
    std::conditional_t<(bits <= 16), std::uint16_t,
                       std::conditional_t<(bits <= 32), std::uint32_t, std::uint64_t>>>;
}  // namespace detail

template <int E, int M, int Bias = (1 << (E - 1)) - 1, bool HasInf = true,
          Specials S = HasInf ? Specials::ieee : Specials::fn, bool Signed = true, bool HasZero = true>
class Float {
 public:
  static constexpr Format format{E, M, Bias, S, Signed, HasZero};

  // One assertion per reason, so the compiler names the problem.
  static_assert(format.problem() != FormatProblem::exponent_bits_out_of_range,
                "softfloat::Float: exponent bits E must be between 1 and 11");
  static_assert(format.problem() != FormatProblem::mantissa_bits_out_of_range,
                "softfloat::Float: mantissa bits M must be between 0 and 52");
  static_assert(format.problem() != FormatProblem::too_many_bits,
                "softfloat::Float: sign, exponent and mantissa must fit in 64 bits");
  static_assert(format.problem() != FormatProblem::bias_out_of_range,
                "softfloat::Float: the bias must lie strictly between -2^20 and 2^20");
  static_assert(format.problem() != FormatProblem::ieee_needs_mantissa,
                "softfloat::Float: an IEEE-style format (HasInf = true) needs M >= 1 to tell "
                "infinity from NaN; use Specials::fn or Specials::finite for M = 0");
  static_assert(format.problem() != FormatProblem::ieee_needs_two_exponent_bits,
                "softfloat::Float: an IEEE-style format needs E >= 2; with E = 1 no normal "
                "number is left between zero/subnormals and infinity/NaN");
  static_assert(format.problem() != FormatProblem::nan_at_negative_zero_needs_sign,
                "softfloat::Float: fnuz and P3109 formats keep NaN at the negative-zero code "
                "and need a sign bit");
  static_assert(format.problem() != FormatProblem::no_finite_nonzero_value,
                "softfloat::Float: the special values take every nonzero code, so the format "
                "has no finite nonzero value");
  static_assert(HasInf == format.has_infinity(),
                "softfloat::Float: HasInf contradicts the Specials convention (ieee and p3109 "
                "have infinities; fn, finite and fnuz do not)");

  using storage_type = detail::storage_for<format.total_bits()>;

  constexpr Float() = default;  // +0 (or the smallest value of a format without zero)

  // Round to nearest, ties to even, straight from the argument's own bits: branch-free
  // integer paths specialised for the format where it allows one, otherwise floats
  // normal in the format by a few integer operations and the rest by round_to_format
  // (softfloat/fast_conversion.hpp).
  explicit constexpr Float(float x) : bits_(from_float(x)) {}
  explicit constexpr Float(double x) : bits_(from_double(x)) {}
  template <std::integral Int>
    requires(!std::same_as<Int, bool>)
  explicit constexpr Float(Int x) : bits_(round_from(decode(x))) {}
  // Between two formats: decode exactly, round once.
  template <int E2, int M2, int B2, bool I2, Specials S2, bool G2, bool Z2>
  explicit constexpr Float(Float<E2, M2, B2, I2, S2, G2, Z2> x)
      : bits_(round_from(decode(x.bits(), x.format))) {}

  // The same sources in any rounding direction and overflow policy; `random` feeds the
  // stochastic modes (random_bits(seed, i) in softfloat/random_bits.hpp gives
  // reproducible bits, the ones the array functions use for element i).
  explicit constexpr Float(float x, Rounding mode, Overflow policy = Overflow::standard, std::uint32_t random = 0)
      : bits_(round_from(decode(x), mode, policy, random)) {}
  explicit constexpr Float(double x, Rounding mode, Overflow policy = Overflow::standard, std::uint32_t random = 0)
      : bits_(round_from(decode(x), mode, policy, random)) {}
  template <std::integral Int>
    requires(!std::same_as<Int, bool>)
  explicit constexpr Float(Int x, Rounding mode, Overflow policy = Overflow::standard, std::uint32_t random = 0)
      : bits_(round_from(decode(x), mode, policy, random)) {}
  template <int E2, int M2, int B2, bool I2, Specials S2, bool G2, bool Z2>
  explicit constexpr Float(Float<E2, M2, B2, I2, S2, G2, Z2> x, Rounding mode, Overflow policy = Overflow::standard,
                           std::uint32_t random = 0)
      : bits_(round_from(decode(x.bits(), x.format), mode, policy, random)) {}

  // Any rounding direction and overflow policy, from any exactly decoded value.
  static constexpr Float from_exact(const ExactValue& value, Rounding mode = Rounding::nearest_even,
                                    Overflow policy = Overflow::standard, std::uint32_t random = 0) {
    return from_bits(storage_type(round_to_format(value, format, mode, policy, random)));
  }
  static constexpr Float from_bits(storage_type bits) {
    Float value;
    value.bits_ = storage_type(bits & mask());
    return value;
  }
  constexpr storage_type bits() const { return bits_; }

  // Exact whenever the value is representable in the target; otherwise rounded to
  // nearest-even by the same routine (only formats wider than the target need it).
  // Formats of up to 8 bits read a table of round_to_format's results; wider IEEE
  // formats decode without branches where their values are normal floats (or share
  // fp32's exponent field).
  explicit constexpr operator float() const {
    if constexpr (format.total_bits() <= 8) {
      return std::bit_cast<float>(detail::decode_table_of<format>[bits_]);
    } else if constexpr (kDecode.usable) {
      return std::bit_cast<float>(detail::decode_branch_free(kDecode, std::uint32_t(bits_)));
    } else if constexpr (kFastPath.usable) {
      std::uint32_t bits = 0;
      if (detail::fast_decode(kFastPath, std::uint32_t(bits_), bits)) return std::bit_cast<float>(bits);
    }
    return std::bit_cast<float>(std::uint32_t(round_to_format(decode(bits_, format), binary32_format)));
  }
  explicit constexpr operator double() const {
    return std::bit_cast<double>(round_to_format(decode(bits_, format), binary64_format));
  }

  // Fields.
  constexpr bool sign() const { return format.is_negative(bits_); }
  constexpr std::uint64_t biased_exponent() const { return format.magnitude(bits_) >> M; }
  constexpr std::uint64_t mantissa() const { return bits_ & format.mantissa_mask(); }
  // "1 10000001 1010000" for bf16 -6.5: sign, exponent and mantissa fields.
  std::string bit_string() const {
    std::string text;
    auto append = [&](std::uint64_t field, int width) {
      if (width == 0) return;
      if (!text.empty()) text += ' ';
      for (int i = width - 1; i >= 0; --i) text += ((field >> i) & 1) ? '1' : '0';
    };
    append(sign() ? 1 : 0, Signed ? 1 : 0);
    append(biased_exponent(), E);
    append(mantissa(), M);
    return text;
  }

  // Limits, all constexpr.
  static constexpr Float max() { return from_bits(storage_type(format.max_finite_magnitude())); }
  static constexpr Float lowest() {
    return Signed ? from_bits(storage_type(format.sign_bit() | format.max_finite_magnitude())) : from_bits(0);
  }
  // The smallest normal: exponent field 1 (field 0 in a format without zero).
  static constexpr Float min_normal() { return from_bits(storage_type(HasZero ? std::uint64_t{1} << M : 0)); }
  // The smallest positive value: code 1 where there are subnormals.
  static constexpr Float min_subnormal() { return format.has_subnormals() ? from_bits(1) : min_normal(); }
  // 2^-M, the gap between 1 and the next value.
  static constexpr Float epsilon() { return from_exact(ExactValue{ValueClass::finite, false, 1, -M}); }
  static constexpr Float infinity()
    requires(HasInf)
  {
    return from_bits(storage_type(format.infinity_magnitude()));
  }
  static constexpr Float quiet_NaN()
    requires(S != Specials::finite)
  {
    return from_bits(storage_type(format.nan_code(false)));
  }

  friend constexpr bool same_bits(Float a, Float b) { return a.bits_ == b.bits_; }

 private:
  static constexpr detail::FastFloatPath kFastPath = detail::fast_float_path(format);
  static constexpr detail::SameExponentEncode kSameExponent = detail::same_exponent_encode(format);
  static constexpr detail::NearestEncode<float> kFromFloat = detail::nearest_encode<float>(format);
  static constexpr detail::NearestEncode<double> kFromDouble = detail::nearest_encode<double>(format);
  static constexpr detail::BranchFreeDecode kDecode = detail::branch_free_decode(format);

  static constexpr storage_type from_float(float x) {
    const auto u = std::bit_cast<std::uint32_t>(x);
    if constexpr (kSameExponent.usable) {
      return storage_type(detail::encode_same_exponent(kSameExponent, u));
    } else if constexpr (kFromFloat.usable) {
      return storage_type(detail::encode_nearest(kFromFloat, u));
    } else if constexpr (kFastPath.usable) {
      std::uint32_t code = 0;
      if (detail::fast_encode(kFastPath, u, code)) return storage_type(code);
    }
    return round_from(decode(x));
  }
  static constexpr storage_type from_double(double x) {
    if constexpr (kFromDouble.usable) {
      const auto u = std::bit_cast<std::uint64_t>(x);
      std::uint64_t code = 0;
      if (detail::encode_normal(kFromDouble, u, code)) return storage_type(code);
      return storage_type(detail::encode_nearest(kFromDouble, u));
    } else {
      return round_from(decode(x));
    }
  }
  static constexpr std::uint64_t mask() {
    return format.total_bits() == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << format.total_bits()) - 1;
  }
  static constexpr storage_type round_from(const ExactValue& value, Rounding mode = Rounding::nearest_even,
                                           Overflow policy = Overflow::standard, std::uint32_t random = 0) {
    return storage_type(round_to_format(value, format, mode, policy, random));
  }
  storage_type bits_ = storage_type(format.zero_code(false));
};

template <class T>
struct is_float_type : std::false_type {};
template <int E, int M, int B, bool I, Specials S, bool G, bool Z>
struct is_float_type<Float<E, M, B, I, S, G, Z>> : std::true_type {};
template <class T>
inline constexpr bool is_float_type_v = is_float_type<T>::value;
template <class T>
concept FloatType = is_float_type_v<T>;

// The runtime description of a Float type.
template <class F>
  requires FloatType<F>
constexpr Format format_of() {
  return F::format;
}

}  // namespace softfloat
