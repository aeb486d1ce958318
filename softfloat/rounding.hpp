// Rounding directions and overflow policies: the options every conversion and
// arithmetic operation in softfloat takes. The names are shared with the command
// line and the Python module, so they never change.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

#include "softfloat/escape.hpp"

namespace softfloat {

enum class Rounding : std::uint8_t {
  nearest_even,      // IEEE 754 roundTiesToEven (the default everywhere)
  nearest_away,      // ties away from zero (IEEE roundTiesToAway)
  nearest_zero,      // ties toward zero
  toward_zero,       // truncation (IEEE roundTowardZero)
  away_from_zero,    // any inexact result moves away from zero
  up,                // toward +infinity (IEEE roundTowardPositive)
  down,              // toward -infinity (IEEE roundTowardNegative)
  odd,               // round to odd: an inexact result gets an odd last bit
  stochastic,        // up with probability (distance from the lower neighbour) / gap
  stochastic_equal,  // up or down with probability 1/2 when inexact
};

enum class Overflow : std::uint8_t {
  standard,  // the format's rule: infinity, else NaN, else max (IEEE directed rounding gives max)
  saturate,  // +-max, also for infinite input (OCP "SAT" conversion)
};

// Whether the mode draws random bits (the modes with no single correct result).
constexpr bool is_stochastic(Rounding mode) {
  return mode == Rounding::stochastic || mode == Rounding::stochastic_equal;
}

// The enumerators' own spellings ("nearest_even", "saturate"): the names the command
// line and the Python module accept.
constexpr std::string_view rounding_name(Rounding mode) {
  switch (mode) {
    case Rounding::nearest_even: return "nearest_even";
    case Rounding::nearest_away: return "nearest_away";
    case Rounding::nearest_zero: return "nearest_zero";
    case Rounding::toward_zero: return "toward_zero";
    case Rounding::away_from_zero: return "away_from_zero";
    case Rounding::up: return "up";
    case Rounding::down: return "down";
    case Rounding::odd: return "odd";
    case Rounding::stochastic: return "stochastic";
    case Rounding::stochastic_equal: return "stochastic_equal";
  }
  return "unknown rounding";
}
constexpr std::string_view overflow_name(Overflow policy) {
  return policy == Overflow::saturate ? "saturate" : "standard";
}

inline constexpr Rounding kAllRoundings[] = {Rounding::nearest_even, Rounding::nearest_away, Rounding::nearest_zero,
                                             Rounding::toward_zero,  Rounding::away_from_zero, Rounding::up,
                                             Rounding::down,         Rounding::odd,            Rounding::stochastic,
                                             Rounding::stochastic_equal};

// The Rounding with that name; std::invalid_argument listing the accepted names otherwise.
inline Rounding parse_rounding(std::string_view name) {
  std::string accepted;
  for (Rounding mode : kAllRoundings) {
    if (rounding_name(mode) == name) return mode;
    accepted += (accepted.empty() ? "" : ", ") + std::string(rounding_name(mode));
  }
  throw std::invalid_argument("unknown rounding mode '" + escape_unprintable(name) + "' (accepted: " + accepted + ")");
}
inline Overflow parse_overflow(std::string_view name) {
  if (name == "standard") return Overflow::standard;
  if (name == "saturate") return Overflow::saturate;
  throw std::invalid_argument("unknown overflow policy '" + escape_unprintable(name) +
                              "' (accepted: standard, saturate)");
}

}  // namespace softfloat
