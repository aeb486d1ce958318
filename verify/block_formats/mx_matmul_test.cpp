// softfloat::mx_matmul (softfloat/mx_matmul.hpp) against a reference built here from the
// definition: each block's dot product summed exactly in int64 from the element values
// that mx::scalar_dequantize gives (with unit scales), scaled exactly in fp64, rounded
// once to fp32, and the blocks added in k order in fp32. Every kernel this CPU has runs
// every case; a kernel it lacks is reported as skipped with the reason.
#include <gtest/gtest.h>

#include <bit>
#include <functional>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "softfloat/softfloat.hpp"
#include "verify/common/expect_invalid.hpp"

namespace softfloat {
namespace {

using mx::Element;

// The integer scale of each kind, restated from the element formats (OCP MX v1.0
// table 1): the smallest positive value is 2^-1 (E2M1), 2^-3 (E2M3), 2^-4 (E3M2),
// 2^-6 (MXINT8, i / 64).
int integer_scale(Element element) {
  switch (element) {
    case Element::fp4_e2m1: return 2;
    case Element::fp6_e2m3: return 8;
    case Element::fp6_e3m2: return 16;
    default: return 64;
  }
}
constexpr Element kIntegerKinds[] = {Element::fp4_e2m1, Element::fp6_e2m3, Element::fp6_e3m2, Element::int8};

// rows x k values, MX-quantized row by row (one array: k is a multiple of 32).
struct Quantized {
  Element element;
  std::size_t rows = 0, k = 0;
  std::vector<std::uint8_t> elements, scales;

