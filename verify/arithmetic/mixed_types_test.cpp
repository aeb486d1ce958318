// Arithmetic and comparison mix no types: both operands must be the same Float type.
// BF16 + FP16 would have to pick a result format, and BF16 + 1.0f would round the
// float silently; both must be compile errors (convert explicitly instead). The
// requires-expressions below are checked when this file compiles; the runtime test
// shows that the valid spelling computes the expected value.
#include <gtest/gtest.h>

#include "softfloat/softfloat.hpp"

namespace softfloat {
namespace {

template <class A, class B>
concept CanAdd = requires(A a, B b) { a + b; };
template <class A, class B>
concept CanSubtract = requires(A a, B b) { a - b; };
template <class A, class B>
concept CanMultiply = requires(A a, B b) { a * b; };
template <class A, class B>
concept CanDivide = requires(A a, B b) { a / b; };
template <class A, class B>
concept CanCompare = requires(A a, B b) { a == b; };
template <class A, class B>
concept CanOrder = requires(A a, B b) { a < b; };
template <class A, class B, class C>
concept CanFma = requires(A a, B b, C c) { fma(a, b, c); };

// The same type: valid.
static_assert(CanAdd<BF16, BF16> && CanSubtract<BF16, BF16> && CanMultiply<BF16, BF16> && CanDivide<BF16, BF16>);
static_assert(CanCompare<BF16, BF16> && CanOrder<BF16, BF16> && CanFma<BF16, BF16, BF16>);
static_assert(CanMultiply<E4M3, E4M3> && CanAdd<E2M1, E2M1>);

// Two formats: invalid, in either order and for every operator.
static_assert(!CanAdd<BF16, FP16> && !CanAdd<FP16, BF16>);
static_assert(!CanSubtract<BF16, FP16> && !CanMultiply<E4M3, E5M2> && !CanDivide<E4M3FNUZ, E4M3>);
static_assert(!CanCompare<BF16, FP16> && !CanOrder<E4M3, E5M2>);
static_assert(!CanFma<BF16, BF16, FP16> && !CanFma<FP16, BF16, BF16>);

// Built-in types: invalid (the constructors and conversions are explicit).
static_assert(!CanAdd<BF16, float> && !CanAdd<float, BF16>);
static_assert(!CanMultiply<double, E4M3> && !CanMultiply<E4M3, double>);
static_assert(!CanAdd<FP16, int> && !CanDivide<int, FP16>);
static_assert(!CanCompare<BF16, float> && !CanOrder<double, E4M3>);

TEST(MixedTypes, SameTypeArithmeticIsValid) {
  // bf16: 1.5 + 2.25 = 3.75 = 0x4070 (1.111b * 2^1), exact.
  EXPECT_EQ((BF16(1.5) + BF16(2.25)).bits(), 0x4070u);
  // Converting explicitly is the way to mix: fp16 1/3 (0x3555 = 0.333251953125) in
  // bf16 rounds to 0x3EAB (0.333984375).
  EXPECT_EQ((BF16(FP16(1.0) / FP16(3.0)) + BF16(0.0)).bits(), 0x3EABu);
}

}  // namespace
}  // namespace softfloat
