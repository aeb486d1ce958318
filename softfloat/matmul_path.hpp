// Kept for code that included the kernel choice under its former name: the summation
// order and the kernel a call takes are declared in <softfloat/matmul_summation.hpp>
// (matmul/include/softfloat/).
#pragma once

#include "softfloat/matmul_summation.hpp"
