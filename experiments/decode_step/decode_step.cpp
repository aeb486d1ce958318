// One decode step per weight format against this machine's bandwidth bound
// (softfloat/experiments/decode_step.hpp).
#include "softfloat/experiments/decode_step.hpp"

#include <algorithm>
#include <bit>
#include <chrono>
#include <cmath>
#include <cstring>
#include <functional>
#include <memory>
#include <stdexcept>
#include <variant>

#include "experiments/seeded_random.hpp"
#include "softfloat/block_scaled_matmul.hpp"
#include "softfloat/cost/format_bytes.hpp"
#include "softfloat/format_spec.hpp"
#include "softfloat/matmul.hpp"
#include "softfloat/random_bits.hpp"
#include "softfloat/simd.hpp"
#include "softfloat/threads.hpp"

namespace softfloat::experiments {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const std::size_t middle = values.size() / 2;
  return values.size() % 2 != 0 ? values[middle] : (values[middle - 1] + values[middle]) / 2;
}

// The largest finite value of a format, from its largest finite code.
float largest_finite(const Format& format) {
  const std::uint32_t code = std::uint32_t(format.max_finite_magnitude());
  float value = 0.0f;
  simd::dequantize(&code, 1, &value, format);
  return value;
}

// Per-tensor scaling for a format of narrow range: the power of two s that brings
// max |W| to at most the format's largest finite value (0 for a zero tensor), and then
// W * 2^s, exact.
int scale_exponent_for(const std::vector<float>& w, float largest) {
  float amax = 0.0f;
  for (float v : w) amax = std::max(amax, std::fabs(v));
  return amax > 0.0f ? int(std::floor(std::log2(double(largest) / double(amax)))) : 0;
}
std::vector<float> scaled(const std::vector<float>& w, int exponent) {
  std::vector<float> out(w.size());
  for (std::size_t i = 0; i < w.size(); ++i) out[i] = std::ldexp(w[i], exponent);
  return out;
}

// One layer's weights in a plain format: codes of W * 2^scale_exponent.
template <class Code>
struct PlainLayer {
  std::vector<Code> codes;
  int scale_exponent = 0;
};

// A format's layers and how to multiply by one of them: y = x * W.
class LayerStack {
 public:
  virtual ~LayerStack() = default;
  virtual void multiply(std::size_t layer, const float* x, float* y) const = 0;
  virtual double bytes() const = 0;  // every layer's elements and scales
};

// Plain formats (fp32, bf16, fp16, e4m3, e5m2): matmul's in-order matrix-vector path on
// their codes, per-tensor power-of-two scaling where the format's range is narrow.
template <class Code>
class PlainStack : public LayerStack {
 public:
  PlainStack(const std::vector<std::vector<float>>& weights, std::size_t d, const Format& format)
      : d_(d), format_(format) {
    const float largest = largest_finite(format);
    // Formats whose range is far from fp32's (fp16, the FP8s) are scaled; bf16's and
    // fp32's own range holds the weights, and scaling them up would overflow the sums.
    const bool narrow = largest < 0x1p64f;
    for (const auto& w : weights) {
      PlainLayer<Code> layer;
      layer.scale_exponent = narrow ? scale_exponent_for(w, largest) : 0;
      const std::vector<float> scaled_w = scaled(w, layer.scale_exponent);
      layer.codes.resize(w.size());
      simd::quantize(scaled_w.data(), scaled_w.size(), layer.codes.data(), format, Rounding::nearest_even,
                     Overflow::saturate);
      layers_.push_back(std::move(layer));
    }
  }
  void multiply(std::size_t layer, const float* x, float* y) const override {
    const PlainLayer<Code>& l = layers_[layer];
    std::memcpy(x_codes_.data(), x, d_ * sizeof(float));  // fp32 codes are x's bits
    matmul(x_codes_.data(), binary32_format, l.codes.data(), format_, y, 1, d_, d_);
    if (l.scale_exponent != 0)
      for (std::size_t j = 0; j < d_; ++j) y[j] = std::ldexp(y[j], -l.scale_exponent);
  }
  double bytes() const override {
    return double(layers_.size()) * double(d_ * d_) * double(format_.total_bits()) / 8.0;
  }

