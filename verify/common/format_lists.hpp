// The formats the suites walk through, stated once. Every list is a GoogleTest type
// list (for TYPED_TEST_SUITE, named by verify/common/format_test_names.hpp); a suite
// that walks formats at run time takes formats_of(List) of the same list. Subsets are
// selected by a property of the format (Select) rather than restated, so that a format
// added to the contract reaches every suite whose property it has.
#pragma once

#include <gtest/gtest.h>

#include <type_traits>
#include <vector>

#include "softfloat/softfloat.hpp"

namespace softfloat::test_formats {

// ---------------------------------------------------------------------------
// Type-list tools.

template <class... Lists>
struct ConcatTypes;
template <>
struct ConcatTypes<> {
  using type = ::testing::Types<>;
};
template <class... A>
struct ConcatTypes<::testing::Types<A...>> {
  using type = ::testing::Types<A...>;
};
template <class... A, class... B, class... Rest>
struct ConcatTypes<::testing::Types<A...>, ::testing::Types<B...>, Rest...> {
  using type = typename ConcatTypes<::testing::Types<A..., B...>, Rest...>::type;
};
template <class... Lists>
using Concat = typename ConcatTypes<Lists...>::type;

// The formats of `List` for which Keep(F::format) holds, in order.
template <class List, bool (*Keep)(const Format&)>
struct SelectTypes;
template <bool (*Keep)(const Format&)>
struct SelectTypes<::testing::Types<>, Keep> {
  using type = ::testing::Types<>;
};
template <class F, class... Rest, bool (*Keep)(const Format&)>
struct SelectTypes<::testing::Types<F, Rest...>, Keep> {
  using rest = typename SelectTypes<::testing::Types<Rest...>, Keep>::type;
  using type = std::conditional_t<Keep(F::format), Concat<::testing::Types<F>, rest>, rest>;
};
template <class List, bool (*Keep)(const Format&)>
using Select = typename SelectTypes<List, Keep>::type;

// The list's formats at run time, in order.
template <class... F>
std::vector<Format> formats_of(::testing::Types<F...>) {
  return {F::format...};
}

// Properties to select by.
constexpr bool at_most_6_bits(const Format& f) { return f.total_bits() <= 6; }
constexpr bool at_most_8_bits(const Format& f) { return f.total_bits() <= 8; }
constexpr bool at_most_16_bits(const Format& f) { return f.total_bits() <= 16; }
constexpr bool wider_than_16_bits(const Format& f) { return f.total_bits() > 16; }
constexpr bool is_p3109(const Format& f) { return f.specials == Specials::p3109; }
// At most fp32's 8 exponent bits: every value and gap within float's range.
constexpr bool within_fp32_range(const Format& f) { return f.exponent_bits <= 8; }
// The midpoints between neighbouring values are doubles: they need the format's
// significand bits plus one (FP64's need 54).
constexpr bool midpoints_are_doubles(const Format& f) { return f.mantissa_bits + 2 <= 53; }

// ---------------------------------------------------------------------------
// The lists.

// Every named format of the contract (softfloat/named_formats.hpp).
using NamedFormats = ::testing::Types<FP32, FP64, BF16, FP16, TF32, E5M2, E4M3, E3M2, E2M3, E2M1, E8M0, E4M3FNUZ,
                                      E5M2FNUZ, P3109<8, 1>, P3109<8, 2>, P3109<8, 3>, P3109<8, 4>,
                                      P3109<8, 5>, P3109<8, 6>, P3109<8, 7>>;

// Custom formats, for parameters no named format has: Float<5,10,3> a custom bias (max
// 2^27 * (2 - 2^-10)); Float<4,3,11,false> a custom-bias OCP-style fn format (max
// 1.75 * 2^(15 - 11) = 28); Float<3,4> and Float<6,9> other field widths; Float<7,16>
// and Float<11,20> wide ones between the named widths.
using CustomFormats =
    ::testing::Types<Float<3, 4>, Float<6, 9>, Float<5, 10, 3>, Float<4, 3, 11, false>, Float<7, 16>, Float<11, 20>>;

// Named and custom.
using AllFormats = Concat<NamedFormats, CustomFormats>;

// At most 16 bits: every code can be enumerated.
using NarrowFormats = Select<AllFormats, at_most_16_bits>;
// Wider: sampled binade by binade.
using WideFormats = Select<AllFormats, wider_than_16_bits>;
// Every named format of at most 8 bits: all pairs of codes fit a test.
using ByteFormats = Select<NamedFormats, at_most_8_bits>;
// The named formats of at most 6 bits: all triples of codes fit a test (4096 for
// E2M1, 262144 for E3M2 and E2M3).
using SmallFormats = Select<NamedFormats, at_most_6_bits>;
// The IEEE P3109 formats of 8 bits, precisions 1 to 7.
using P3109Formats = Select<NamedFormats, is_p3109>;
// The OCP FP8 formats, which carry the directed-rounding suites over every pair.
using OcpFp8Formats = ::testing::Types<E4M3, E5M2>;

// One format of each kind, for checks that cost too much to repeat on every format:
// IEEE 16-bit (FP16) and bfloat16, OCP FP8 with and without infinities, FP4, FNUZ,
// P3109.
using RepresentativeFormats = ::testing::Types<FP16, BF16, E5M2, E4M3, E2M1, E4M3FNUZ, P3109<8, 3>>;

}  // namespace softfloat::test_formats
