// Must not compile: with E = 1 an IEEE-style format's exponent field is either 0
// (zero/subnormal) or all ones (infinity/NaN), leaving no normal number.
#include "softfloat/float.hpp"

static_assert(sizeof(softfloat::Float<1, 3>) == 1);