 private:
  std::size_t d_;
  Format format_;
  std::vector<PlainLayer<Code>> layers_;
  mutable std::vector<std::uint32_t> x_codes_ = std::vector<std::uint32_t>(d_);  // the timed loop allocates nothing
};

// E2M1 packed two a byte, plain: block-scaled matmul without scales, per-tensor scaling.
// Block-scaled formats: quantize_weights' blocks along k.
class BlockStack : public LayerStack {
 public:
  BlockStack(const std::vector<std::vector<float>>& weights, std::size_t d, mx::Element element,
             WeightScaling scaling)
      : d_(d) {
    const float largest = largest_finite(mx::element_format(element));
    for (const auto& w : weights) {
      const int scale_exponent = scaling == WeightScaling::none ? scale_exponent_for(w, largest) : 0;
      const std::vector<float> scaled_w = scaled(w, scale_exponent);
      layers_.push_back(quantize_weights(scaled_w.data(), d, d, element, scaling));
      scale_exponents_.push_back(scale_exponent);
    }
  }
  void multiply(std::size_t layer, const float* x, float* y) const override {
    matmul(x, layers_[layer].view(), y, 1);
    if (scale_exponents_[layer] != 0)
      for (std::size_t j = 0; j < d_; ++j) y[j] = std::ldexp(y[j], -scale_exponents_[layer]);
  }
  double bytes() const override {
    double total = 0;
    for (const auto& l : layers_) total += double(l.elements.size() + l.scales.size());
    return total;
  }

 private:
  std::size_t d_;
  std::vector<BlockScaledMatrix> layers_;
  std::vector<int> scale_exponents_;
};

std::unique_ptr<LayerStack> make_stack(const std::string& spec, const std::vector<std::vector<float>>& weights,
                                       std::size_t d) {
  std::string lower = spec;
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  if (lower == "nvfp4") return std::make_unique<BlockStack>(weights, d, mx::Element::fp4_e2m1, WeightScaling::nvfp4);
  if (lower == "mxfp4") return std::make_unique<BlockStack>(weights, d, mx::Element::fp4_e2m1, WeightScaling::mx);
  if (lower.rfind("mx", 0) == 0)
    return std::make_unique<BlockStack>(weights, d, mx::parse_element(lower), WeightScaling::mx);
  const Format format = parse_format(spec);
  if (format == E2M1::format)
    return std::make_unique<BlockStack>(weights, d, mx::Element::fp4_e2m1, WeightScaling::none);
  if (format.total_bits() <= 8) return std::make_unique<PlainStack<std::uint8_t>>(weights, d, format);
  if (format.total_bits() <= 16) return std::make_unique<PlainStack<std::uint16_t>>(weights, d, format);
  if (format.total_bits() <= 32) return std::make_unique<PlainStack<std::uint32_t>>(weights, d, format);
  throw std::invalid_argument("decode-step: format '" + spec + "' is wider than 32 bits");
}

// A value of unit variance and a normal-like bell: the sum of four uniforms on 16-bit
// grids from two 32-bit draws, centred and scaled by sqrt(3) (Irwin-Hall; tails end at
// +-3.46). Ten times cheaper than Box-Muller, which matters for 2^27 weights.
float bell_at(std::uint64_t seed, std::uint64_t index) {
  const std::uint32_t a = random_bits(seed, 2 * index), b = random_bits(seed, 2 * index + 1);
  const double sum = double(a & 0xFFFF) + double(a >> 16) + double(b & 0xFFFF) + double(b >> 16) + 2.0;
  return float((sum * 0x1p-16 - 2.0) * std::sqrt(3.0));
}

double relative_error(const std::vector<float>& y, const std::vector<double>& reference) {
  double difference = 0, norm = 0;
  for (std::size_t j = 0; j < y.size(); ++j) {
    difference += (double(y[j]) - reference[j]) * (double(y[j]) - reference[j]);
    norm += reference[j] * reference[j];
  }
  return norm > 0 ? std::sqrt(difference / norm) : std::sqrt(difference);
}

}  // namespace

