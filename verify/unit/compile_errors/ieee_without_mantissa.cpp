// Must not compile: an IEEE-style format with M = 0 has no mantissa bit to tell
// infinity (mantissa 0) from NaN (mantissa nonzero) in the all-ones exponent.
#include "softfloat/float.hpp"

static_assert(sizeof(softfloat::Float<4, 0>) == 1);
