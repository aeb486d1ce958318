// Umbrella header: everything in the public contract, in namespace softfloat.
#pragma once

#include "softfloat/arithmetic.hpp"
#include "softfloat/classify.hpp"
#include "softfloat/decimal.hpp"
#include "softfloat/exact_value.hpp"
#include "softfloat/float.hpp"
#include "softfloat/format.hpp"
#include "softfloat/format_spec.hpp"
#include "softfloat/limits.hpp"
#include "softfloat/matmul.hpp"
#include "softfloat/mx.hpp"
#include "softfloat/named_formats.hpp"
#include "softfloat/nvfp4.hpp"
#include "softfloat/random_bits.hpp"
#include "softfloat/round_to_format.hpp"
#include "softfloat/rounding.hpp"
#include "softfloat/simd.hpp"