  MxOperand operand() const { return {elements.data(), elements.size(), scales.data(), scales.size(), element}; }
  // The element values times integer_scale, from the library's dequantization with
  // every scale 2^0 (the element decoding alone).
  std::vector<std::int64_t> integers() const {
    const std::vector<std::uint8_t> unit(scales.size(), 0x7F);
    std::vector<float> values(rows * k);
    mx::scalar_dequantize(elements.data(), elements.size(), unit.data(), unit.size(), values.size(), values.data(),
                          element);
    std::vector<std::int64_t> result(values.size());
    for (std::size_t i = 0; i < values.size(); ++i) {
      const double scaled = double(values[i]) * integer_scale(element);
      EXPECT_EQ(scaled, std::floor(scaled)) << "element " << i << " is not an integer after scaling";
      result[i] = std::int64_t(scaled);
    }
    return result;
  }
};

Quantized quantize(const std::vector<float>& values, std::size_t rows, std::size_t k, Element element) {
  Quantized q{element, rows, k, {}, {}};
  q.elements.resize(mx::element_bytes(element, rows * k));
  q.scales.resize(rows * k / 32);
  mx::quantize(values.data(), values.size(), q.elements.data(), q.elements.size(), q.scales.data(), q.scales.size(),
               element);
  return q;
}

// Random values whose blocks have magnitudes 2^e for e drawn from [lowest, highest],
// about one block in eight all zeros.
std::vector<float> random_values(std::size_t rows, std::size_t k, int lowest, int highest, std::uint32_t seed) {
  std::mt19937 random(seed);
  std::normal_distribution<float> normal;
  std::uniform_int_distribution<int> exponent(lowest, highest), eighth(0, 7);
  std::vector<float> values(rows * k);
  for (std::size_t block = 0; block < rows * k / 32; ++block) {
    const bool zero = eighth(random) == 0;
    const float magnitude = std::ldexp(1.0f, exponent(random));
    for (std::size_t p = 0; p < 32; ++p) values[block * 32 + p] = zero ? 0.0f : normal(random) * magnitude;
  }
  return values;
}

// The definition, independently: int64 block sums, fp64 scaling, one fp32 rounding per
// block, fp32 additions in block order.
std::vector<float> reference(const Quantized& a, const Quantized& b) {
  const std::vector<std::int64_t> x = a.integers(), y = b.integers();
  const std::size_t m = a.rows, n = b.rows, k = a.k, blocks = k / 32;
  const int shift = std::countr_zero(unsigned(integer_scale(a.element))) +
                    std::countr_zero(unsigned(integer_scale(b.element)));
  std::vector<float> c(m * n);
  for (std::size_t i = 0; i < m; ++i)
    for (std::size_t j = 0; j < n; ++j) {
      float sum = 0.0f;
      for (std::size_t t = 0; t < blocks; ++t) {
        std::int64_t dot = 0;
        for (std::size_t p = t * 32; p < t * 32 + 32; ++p) dot += x[i * k + p] * y[j * k + p];
        const int sa = a.scales[i * blocks + t], sb = b.scales[j * blocks + t];
        const float value = sa == 0xFF || sb == 0xFF ? std::numeric_limits<float>::quiet_NaN()
                                                     : float(std::ldexp(double(dot), sa + sb - 254 - shift));
        sum += value;
      }
      c[i * n + j] = sum;
    }
  return c;
}

// The kernels this CPU runs for the kinds; the others, with the reason, in `skipped`.
std::vector<MxMatmulKernel> kernels_for(Element a, Element b, std::string& skipped) {
  std::vector<MxMatmulKernel> kernels{MxMatmulKernel::exact_scalar};
  const bool int8_kinds = a != Element::fp6_e3m2 && b != Element::fp6_e3m2;
  if (!mx_matmul_kernel_supported(MxMatmulKernel::avx512_vnni))
    skipped += "avx512-vnni vpdpbusd skipped: this CPU (or build) lacks AVX512-VNNI. ";
  else if (int8_kinds)
    kernels.push_back(MxMatmulKernel::avx512_vnni);
  if (!mx_matmul_kernel_supported(MxMatmulKernel::amx_int8))
    skipped += "amx int8 tiles skipped: this CPU, system or build lacks AMX-INT8 tiles the process may use. ";
  else if (int8_kinds)
    kernels.push_back(MxMatmulKernel::amx_int8);
  return kernels;
}

::testing::AssertionResult same_bits(const std::vector<float>& got, const std::vector<float>& want, std::size_t n) {
  for (std::size_t i = 0; i < want.size(); ++i) {
    const bool both_nan = std::isnan(got[i]) && std::isnan(want[i]);
    if (!both_nan && std::bit_cast<std::uint32_t>(got[i]) != std::bit_cast<std::uint32_t>(want[i]))
      return ::testing::AssertionFailure() << "C[" << i / n << "][" << i % n << "] = " << got[i] << ", want "
                                           << want[i];
  }
  return ::testing::AssertionSuccess();
}

// Every kernel on a x b against the reference.
void check_product(const Quantized& a, const Quantized& b, const std::string& what) {
  std::string skipped;
  const std::vector<float> want = reference(a, b);
  for (MxMatmulKernel kernel : kernels_for(a.element, b.element, skipped)) {
    std::vector<float> c(a.rows * b.rows, -1.0f);
    mx_matmul(a.operand(), b.operand(), c.data(), a.rows, b.rows, a.k, kernel);
    EXPECT_TRUE(same_bits(c, want, b.rows)) << what << ", kernel " << mx_matmul_kernel_name(kernel) << ", "
                                            << mx::element_name(a.element) << " x " << mx::element_name(b.element);
  }
  if (!skipped.empty()) GTEST_SKIP() << skipped;
}

TEST(MxMatmul, EveryPairOfKindsOddShapesMatchesTheDefinition) {
  std::uint32_t seed = 1;
  for (Element ka : kIntegerKinds)
    for (Element kb : kIntegerKinds) {
      const std::size_t m = 13, n = 37, k = 160;
      const Quantized a = quantize(random_values(m, k, -12, 12, seed++), m, k, ka);
      const Quantized b = quantize(random_values(n, k, -12, 12, seed++), n, k, kb);
      check_product(a, b, "random blocks");
    }
}

// Shapes around the kernels' tiles (6 x 32 for vpdpbusd, 32 x 32 for the AMX tiles):
// exact multiples, one past, and several partial tiles on both edges.
TEST(MxMatmul, ShapesAroundTheTilesMatchTheDefinition) {
  struct Shape {
    std::size_t m, n, k;
  };
  std::uint32_t seed = 101;
  for (const Shape shape : {Shape{1, 1, 32}, Shape{32, 32, 32}, Shape{33, 17, 64}, Shape{45, 70, 96},
                            Shape{16, 48, 224}})
    for (Element kind : {Element::fp4_e2m1, Element::fp6_e2m3, Element::int8}) {
      const Quantized a = quantize(random_values(shape.m, shape.k, -6, 6, seed++), shape.m, shape.k, kind);
      const Quantized b = quantize(random_values(shape.n, shape.k, -6, 6, seed++), shape.n, shape.k, Element::fp4_e2m1);
      check_product(a, b, std::to_string(shape.m) + " x " + std::to_string(shape.n) + " x " + std::to_string(shape.k));
    }
}

// Scales near the ends of E8M0: block values overflow to infinity, round into fp32's
// subnormals or vanish, and the vectorised kernel hands those tiles to the exact loop.
TEST(MxMatmul, ExtremeScalesMatchTheDefinition) {
  for (Element kind : {Element::fp4_e2m1, Element::int8}) {
    const std::size_t m = 8, n = 40, k = 64;
    check_product(quantize(random_values(m, k, 60, 127, 11), m, k, kind),
                  quantize(random_values(n, k, 40, 127, 12), n, k, kind), "huge scales");
    check_product(quantize(random_values(m, k, -149, -60, 13), m, k, kind),
                  quantize(random_values(n, k, -149, -40, 14), n, k, kind), "tiny scales");
    check_product(quantize(random_values(m, k, -120, 120, 15), m, k, kind),
                  quantize(random_values(n, k, -120, 120, 16), n, k, kind), "scales everywhere");
  }
}

// Values on the E2M1 grid with scale 2^0 and small k: every partial sum is a multiple
// of 1/4 below 2^14, so C is the exact sum of the products of the original values.
TEST(MxMatmul, IntegerValuedProductsGiveExactSums) {
  const float grid[] = {0.0f, 0.5f, 1.0f, 1.5f, 2.0f, 3.0f, 4.0f, 6.0f};
  const std::size_t m = 5, n = 33, k = 256;
  std::mt19937 random(7);
  std::uniform_int_distribution<int> pick(0, 15);
  const auto values = [&](std::size_t rows) {
    std::vector<float> v(rows * k);
    for (float& x : v) {
      const int code = pick(random);
      x = (code & 8 ? -1.0f : 1.0f) * grid[code & 7];
    }
    for (std::size_t r = 0; r < rows * k; r += 32) v[r] = 6.0f;  // each block's max is 6: scale 2^0
    return v;
  };
  const std::vector<float> x = values(m), y = values(n);
  const Quantized a = quantize(x, m, k, Element::fp4_e2m1), b = quantize(y, n, k, Element::fp4_e2m1);
  std::string skipped;
  for (MxMatmulKernel kernel : kernels_for(a.element, b.element, skipped)) {
    std::vector<float> c(m * n);
    mx_matmul(a.operand(), b.operand(), c.data(), m, n, k, kernel);
    for (std::size_t i = 0; i < m; ++i)
      for (std::size_t j = 0; j < n; ++j) {
        double exact = 0.0;  // multiples of 1/4 below 2^20: exact in fp64
        for (std::size_t p = 0; p < k; ++p) exact += double(x[i * k + p]) * double(y[j * k + p]);
        EXPECT_EQ(double(c[i * n + j]), exact) << "C[" << i << "][" << j << "], " << mx_matmul_kernel_name(kernel);
      }
  }
  if (!skipped.empty()) GTEST_SKIP() << skipped;
}

// A NaN scale (0xFF) makes its row (A) or column (B) NaN; all-zero blocks with scale
// 0x00 between ordinary ones add nothing.
TEST(MxMatmul, NanScalesPropagateAndZeroBlocksAddNothing) {
  const std::size_t m = 7, n = 35, k = 128;
  for (Element kind : {Element::fp4_e2m1, Element::fp6_e2m3, Element::int8}) {
    std::vector<float> x = random_values(m, k, -4, 4, 21), y = random_values(n, k, -4, 4, 22);
    for (std::size_t p = 32; p < 64; ++p) x[2 * k + p] = 0.0f;  // row 2, block 1: zeros
    Quantized a = quantize(x, m, k, kind), b = quantize(y, n, k, kind);
    EXPECT_EQ(a.scales[2 * 4 + 1], 0x00);
    a.scales[3 * 4 + 2] = 0xFF;  // row 3, block 2
    b.scales[5 * 4 + 0] = 0xFF;  // column 5, block 0
    std::string skipped;
    for (MxMatmulKernel kernel : kernels_for(kind, kind, skipped)) {
      std::vector<float> c(m * n);
      mx_matmul(a.operand(), b.operand(), c.data(), m, n, k, kernel);
      for (std::size_t i = 0; i < m; ++i)
        for (std::size_t j = 0; j < n; ++j)
          EXPECT_EQ(std::isnan(c[i * n + j]), i == 3 || j == 5) << "C[" << i << "][" << j << "]";
    }
    check_product(a, b, "NaN scales and zero blocks");
  }
}

// 2^23 multiply-adds: enough for two threads. The second shape's C (1 MiB, its rows
// on 64-byte boundaries) is written by the vectorised kernel's non-temporal stores.
TEST(MxMatmul, TwoThreadsGiveTheBitsOfOne) {
  struct Shape {
    std::size_t m, n, k;
    bool aligned;
  };
  for (const Shape shape : {Shape{64, 256, 512, false}, Shape{512, 512, 32, true}}) {
    const std::size_t m = shape.m, n = shape.n, k = shape.k;
    const Quantized a = quantize(random_values(m, k, -8, 8, 31), m, k, Element::fp4_e2m1);
    const Quantized b = quantize(random_values(n, k, -8, 8, 32), n, k, Element::fp4_e2m1);
    const std::vector<float> want = reference(a, b);
    std::string skipped;
    for (MxMatmulKernel kernel : kernels_for(a.element, b.element, skipped)) {
      std::vector<float> one_buffer(m * n + 16), two_buffer(m * n + 16);
      const auto start = [&](std::vector<float>& buffer) {
        const std::size_t offset = (64 - reinterpret_cast<std::uintptr_t>(buffer.data()) % 64) % 64 / sizeof(float);
        return buffer.data() + (shape.aligned ? offset : (offset + 1) % 16);
      };
      float* one = start(one_buffer);
      float* two = start(two_buffer);
      set_num_threads(1);
      mx_matmul(a.operand(), b.operand(), one, m, n, k, kernel);
      set_num_threads(2);
      mx_matmul(a.operand(), b.operand(), two, m, n, k, kernel);
      set_num_threads(1);
      EXPECT_TRUE(same_bits(std::vector<float>(two, two + m * n), std::vector<float>(one, one + m * n), n))
          << mx_matmul_kernel_name(kernel);
      EXPECT_TRUE(same_bits(std::vector<float>(one, one + m * n), want, n)) << mx_matmul_kernel_name(kernel);
    }
    if (!skipped.empty()) GTEST_SKIP() << skipped;
  }
}

TEST(MxMatmul, PathNamesTheKernel) {
  const bool vnni = mx_matmul_kernel_supported(MxMatmulKernel::avx512_vnni);
  const bool amx = mx_matmul_kernel_supported(MxMatmulKernel::amx_int8);
  EXPECT_EQ(mx_matmul_path(Element::fp4_e2m1, Element::fp4_e2m1, 0, 4, 32), MxMatmulKernel::none);
  EXPECT_EQ(mx_matmul_path(Element::fp4_e2m1, Element::int8, 4, 4, 32),
            vnni ? MxMatmulKernel::avx512_vnni : amx ? MxMatmulKernel::amx_int8 : MxMatmulKernel::exact_scalar);
  EXPECT_EQ(mx_matmul_path(Element::fp6_e3m2, Element::fp4_e2m1, 4, 4, 32), MxMatmulKernel::exact_scalar);
  EXPECT_EQ(mx_matmul_kernel_name(MxMatmulKernel::avx512_vnni), "avx512-vnni vpdpbusd");
  EXPECT_EQ(mx_matmul_kernel_name(MxMatmulKernel::exact_scalar), "exact scalar");
  EXPECT_EQ(mx_matmul_kernel_name(MxMatmulKernel::amx_int8), "amx int8 tiles");
}

TEST(MxMatmul, EmptySizes) {
  const Quantized a = quantize(random_values(2, 32, 0, 0, 41), 2, 32, Element::int8);
  std::vector<float> c(6, -1.0f);
  mx_matmul(a.operand(), MxOperand{nullptr, 0, nullptr, 0, Element::int8}, c.data(), 2, 0, 32);
  EXPECT_EQ(c[0], -1.0f);  // n = 0: C untouched
  const MxOperand none{nullptr, 0, nullptr, 0, Element::fp4_e2m1};
  mx_matmul(none, none, c.data(), 2, 3, 0);  // k = 0: C = 0
  for (float v : c) EXPECT_EQ(std::bit_cast<std::uint32_t>(v), 0u);
}

TEST(MxMatmul, BadArgumentsThrowWithAMessage) {
  const Quantized a = quantize(random_values(2, 64, 0, 0, 51), 2, 64, Element::fp4_e2m1);
  std::vector<float> c(4);
  verify::expect_invalid([&] { mx_matmul(a.operand(), a.operand(), c.data(), 2, 2, 48); }, "not a multiple of 32");
  MxOperand fp8 = a.operand();
  fp8.element = Element::fp8_e4m3;
  verify::expect_invalid([&] { mx_matmul(fp8, a.operand(), c.data(), 2, 2, 64); }, "mxfp8_e4m3");
  MxOperand short_scales = a.operand();
  short_scales.scale_count = 3;
  verify::expect_invalid([&] { mx_matmul(a.operand(), short_scales, c.data(), 2, 2, 64); }, "4 scales");
  MxOperand short_elements = a.operand();
  short_elements.element_bytes = 63;
  verify::expect_invalid([&] { mx_matmul(short_elements, a.operand(), c.data(), 2, 2, 64); }, "64 element bytes");
  MxOperand null = a.operand();
  null.elements = nullptr;
  verify::expect_invalid([&] { mx_matmul(null, a.operand(), c.data(), 2, 2, 64); }, "null");
  verify::expect_invalid([&] { mx_matmul(a.operand(), a.operand(), nullptr, 2, 2, 64); }, "null");
  verify::expect_invalid([&] { mx_matmul(a.operand(), a.operand(), c.data(), 2, 2, 64, MxMatmulKernel::none); }, "none");
  const Quantized e3m2 = quantize(random_values(2, 64, 0, 0, 52), 2, 64, Element::fp6_e3m2);
  if (mx_matmul_kernel_supported(MxMatmulKernel::avx512_vnni))
    verify::expect_invalid([&] { mx_matmul(e3m2.operand(), e3m2.operand(), c.data(), 2, 2, 64, MxMatmulKernel::avx512_vnni); },
                   "only mxfp4_e2m1, mxfp6_e2m3 and mxint8");
  else
    verify::expect_invalid([&] { mx_matmul(a.operand(), a.operand(), c.data(), 2, 2, 64, MxMatmulKernel::avx512_vnni); },
                   "not available");
  if (mx_matmul_kernel_supported(MxMatmulKernel::amx_int8))
    verify::expect_invalid([&] { mx_matmul(e3m2.operand(), a.operand(), c.data(), 2, 2, 64, MxMatmulKernel::amx_int8); },
                   "only mxfp4_e2m1, mxfp6_e2m3 and mxint8");
  else
    verify::expect_invalid([&] { mx_matmul(a.operand(), a.operand(), c.data(), 2, 2, 64, MxMatmulKernel::amx_int8); },
                   "not available");
}

}  // namespace
}  // namespace softfloat
