// The KV cache and fit (softfloat/cost/kv_cache.hpp): Llama-3-70B's 327680 bytes per
// token in bf16, 30517 tokens beside e4m3 weights on 80e9 bytes with a bf16 cache and
// 61035 with an e4m3 cache, weights that do not fit, and the argument checks.
#include <gtest/gtest.h>

#include <stdexcept>

#include "softfloat/cost/kv_cache.hpp"
#include "softfloat/named_formats.hpp"

namespace softfloat::cost {
namespace {

TEST(KvCache, Llama3SeventyBShape) {
  EXPECT_EQ(LLAMA3_70B_SHAPE.params, 70e9);
  EXPECT_EQ(LLAMA3_70B_SHAPE.layers, 80u);
  EXPECT_EQ(LLAMA3_70B_SHAPE.kv_heads, 8u);
  EXPECT_EQ(LLAMA3_70B_SHAPE.head_dim, 128u);
}

TEST(KvCache, BytesPerToken) {
  EXPECT_EQ(kv_cache_bytes_per_token(80, 8, 128, "bf16"), 327680.0);  // 2 * 80 * 8 * 128 * 2
  EXPECT_EQ(kv_cache_bytes_per_token(LLAMA3_70B_SHAPE, format_of<BF16>()), 327680.0);
  EXPECT_EQ(kv_cache_bytes_per_token(LLAMA3_70B_SHAPE, "e4m3"), 163840.0);
  EXPECT_EQ(kv_cache_bytes_per_token(LLAMA3_70B_SHAPE, "fp32"), 655360.0);
  EXPECT_EQ(kv_cache_bytes_per_token(LLAMA3_70B_SHAPE, "mxfp4"), 87040.0);  // 163840 * 4.25 / 8
  EXPECT_EQ(kv_cache_bytes_per_token(1, 1, 1, "bf16"), 4.0);                // one key and one value
}

TEST(KvCache, TokensBesideTheWeights) {
  // e4m3 weights, 70e9 bytes, leave 10e9 of 80e9: 10e9 / 327680 = 30517.58 and
  // 10e9 / 163840 = 61035.16.
  EXPECT_EQ(max_cache_tokens(80e9, LLAMA3_70B_SHAPE, "e4m3", "bf16"), 30517u);
  EXPECT_EQ(max_cache_tokens(80e9, LLAMA3_70B_SHAPE, "e4m3", "e4m3"), 61035u);
  EXPECT_EQ(max_cache_tokens(80e9, 70e9, 327680), 30517u);
  // MXFP4 weights leave 42.8125e9: 130653.38 tokens of bf16 cache.
  EXPECT_EQ(max_cache_tokens(80e9, LLAMA3_70B_SHAPE, "mxfp4", "bf16"), 130653u);
  const DeviceFit fit = fit_on_device(80e9, LLAMA3_70B_SHAPE, "e4m3", "bf16");
  EXPECT_EQ(fit.memory_bytes, 80e9);
  EXPECT_EQ(fit.weight_bytes, 70e9);
  EXPECT_EQ(fit.cache_bytes_per_token, 327680.0);
  EXPECT_EQ(fit.free_bytes, 10e9);
  EXPECT_TRUE(fit.weights_fit);
  EXPECT_EQ(fit.max_cache_tokens, 30517u);
  // Exactly one token's worth left, and one byte short of it.
  EXPECT_EQ(max_cache_tokens(1000 + 327680, 1000, 327680), 1u);
  EXPECT_EQ(max_cache_tokens(1000 + 327679, 1000, 327680), 0u);
}

TEST(KvCache, WeightsThatDoNotFit) {
  // bf16 weights are 140e9 bytes: 60e9 more than the device holds.
  const DeviceFit fit = fit_on_device(80e9, LLAMA3_70B_SHAPE, "bf16", "bf16");
  EXPECT_FALSE(fit.weights_fit);
  EXPECT_EQ(fit.free_bytes, -60e9);
  EXPECT_EQ(fit.max_cache_tokens, 0u);
  EXPECT_EQ(max_cache_tokens(80e9, 80e9, 327680), 0u);  // weights fill it exactly
}

TEST(KvCacheErrors, BadArguments) {
  EXPECT_THROW(kv_cache_bytes_per_token(0, 8, 128, "bf16"), std::invalid_argument);
  EXPECT_THROW(kv_cache_bytes_per_token(80, 0, 128, "bf16"), std::invalid_argument);
  EXPECT_THROW(kv_cache_bytes_per_token(80, 8, 0, "bf16"), std::invalid_argument);
  EXPECT_THROW(kv_cache_bytes_per_token(80, 8, 128, "bogus"), std::invalid_argument);
  EXPECT_THROW(max_cache_tokens(0, 70e9, 327680), std::invalid_argument);
  EXPECT_THROW(max_cache_tokens(-80e9, 70e9, 327680), std::invalid_argument);
  EXPECT_THROW(max_cache_tokens(80e9, -1, 327680), std::invalid_argument);
  EXPECT_THROW(max_cache_tokens(80e9, 70e9, 0), std::invalid_argument);
  EXPECT_THROW(max_cache_tokens(1e300, 0, 1e-300), std::invalid_argument);  // beyond 2^64 tokens
  EXPECT_THROW(fit_on_device(80e9, ModelShape{-1, 80, 8, 128}, "e4m3", "bf16"), std::invalid_argument);
  try {
    kv_cache_bytes_per_token(80, 0, 128, "bf16");
    FAIL() << "zero KV heads accepted";
  } catch (const std::invalid_argument& error) {
    EXPECT_STREQ(error.what(),
                 "softfloat::cost::kv_cache_bytes_per_token: the number of KV heads must be at least 1; got 0");
  }
}

}  // namespace
}  // namespace softfloat::cost
