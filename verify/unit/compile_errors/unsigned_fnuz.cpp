// Must not compile: fnuz puts its only NaN at the negative-zero code 0b1000..., which
// an unsigned format does not have.
#include "softfloat/float.hpp"

static_assert(sizeof(softfloat::Float<3, 2, 3, false, softfloat::Specials::fnuz, false>) == 1);
