// Conversion between two Float types rounds once: every code of a source of up to
// 20 bits (sampled codes of wider ones) converted with Float<To>(Float<From>), against
// MPFR rounding of the source code's exact value (verify::exact_value_of, then
// verify::reference_round). NaN codes go through nan_as_double(): sign kept, IEEE
// payload kept in the top bits, quiet.
#include <random>

#include "verify/conversion/conversion_test_support.hpp"

namespace softfloat::conversion_test {
namespace {

template <class From, class To>
struct Conversion {
  using from = From;
  using to = To;
};

using Conversions = ::testing::Types<
    // narrowing between the usual formats
    Conversion<FP16, E4M3>, Conversion<BF16, E5M2>, Conversion<FP32, BF16>, Conversion<FP16, E2M1>,
    Conversion<E5M2, E4M3>, Conversion<FP16, E8M0>, Conversion<FP32, FP16>, Conversion<FP32, E4M3>,
    Conversion<FP64, BF16>, Conversion<TF32, BF16>, Conversion<TF32, FP16>, Conversion<Float<11, 20>, FP16>,
    Conversion<FP16, BF16>, Conversion<BF16, FP16>, Conversion<BF16, E8M0>, Conversion<E3M2, E2M3>,
    Conversion<E2M3, E2M1>, Conversion<E4M3, E2M1>, Conversion<Float<6, 9>, Float<3, 4>>,
    // widening (exact where the range allows) and between conventions
    Conversion<E4M3, FP16>, Conversion<BF16, TF32>, Conversion<FP16, FP32>, Conversion<FP16, FP64>,
    Conversion<E4M3, E4M3FNUZ>, Conversion<E4M3FNUZ, E4M3>, Conversion<E5M2FNUZ, E5M2>, Conversion<E5M2, E5M2FNUZ>,
    Conversion<P3109<8, 3>, P3109<8, 4>>, Conversion<P3109<8, 4>, E4M3>, Conversion<E4M3, P3109<8, 4>>,
    Conversion<FP16, P3109<8, 1>>, Conversion<E8M0, BF16>, Conversion<E8M0, E4M3>, Conversion<E2M1, E8M0>,
    // custom biases
    Conversion<Float<5, 10, 3>, FP16>, Conversion<FP16, Float<4, 3, 11, false>>,
    Conversion<Float<4, 3, 11, false>, E4M3>>;

struct ConversionNames {
  template <class C>
  static std::string GetName(int) {
    return identifier_of(format_name(C::from::format) + "_to_" + format_name(C::to::format));
  }
};

// All codes of a source of at most 20 bits; otherwise both signs of sampled
// binades and random codes (NaNs and infinities included).
std::vector<std::uint64_t> source_codes(const Format& f) {
  if (f.total_bits() <= 20) return all_codes(f);
  std::mt19937_64 rng(8128);
  std::vector<std::uint64_t> codes;
  for (std::uint64_t code : binade_sample_codes(f, rng, 32)) {
    codes.push_back(code);
    codes.push_back(code | f.sign_bits(true));
  }
  const std::uint64_t mask = f.total_bits() == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << f.total_bits()) - 1;
  for (int i = 0; i < 200000; ++i) codes.push_back(rng() & mask);
  return codes;
}

template <class C>
class FloatToFloatRoundsOnce : public ::testing::Test {};
TYPED_TEST_SUITE(FloatToFloatRoundsOnce, Conversions, ConversionNames);

TYPED_TEST(FloatToFloatRoundsOnce, EverySourceCode) {
  using From = typename TypeParam::from;
  using To = typename TypeParam::to;
  MismatchLog log(format_name(From::format) + " -> " + format_name(To::format));
  for (std::uint64_t code : source_codes(From::format)) {
    const From source = From::from_bits(typename From::storage_type(code));
    log.check(std::uint64_t(To(source).bits()), reference_convert(code, From::format, To::format),
              [&] { return format_name(From::format) + " code " + hex(code); });
  }
  EXPECT_TRUE(log.result());
  const int bits = From::format.total_bits();
  EXPECT_GE(log.checked(), bits <= 20 ? std::size_t{1} << bits : std::size_t{200000});
}

// Two conversions where a detour through float or double would not change the
// answer but a wrong tie rule would, with the arithmetic.
TEST(FloatToFloatByHand, Fp16ToE4m3Ties) {
  // FP16 1.0625 (0x3C40) is the tie between E4M3's 1 (0x38) and 1.125 (0x39): even
  // gives 0x38; FP16 1.0634765625 (0x3C41, one FP16 ulp above) gives 0x39.
  EXPECT_EQ(E4M3(FP16::from_bits(0x3C40)).bits(), 0x38);
  EXPECT_EQ(E4M3(FP16::from_bits(0x3C41)).bits(), 0x39);
  // FP16 464 (0x5F40) ties E4M3's max 448 with the would-be 480: stays 448 (0x7E).
  EXPECT_EQ(E4M3(FP16::from_bits(0x5F40)).bits(), 0x7E);
  // FP16 infinity has no E4M3 counterpart: NaN, sign kept.
  EXPECT_EQ(E4M3(FP16::from_bits(0xFC00)).bits(), 0xFF);
}

TEST(FloatToFloatByHand, Fp16ToE8m0) {
  // FP16 3.0 (0x4200) ties 2 and 4: E8M0 rounds ties up, to 4 = code 129 (0x81);
  // FP16's smallest subnormal 2^-24 becomes 2^-24 = code 103 (0x67).
  EXPECT_EQ(E8M0(FP16::from_bits(0x4200)).bits(), 0x81);
  EXPECT_EQ(E8M0(FP16::from_bits(0x0001)).bits(), 0x67);
  EXPECT_EQ(E8M0(FP16::from_bits(0x8000)).bits(), 0x00);  // -0: the smallest value
  EXPECT_EQ(E8M0(FP16::from_bits(0xBC00)).bits(), 0xFF);  // -1: NaN
}

}  // namespace
}  // namespace softfloat::conversion_test
