// Must not compile: E = 12 exceeds the 11 exponent bits of binary64, the widest
// format the library decodes into and out of.
#include "softfloat/float.hpp"

static_assert(sizeof(softfloat::Float<12, 3>) == 2);
