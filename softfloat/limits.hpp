// std::numeric_limits for every Float type, derived from its Format.
#pragma once

#include <limits>

#include "softfloat/float.hpp"

template <int E, int M, int B, bool I, softfloat::Specials S, bool G, bool Z>
class std::numeric_limits<softfloat::Float<E, M, B, I, S, G, Z>> {
  using F = softfloat::Float<E, M, B, I, S, G, Z>;
  static constexpr softfloat::Format format = F::format;

 public:
  static constexpr bool is_specialized = true;
  static constexpr bool is_signed = G;
  static constexpr bool is_integer = false;
  static constexpr bool is_exact = false;
  static constexpr bool has_infinity = format.has_infinity();
  static constexpr bool has_quiet_NaN = format.has_nan();
  static constexpr bool has_signaling_NaN = false;
  static constexpr std::float_denorm_style has_denorm =
      format.has_subnormals() ? std::denorm_present : std::denorm_absent;
  static constexpr bool has_denorm_loss = false;
  static constexpr std::float_round_style round_style = std::round_to_nearest;
  static constexpr bool is_iec559 = S == softfloat::Specials::ieee && G && Z;
  static constexpr bool is_bounded = true;
  static constexpr bool is_modulo = false;
  static constexpr int radix = 2;
  static constexpr int digits = M + 1;
  // floor((digits - 1) * log10 2) and ceil(1 + digits * log10 2), with log10 2 ~ 0.30103;
  // digits * log10 2 is never an integer, so 2 + floor(...) is the ceiling.
  static constexpr int digits10 = (digits - 1) * 30103 / 100000;
  static constexpr int max_digits10 = 2 + digits * 30103 / 100000;
  // C's convention: normal numbers are 0.1xxx * 2^e with min_exponent <= e <= max_exponent.
  static constexpr int min_exponent = format.min_normal_exponent() + 1;
  static constexpr int max_exponent = format.max_exponent() + 1;
  // ceil(log10(min())) and floor(log10(max())) with log10 2 ~ 0.30103 (integer
  // division truncates toward zero: a ceiling below zero, a floor above it).
  static constexpr int min_exponent10 = (min_exponent - 1) * 30103 / 100000;
  static constexpr int max_exponent10 = max_exponent * 30103 / 100000;
  static constexpr bool traps = false;
  static constexpr bool tinyness_before = false;

  static constexpr F min() noexcept { return F::min_normal(); }
  static constexpr F max() noexcept { return F::max(); }
  static constexpr F lowest() noexcept { return F::lowest(); }
  static constexpr F epsilon() noexcept { return F::epsilon(); }
  static constexpr F round_error() noexcept { return F(0.5); }
  static constexpr F infinity() noexcept {
    if constexpr (format.has_infinity()) return F::infinity();
    else return F();
  }
  static constexpr F quiet_NaN() noexcept {
    if constexpr (format.has_nan()) return F::quiet_NaN();
    else return F();
  }
  static constexpr F signaling_NaN() noexcept { return quiet_NaN(); }
  static constexpr F denorm_min() noexcept { return F::min_subnormal(); }
};
