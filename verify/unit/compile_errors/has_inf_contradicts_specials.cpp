// Must not compile: HasInf = true asks for infinities, but the fn convention has none
// (its all-ones magnitude is NaN).
#include "softfloat/float.hpp"

static_assert(sizeof(softfloat::Float<5, 2, 15, true, softfloat::Specials::fn>) == 1);
