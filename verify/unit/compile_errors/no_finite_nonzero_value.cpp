// Must not compile: sign + E1M0 with the fn convention has magnitudes 0 (zero) and 1
// (the all-ones magnitude, NaN), so no finite nonzero value is left.
#include "softfloat/float.hpp"

static_assert(sizeof(softfloat::Float<1, 0, 0, false, softfloat::Specials::fn>) == 1);
