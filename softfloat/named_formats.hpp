// The named formats of the public contract. Each comment states the layout and the
// worked value of max() so that a reader can check it without a calculator; the
// static_asserts at the end of this file check the same numbers at compile time.
#pragma once

#include "softfloat/float.hpp"

namespace softfloat {

// IEEE binary32. Exponent: 8, mantissa: 23, bias: 127, infinities and NaNs.
// max = (2 - 2^-23) * 2^127 ~ 3.4028235e38.
using FP32 = Float<8, 23>;
// IEEE binary64 (not in the contract's list, but the natural reference point).
// max = (2 - 2^-52) * 2^1023 ~ 1.7976931348623157e308.
using FP64 = Float<11, 52>;
// bfloat16: fp32's exponent with 7 mantissa bits. Exponent: 8, mantissa: 7, bias: 127.
// max = 0b0'11111110'1111111 = (2 - 2^-7) * 2^127 ~ 3.3895314e38.
using BF16 = Float<8, 7>;
// IEEE binary16. Exponent: 5, mantissa: 10, bias: 15.
// max = 0b0'11110'1111111111 = (2 - 2^-10) * 2^15 = 65504.
using FP16 = Float<5, 10>;
// NVIDIA TensorFloat-32: fp32's range with fp16's precision, stored in 19 bits.
// max = (2 - 2^-10) * 2^127 ~ 3.4011621e38.
using TF32 = Float<8, 10>;
// OCP FP8 E5M2: IEEE-style. Exponent: 5, mantissa: 2, bias: 15.
// max = 0b0'11110'11 = 1.75 * 2^15 = 57344.
using E5M2 = Float<5, 2>;
// OCP FP8 E4M3: extended range, no infinity; NaN is 0bS'1111'111.
// max = 0b0'1111'110 = (1 + 0b110 * 2^-3) * 2^(0b1111 - 7) = 1.75 * 2^8 = 448.
using E4M3 = Float<4, 3, 7, false>;
// OCP MX FP6 E3M2: no infinity, no NaN. Exponent: 3, mantissa: 2, bias: 3.
// max = 0b0'111'11 = 1.75 * 2^(7 - 3) = 28.
using E3M2 = Float<3, 2, 3, false, Specials::finite>;
// OCP MX FP6 E2M3: no infinity, no NaN. Exponent: 2, mantissa: 3, bias: 1.
// max = 0b0'11'111 = 1.875 * 2^(3 - 1) = 7.5.
using E2M3 = Float<2, 3, 1, false, Specials::finite>;
// OCP MX FP4 E2M1: no infinity, no NaN. Exponent: 2, mantissa: 1, bias: 1.
// max = 0b0'11'1 = 1.5 * 2^(3 - 1) = 6; the values are 0, 0.5, 1, 1.5, 2, 3, 4, 6.
using E2M1 = Float<2, 1, 1, false, Specials::finite>;
// OCP MX scale E8M0: unsigned, no zero, no subnormals, 0xFF is NaN. Code c is 2^(c - 127).
// min = 0b00000000 = 2^-127, max = 0b11111110 = 2^(254 - 127) = 2^127.
using E8M0 = Float<8, 0, 127, false, Specials::fn, false, false>;
// E4M3FNUZ (Graphcore/AMD): no infinity, no negative zero, 0x80 is the only NaN, bias 8.
// max = 0b0'1111'111 = 1.875 * 2^(15 - 8) = 240.
using E4M3FNUZ = Float<4, 3, 8, false, Specials::fnuz>;
// E5M2FNUZ: no infinity, no negative zero, 0x80 is the only NaN, bias 16.
// max = 0b0'11111'11 = 1.75 * 2^(31 - 16) = 57344.
using E5M2FNUZ = Float<5, 2, 16, false, Specials::fnuz>;

// IEEE P3109 binary{K}p{P} (interim report): K bits with precision P (P - 1 stored
// mantissa bits), signed, extended: one NaN at 0x80, +-infinity at 0x7F / 0xFF, no
// negative zero, bias 2^(K - P - 1). binary8p3: max = 0b0'11111'10 = 1.5 * 2^(31-16) = 49152.
template <int K, int P>
  requires(K == 8 && P >= 1 && P <= 7)
using P3109 = Float<K - P, P - 1, (1 << (K - P - 1)), true, Specials::p3109>;

// Compile-time checks of the worked values above.
static_assert(double(FP16::max()) == 65504.0);
static_assert(double(BF16::max()) == 0x1.fep127);
static_assert(double(E5M2::max()) == 57344.0);
static_assert(double(E4M3::max()) == 448.0);
static_assert(double(E3M2::max()) == 28.0);
static_assert(double(E2M3::max()) == 7.5);
static_assert(double(E2M1::max()) == 6.0);
static_assert(double(E8M0::max()) == 0x1p127 && double(E8M0::min_normal()) == 0x1p-127);
static_assert(double(E4M3FNUZ::max()) == 240.0);
static_assert(double(E5M2FNUZ::max()) == 57344.0);
static_assert(double(P3109<8, 3>::max()) == 49152.0);
static_assert(double(TF32::max()) == 0x1.ffcp127);

}  // namespace softfloat
