// Must compile: the control for the other files in this folder. A valid format through
// the same compiler command shows that their failures come from their parameters.
#include "softfloat/float.hpp"

static_assert(sizeof(softfloat::Float<4, 3, 7, false>) == 1);
