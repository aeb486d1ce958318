// Rounding directions and overflow policies: the options every conversion and
// arithmetic operation in softfloat takes. The names are shared with the command
// line and the Python module, so they never change.
#pragma once

#include <cstdint>

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

}  // namespace softfloat
