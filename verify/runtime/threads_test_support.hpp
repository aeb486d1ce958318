// The work the thread tests run from many threads at once, and its expected results,
// computed beforehand on one thread by independent scalar code: round_to_format() per
// element for the conversions (checked against MPFR in verify/conversion), and the
// in-order chain of std::fma in float for the fp32 matmul (matmul.hpp's definition:
// each product added by one fused multiply-add, in depth order, from +0).
//
// The sizes are large enough for every call to split across the worker pool
// (runtime/parallel.hpp: 2^16 elements per thread; matmul/column_parts.hpp: 2^22
// multiply-adds per thread) with up to 4 threads, and small enough for ThreadSanitizer.
#pragma once

#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <random>
#include <vector>

#include "softfloat/softfloat.hpp"

namespace softfloat::threads_test {

constexpr std::size_t kCount = (std::size_t{1} << 18) + 3;  // 4 parts of 2^16, and a vector tail

// matmul of E4M3 codes: 48 x 256 by 256 x 1536, 2^24 + 2^23 multiply-adds (4 parts).
constexpr std::size_t kM = 48, kN = 1536, kK = 256;

inline std::uint32_t bits_of(float x) { return std::bit_cast<std::uint32_t>(x); }

// NaN matches any NaN (the payload a NaN keeps is not specified), everything else bit for bit.
inline bool same_float(float a, float b) { return (std::isnan(a) && std::isnan(b)) || bits_of(a) == bits_of(b); }

struct Workload {
  std::vector<float> in;                    // every kind of float: normals, random bit patterns, -0
  std::vector<std::uint8_t> e4m3;           // quantize<E4M3>(in)
  std::vector<std::uint16_t> bf16;          // quantize<BF16>(in)
  std::vector<float> e5m2_round_trip;       // round_trip<E5M2>(in)
  std::vector<std::uint8_t> a, b;           // E4M3 operands, finite
  std::vector<float> product;               // a x b with fp32 accumulation
};

inline Workload make_workload() {
  Workload w;
  std::mt19937 rng(19);
  std::normal_distribution<float> normal(0.0f, 64.0f);
  w.in.resize(kCount);
  for (std::size_t i = 0; i < kCount; ++i) {
    if (i % 3 == 0) w.in[i] = std::bit_cast<float>(std::uint32_t(rng()));
    else if (i % 101 == 0) w.in[i] = -0.0f;
    else w.in[i] = normal(rng);
  }
  w.e4m3.resize(kCount);
  w.bf16.resize(kCount);
  w.e5m2_round_trip.resize(kCount);
  for (std::size_t i = 0; i < kCount; ++i) {
    const ExactValue x = decode(w.in[i]);
    w.e4m3[i] = std::uint8_t(round_to_format(x, E4M3::format));
    w.bf16[i] = std::uint16_t(round_to_format(x, BF16::format));
    w.e5m2_round_trip[i] = float(E5M2::from_bits(std::uint8_t(round_to_format(x, E5M2::format))));
  }
  // Finite E4M3 codes (0x7F and 0xFF are its NaNs).
  std::uniform_int_distribution<int> code(0, 255);
  const auto finite_code = [&] {
    int c;
    do c = code(rng);
    while ((c & 0x7F) == 0x7F);
    return std::uint8_t(c);
  };
  w.a.resize(kM * kK);
  w.b.resize(kK * kN);
  for (auto& c : w.a) c = finite_code();
  for (auto& c : w.b) c = finite_code();
  std::vector<float> a(w.a.size()), b(w.b.size());
  for (std::size_t i = 0; i < a.size(); ++i) a[i] = float(E4M3::from_bits(w.a[i]));
  for (std::size_t i = 0; i < b.size(); ++i) b[i] = float(E4M3::from_bits(w.b[i]));
  w.product.assign(kM * kN, 0.0f);
  for (std::size_t i = 0; i < kM; ++i)
    for (std::size_t p = 0; p < kK; ++p)
      for (std::size_t j = 0; j < kN; ++j)
        w.product[i * kN + j] = std::fma(a[i * kK + p], b[p * kN + j], w.product[i * kN + j]);
  return w;
}

// One call of each kind, its output compared with the expected one; returns the number
// of elements that differ (0 when all is well). `kind` picks the call: 0 quantize E4M3,
// 1 quantize BF16, 2 round_trip E5M2, 3 matmul in order.
inline std::size_t run_and_count_differences(const Workload& w, int kind) {
  std::size_t wrong = 0;
  switch (kind % 4) {
    case 0: {
      std::vector<std::uint8_t> out(kCount);
      simd::quantize<E4M3>(w.in.data(), kCount, out.data());
      for (std::size_t i = 0; i < kCount; ++i) wrong += out[i] != w.e4m3[i];
      break;
    }
    case 1: {
      std::vector<std::uint16_t> out(kCount);
      simd::quantize<BF16>(w.in.data(), kCount, out.data());
      for (std::size_t i = 0; i < kCount; ++i) wrong += out[i] != w.bf16[i];
      break;
    }
    case 2: {
      std::vector<float> out(kCount);
      simd::round_trip<E5M2>(w.in.data(), kCount, out.data());
      for (std::size_t i = 0; i < kCount; ++i) wrong += !same_float(out[i], w.e5m2_round_trip[i]);
      break;
    }
    default: {
      std::vector<float> c(kM * kN, -1.0f);
      matmul<E4M3, E4M3>(w.a.data(), w.b.data(), c.data(), kM, kN, kK, MatmulSummation::in_order);
      for (std::size_t e = 0; e < c.size(); ++e) wrong += bits_of(c[e]) != bits_of(w.product[e]);
      break;
    }
  }
  return wrong;
}

}  // namespace softfloat::threads_test