double measure_read_bandwidth(std::size_t bytes, int repeats) {
  const std::size_t words = std::max<std::size_t>(bytes / sizeof(std::uint64_t), 1);
  std::vector<std::uint64_t> buffer(words);
  for (std::size_t i = 0; i < words; ++i) buffer[i] = i;
  double best = 0;
  volatile std::uint64_t sink = 0;
  for (int r = 0; r < std::max(repeats, 1); ++r) {
    const auto start = Clock::now();
    // Four independent sums, so that the loop is bound by the reads, not by one chain.
    std::uint64_t s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    std::size_t i = 0;
    for (; i + 4 <= words; i += 4) {
      s0 += buffer[i];
      s1 += buffer[i + 1];
      s2 += buffer[i + 2];
      s3 += buffer[i + 3];
    }
    for (; i < words; ++i) s0 += buffer[i];
    sink = sink + s0 + s1 + s2 + s3;
    const double seconds = seconds_since(start);
    best = std::max(best, double(words * sizeof(std::uint64_t)) / seconds);
  }
  return best;
}

DecodeStepResult run_decode_step(const DecodeStepOptions& options) {
  if (options.dim == 0 || options.layers == 0) throw std::invalid_argument("decode-step: dim and layers must be >= 1");
  if (options.repeats < 1) throw std::invalid_argument("decode-step: repeats must be >= 1");
  for (const auto& spec : options.formats) static_cast<void>(cost::parse_storage_format(spec));  // fail early
  const std::size_t d = options.dim;
  const double sigma = 1.0 / std::sqrt(double(d));
  std::vector<std::vector<float>> weights(options.layers, std::vector<float>(d * d));
  for (std::size_t l = 0; l < options.layers; ++l) {
    const std::uint64_t seed = detail::stream_seed(options.seed, 1 + l);
    for (std::size_t i = 0; i < d * d; ++i) weights[l][i] = float(sigma) * bell_at(seed, i);
  }
  std::vector<float> x0(d);
  const std::uint64_t input_seed = detail::stream_seed(options.seed, 0);
  for (std::size_t i = 0; i < d; ++i) x0[i] = float(detail::normal_at(input_seed, i));

  // The step in fp64 on the fp32 weights.
  std::vector<double> reference(x0.begin(), x0.end()), next(d);
  for (const auto& w : weights) {
    std::fill(next.begin(), next.end(), 0.0);
    for (std::size_t p = 0; p < d; ++p)
      for (std::size_t j = 0; j < d; ++j) next[j] += reference[p] * double(w[p * d + j]);
    reference.swap(next);
  }

  DecodeStepResult result;
  result.threads = num_threads();
  // The read bandwidth over a buffer as large as the fp32 weights, at least 256 MiB.
  result.bandwidth_bytes = std::max<std::size_t>(options.layers * d * d * sizeof(float), std::size_t{256} << 20);
  result.bandwidth = measure_read_bandwidth(result.bandwidth_bytes, 5);

  double fp32_ms = 0;
  for (const auto& spec : options.formats) {
    const std::unique_ptr<LayerStack> stack = make_stack(spec, weights, d);
    std::vector<float> x(d), y(d);
    std::vector<double> times;
    for (int r = 0; r < options.repeats; ++r) {
      x = x0;
      const auto start = Clock::now();
      for (std::size_t l = 0; l < options.layers; ++l) {
        stack->multiply(l, x.data(), y.data());
        x.swap(y);
      }
      times.push_back(seconds_since(start) * 1e3);
    }
    DecodeStepFormat row;
    row.spec = spec;
    row.bytes_per_weight = stack->bytes() / (double(options.layers) * double(d * d));
    row.ms_per_token = median(times);
    row.bound_ms = stack->bytes() / result.bandwidth * 1e3;
    row.fraction_of_bound = row.bound_ms / row.ms_per_token;
    row.relative_error = relative_error(x, reference);
    if (spec == "fp32") fp32_ms = row.ms_per_token;
    result.formats.push_back(row);
  }
  for (auto& row : result.formats) row.speedup_over_fp32 = fp32_ms > 0 ? fp32_ms / row.ms_per_token : 0;
  return result;
}

}  // namespace softfloat::experiments
