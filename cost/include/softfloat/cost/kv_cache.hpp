// The KV cache, and what fits on one device: attention keeps, for every token of the
// context, a key and a value vector per KV head in every layer, so
//
//   kv_cache_bytes_per_token = 2 (K and V) * layers * kv_heads * head_dim * bytes per value
//
// Llama-3-70B (80 layers, 8 KV heads of 128) in bf16: 2 * 80 * 8 * 128 * 2 = 327680
// bytes per token; in e4m3 163840. What is left of a device's memory after the weights
// holds the cache:
//
//   max_cache_tokens = floor((memory - weight bytes) / cache bytes per token)
//
// 80e9 bytes (decimal, as the device's "80 GB"), e4m3 weights (70e9 bytes): 10e9 bytes
// left, 10e9 / 327680 = 30517.6 -> 30517 tokens with a bf16 cache and 10e9 / 163840 =
// 61035.2 -> 61035 with an e4m3 cache; bf16 weights (140e9 bytes) do not fit at all.
// The count is for the cache alone: activations and workspace take their share too, so
// it is an upper bound.
#pragma once

#include <cmath>
#include <cstdint>

#include "softfloat/cost/arguments.hpp"
#include "softfloat/cost/format_bytes.hpp"
#include "softfloat/cost/weights.hpp"

namespace softfloat::cost {

// What the KV cache and the weights of a decoder-only transformer depend on.
struct ModelShape {
  double params;             // parameters, all stored in the weight format
  std::uint64_t layers;      // transformer blocks, each with its own cache
  std::uint64_t kv_heads;    // key/value heads per layer (fewer than query heads under GQA)
  std::uint64_t head_dim;    // elements of one head's key (and value) vector
};

// Llama 3 70B (Meta, "The Llama 3 Herd of Models", 2024, table 3): 80 layers, model
// dimension 8192 in 64 query heads of 128, grouped-query attention with 8 KV heads; the
// nominal 70e9 parameters (70.6e9 counted).
inline constexpr ModelShape LLAMA3_70B_SHAPE{70e9, 80, 8, 128};

// Bytes of the keys and values that one token adds to the cache:
// 2 * layers * kv_heads * head_dim * bytes per value of `format`.
inline double kv_cache_bytes_per_token(std::uint64_t layers, std::uint64_t kv_heads, std::uint64_t head_dim,
                                       const StorageFormat& format) {
  detail::require_at_least_one(layers, "kv_cache_bytes_per_token", "the number of layers");
  detail::require_at_least_one(kv_heads, "kv_cache_bytes_per_token", "the number of KV heads");
  detail::require_at_least_one(head_dim, "kv_cache_bytes_per_token", "the head dimension");
  return 2 * double(layers) * double(kv_heads) * double(head_dim) * format.bytes_per_value();
}

inline double kv_cache_bytes_per_token(const ModelShape& shape, const StorageFormat& format) {
  return kv_cache_bytes_per_token(shape.layers, shape.kv_heads, shape.head_dim, format);
}

// Tokens of cache that fit in `memory_bytes` beside `weight_bytes` of weights:
// floor((memory - weights) / cache bytes per token), 0 when the weights alone do not fit.
inline std::uint64_t max_cache_tokens(double memory_bytes, double weight_bytes, double cache_bytes_per_token) {
  detail::require_positive(memory_bytes, "max_cache_tokens", "the device memory in bytes");
  detail::require_non_negative(weight_bytes, "max_cache_tokens", "the weight bytes");
  detail::require_positive(cache_bytes_per_token, "max_cache_tokens", "the cache bytes per token");
  if (weight_bytes >= memory_bytes) return 0;
  const double tokens = std::floor((memory_bytes - weight_bytes) / cache_bytes_per_token);
  if (tokens >= 0x1p64)
    detail::reject_argument("max_cache_tokens", "the token count", "below 2^64", tokens);
  return std::uint64_t(tokens);
}

// One device holding a model's weights and as much KV cache as fits.
struct DeviceFit {
  double memory_bytes = 0;
  double weight_bytes = 0;
  double cache_bytes_per_token = 0;
  double free_bytes = 0;                 // memory - weights; negative when they do not fit
  bool weights_fit = false;              // weights < memory
  std::uint64_t max_cache_tokens = 0;    // 0 when the weights do not fit
};

inline DeviceFit fit_on_device(double memory_bytes, const ModelShape& shape, const StorageFormat& weights,
                               const StorageFormat& cache) {
  DeviceFit fit;
  fit.memory_bytes = detail::require_positive(memory_bytes, "fit_on_device", "the device memory in bytes");
  fit.weight_bytes = weight_bytes(shape.params, weights);
  fit.cache_bytes_per_token = kv_cache_bytes_per_token(shape, cache);
  fit.free_bytes = memory_bytes - fit.weight_bytes;
  fit.weights_fit = fit.weight_bytes < memory_bytes;
  fit.max_cache_tokens = max_cache_tokens(memory_bytes, fit.weight_bytes, fit.cache_bytes_per_token);
  return fit;
}

// max_cache_tokens for a model shape: its weights in `weights`, its cache in `cache`.
inline std::uint64_t max_cache_tokens(double memory_bytes, const ModelShape& shape, const StorageFormat& weights,
                                      const StorageFormat& cache) {
  return fit_on_device(memory_bytes, shape, weights, cache).max_cache_tokens;
}

}  // namespace softfloat::cost
