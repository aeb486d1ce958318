// Fuzz target: the array conversions on arbitrary bytes read as floats (or doubles, or
// codes), with random lengths, element offsets, formats, rounding modes, overflow
// policies and random streams, on a Highway target picked from those compiled and run
// by this CPU. Each result must equal the scalar definition:
//   quantize     round_to_format(decode(x), format, mode, policy, random_bits(seed, offset + i))
//   dequantize   round_to_format(decode(code), binary32), code bits above the width ignored
//   round_trip   the two in turn
//   packed       the same codes in a little-endian bit stream (4 or 6 bits; other
//                widths and short buffers refused)
//   MX, NVFP4    the libraries' scalar_* definitions, bit for bit, refusing the same
//                arguments
// and every output sits between guard bytes that must stay untouched.
#include <hwy/targets.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <vector>

#include "softfloat/exact_value.hpp"
#include "softfloat/mx.hpp"
#include "softfloat/nvfp4.hpp"
#include "softfloat/random_bits.hpp"
#include "softfloat/round_to_format.hpp"
#include "softfloat/simd.hpp"
#include "verify/fuzz/fuzz_input.hpp"

namespace {

using namespace softfloat;
using fuzz::fail;
using fuzz::FuzzInput;

// `n` elements of T at `offset` elements into a buffer whose every other byte, 64 on
// each side, holds a pattern that check_guards() expects unchanged. The guard is a
// whole number of 16-byte units, so that a byte buffer standing for floats (the MX and
// NVFP4 outputs) keeps the float alignment every caller owes the library.
template <class T>
class Guarded {
 public:
  static constexpr std::size_t kGuard = 64 / sizeof(T);
  static constexpr unsigned char kPattern = 0xA5;
  Guarded(std::size_t n, std::size_t offset) : n_(n), offset_(offset), storage_(2 * kGuard + offset + n) {
    std::memset(storage_.data(), kPattern, storage_.size() * sizeof(T));
  }
  T* data() { return storage_.data() + kGuard + offset_; }
  const T* data() const { return storage_.data() + kGuard + offset_; }
  std::size_t size() const { return n_; }
  void check_guards(const char* what) const {
    const auto* bytes = reinterpret_cast<const unsigned char*>(storage_.data());
    const std::size_t begin = (kGuard + offset_) * sizeof(T), end = begin + n_ * sizeof(T);
    for (std::size_t i = 0; i < storage_.size() * sizeof(T); ++i)
      if ((i < begin || i >= end) && bytes[i] != kPattern)
        fail("%s wrote outside its output: byte %td from the start of out[0, %zu)", what,
             std::ptrdiff_t(i) - std::ptrdiff_t(begin), n_);
  }

 private:
  std::size_t n_, offset_;
  std::vector<T> storage_;
};

template <class T>
void check_equal(const char* what, const T* got, const std::vector<T>& expected) {
  for (std::size_t i = 0; i < expected.size(); ++i)
    if (std::memcmp(&got[i], &expected[i], sizeof(T)) != 0) {
      std::uint64_t a = 0, b = 0;
      std::memcpy(&a, &got[i], sizeof(T));
      std::memcpy(&b, &expected[i], sizeof(T));
      fail("%s: element %zu of %zu is 0x%llx, the scalar definition gives 0x%llx", what, i, expected.size(),
           static_cast<unsigned long long>(a), static_cast<unsigned long long>(b));
    }
}

// Values read from the fuzz bytes (missing bytes read as zero), at an element offset.
template <class T>
Guarded<T> values(FuzzInput& input, std::size_t n, std::size_t offset) {
  Guarded<T> in(n, offset);
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint64_t bits = input.integer(int(sizeof(T)));
    std::memcpy(&in.data()[i], &bits, sizeof(T));
  }
  return in;
}

std::uint32_t float_bits_of(std::uint64_t code, const Format& f) {
  const std::uint64_t width_mask = f.total_bits() >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << f.total_bits()) - 1;
  return std::uint32_t(round_to_format(decode(code & width_mask, f), binary32_format));
}

struct Conversion {
  Format format;
  Rounding mode;
  Overflow policy;
  RandomStream random;
  std::size_t n, in_offset, out_offset;
};

template <class Value>
std::vector<std::uint64_t> expected_codes(const Value* in, const Conversion& c) {
  std::vector<std::uint64_t> codes(c.n);
  for (std::size_t i = 0; i < c.n; ++i)
    codes[i] = round_to_format(decode(in[i]), c.format, c.mode, c.policy, random_bits(c.random, i));
  return codes;
}

template <class Value, class Code>
void check_quantize(FuzzInput& input, const Conversion& c) {
  const Guarded<Value> in = values<Value>(input, c.n, c.in_offset);
  Guarded<Code> out(c.n, c.out_offset);
  simd::quantize(in.data(), c.n, out.data(), c.format, c.mode, c.policy, c.random);
  out.check_guards("quantize");
  std::vector<Code> expected;
  for (std::uint64_t code : expected_codes(in.data(), c)) expected.push_back(Code(code));
  check_equal("quantize", out.data(), expected);
}

template <class Code>
void check_dequantize(FuzzInput& input, const Conversion& c) {
  const Guarded<Code> in = values<Code>(input, c.n, c.in_offset);
  Guarded<float> out(c.n, c.out_offset);
  simd::dequantize(in.data(), c.n, out.data(), c.format);
  out.check_guards("dequantize");
  std::vector<std::uint32_t> expected;
  for (std::size_t i = 0; i < c.n; ++i) expected.push_back(float_bits_of(in.data()[i], c.format));
  check_equal("dequantize", reinterpret_cast<const std::uint32_t*>(out.data()), expected);
}

void check_round_trip(FuzzInput& input, const Conversion& c) {
  const Guarded<float> in = values<float>(input, c.n, c.in_offset);
  Guarded<float> out(c.n, c.out_offset);
  simd::round_trip(in.data(), c.n, out.data(), c.format, c.mode, c.policy, c.random);
  out.check_guards("round_trip");
  std::vector<std::uint32_t> expected;
  for (std::uint64_t code : expected_codes(in.data(), c)) expected.push_back(float_bits_of(code, c.format));
  check_equal("round_trip", reinterpret_cast<const std::uint32_t*>(out.data()), expected);
}

// Element i's `width` bits at bit i * width of a little-endian bit stream.
std::vector<std::uint8_t> packed_stream(const std::vector<std::uint64_t>& codes, int width) {
  std::vector<std::uint8_t> bytes((codes.size() * width + 7) / 8);
  for (std::size_t i = 0; i < codes.size(); ++i)
    for (int b = 0; b < width; ++b)
      if ((codes[i] >> b) & 1) bytes[(i * width + b) / 8] |= std::uint8_t(1u << ((i * width + b) % 8));
  return bytes;
}

// Calls `convert`, which must throw std::invalid_argument exactly when `refused`.
template <class Convert>
bool refused_as_documented(const char* what, bool refused, Convert convert) {
  try {
    convert();
  } catch (const std::invalid_argument&) {
    if (!refused) fail("%s refused valid arguments", what);
    return true;
  }
  if (refused) fail("%s accepted arguments it must refuse", what);
  return false;
}

void check_packed(FuzzInput& input, const Conversion& c, bool quantize) {
  const int width = c.format.total_bits();
  const bool packable = width == 4 || width == 6;
  const std::size_t needed = (c.n * std::size_t(width) + 7) / 8;
  const std::size_t bytes = packable ? needed - std::min<std::size_t>(needed, input.below(4) == 0) : needed;
  const bool refused = !packable || bytes < needed;
  Guarded<std::uint8_t> packed(bytes, c.out_offset);
  if (quantize) {
    const Guarded<float> in = values<float>(input, c.n, c.in_offset);
    if (refused_as_documented("quantize_packed", refused, [&] {
          simd::quantize_packed(in.data(), c.n, packed.data(), bytes, c.format, c.mode, c.policy, c.random);
        }))
      return;
    packed.check_guards("quantize_packed");
    check_equal("quantize_packed", packed.data(), packed_stream(expected_codes(in.data(), c), width));
    return;
  }
  for (std::size_t i = 0; i < bytes; ++i) packed.data()[i] = input.byte();
  Guarded<float> out(c.n, c.in_offset);
  if (refused_as_documented("dequantize_packed", refused,
                            [&] { simd::dequantize_packed(packed.data(), bytes, c.n, out.data(), c.format); }))
    return;
  out.check_guards("dequantize_packed");
  std::vector<std::uint32_t> expected;
  for (std::size_t i = 0; i < c.n; ++i) {
    std::uint64_t code = 0;
    for (int b = 0; b < width; ++b)
      code |= std::uint64_t((packed.data()[(i * width + b) / 8] >> ((i * width + b) % 8)) & 1) << b;
    expected.push_back(float_bits_of(code, c.format));
  }
  check_equal("dequantize_packed", reinterpret_cast<const std::uint32_t*>(out.data()), expected);
}

// Runs the vectorised and the scalar form of one call on guarded outputs of the same
// sizes: both refuse the arguments, or both write the same bytes inside the guards.
template <class Vector, class Scalar>
void check_against_scalar(const char* what, std::size_t size_a, std::size_t size_b, std::size_t offset,
                          Vector vectorised, Scalar scalar) {
  Guarded<std::uint8_t> a(size_a, offset), b(size_b, offset), a_ref(size_a, offset), b_ref(size_b, offset);
  bool refused = false, refused_ref = false;
  try {
    vectorised(a.data(), b.data());
  } catch (const std::invalid_argument&) {
    refused = true;
  }
  try {
    scalar(a_ref.data(), b_ref.data());
  } catch (const std::invalid_argument&) {
    refused_ref = true;
  }
  if (refused != refused_ref)
    fail("%s: the vectorised form %s arguments that the scalar one %s", what, refused ? "refused" : "accepted",
         refused_ref ? "refused" : "accepted");
  a.check_guards(what);
  b.check_guards(what);
  if (refused) return;
  check_equal(what, a.data(), std::vector<std::uint8_t>(a_ref.data(), a_ref.data() + size_a));
  check_equal(what, b.data(), std::vector<std::uint8_t>(b_ref.data(), b_ref.data() + size_b));
}

void check_mx(FuzzInput& input, const Conversion& c) {
  const mx::Element element = mx::kAllElements[input.below(std::size(mx::kAllElements))];
  mx::Options options;
  options.block_size = input.below(70);  // 0 and sizes that split packed bytes are refused
  options.rule = mx::ScaleRule(input.below(4));
  options.rounding = c.mode;
  options.random = c.random;
  const std::size_t blocks = options.block_size == 0 ? 1 : (c.n + options.block_size - 1) / options.block_size;
  const std::size_t element_bytes = mx::element_bytes(element, c.n) - (input.below(8) == 0 && c.n > 0);
  const std::size_t scales = blocks - (input.below(8) == 0 && blocks > 0);
  const Guarded<float> in = values<float>(input, c.n, c.in_offset);
  switch (input.below(3)) {
    case 0:
      check_against_scalar(
          "mx::quantize", element_bytes, scales, c.out_offset,
          [&](std::uint8_t* e, std::uint8_t* s) {
            mx::quantize(in.data(), c.n, e, element_bytes, s, scales, element, options);
          },
          [&](std::uint8_t* e, std::uint8_t* s) {
            mx::scalar_quantize(in.data(), c.n, e, element_bytes, s, scales, element, options);
          });
      break;
    case 1: {
      std::vector<std::uint8_t> elements(element_bytes), scale_codes(scales);
      for (auto& byte : elements) byte = input.byte();
      for (auto& byte : scale_codes) byte = input.byte();
      check_against_scalar(
          "mx::dequantize", c.n * sizeof(float), 0, c.out_offset * sizeof(float),
          [&](std::uint8_t* out, std::uint8_t*) {
            mx::dequantize(elements.data(), element_bytes, scale_codes.data(), scales, c.n,
                           reinterpret_cast<float*>(out), element, options);
          },
          [&](std::uint8_t* out, std::uint8_t*) {
            mx::scalar_dequantize(elements.data(), element_bytes, scale_codes.data(), scales, c.n,
                                  reinterpret_cast<float*>(out), element, options);
          });
      break;
    }
    default:
      check_against_scalar(
          "mx::round_trip", c.n * sizeof(float), 0, c.out_offset * sizeof(float),
          [&](std::uint8_t* out, std::uint8_t*) {
            mx::round_trip(in.data(), c.n, reinterpret_cast<float*>(out), element, options);
          },
          [&](std::uint8_t* out, std::uint8_t*) {
            mx::scalar_round_trip(in.data(), c.n, reinterpret_cast<float*>(out), element, options);
          });
  }
}

void check_nvfp4(FuzzInput& input, const Conversion& c) {
  const std::size_t element_bytes = nvfp4::element_bytes(c.n) - (input.below(8) == 0 && c.n > 0);
  const std::size_t scales = nvfp4::scale_count(c.n) - (input.below(8) == 0 && c.n > 0);
  if (input.flag()) {
    const Guarded<float> in = values<float>(input, c.n, c.in_offset);
    float amax = 0, amax_ref = 0;
    check_against_scalar(
        "nvfp4::quantize", element_bytes, scales, c.out_offset,
        [&](std::uint8_t* e, std::uint8_t* s) {
          nvfp4::quantize(in.data(), c.n, e, element_bytes, s, scales, &amax, c.mode, c.random);
        },
        [&](std::uint8_t* e, std::uint8_t* s) {
          nvfp4::scalar_quantize(in.data(), c.n, e, element_bytes, s, scales, &amax_ref, c.mode, c.random);
        });
    if (std::memcmp(&amax, &amax_ref, sizeof amax) != 0) fail("nvfp4::quantize: the tensor amax differs");
    return;
  }
  std::vector<std::uint8_t> elements(element_bytes), scale_codes(scales);
  for (auto& byte : elements) byte = input.byte();
  for (auto& byte : scale_codes) byte = input.byte();
  const std::uint32_t amax_bits = std::uint32_t(input.integer(4));
  float amax;
  std::memcpy(&amax, &amax_bits, sizeof amax);
  check_against_scalar(
      "nvfp4::dequantize", c.n * sizeof(float), 0, c.out_offset * sizeof(float),
      [&](std::uint8_t* out, std::uint8_t*) {
        nvfp4::dequantize(elements.data(), element_bytes, scale_codes.data(), scales, amax, c.n,
                          reinterpret_cast<float*>(out));
      },
      [&](std::uint8_t* out, std::uint8_t*) {
        nvfp4::scalar_dequantize(elements.data(), element_bytes, scale_codes.data(), scales, amax, c.n,
                                 reinterpret_cast<float*>(out));
      });
}

// The code type of a format of at most 32 bits: the smallest that holds it.
template <class Body>
void with_code_type(const Format& f, Body body) {
  if (f.total_bits() <= 8) body(std::uint8_t{});
  else if (f.total_bits() <= 16) body(std::uint16_t{});
  else body(std::uint32_t{});
}

// Forces one of the compiled targets that this CPU runs for HWY_DYNAMIC_DISPATCH, and
// lets the dispatch choose again afterwards.
struct ForcedTarget {
  explicit ForcedTarget(FuzzInput& input) {
    const auto targets = hwy::SupportedAndGeneratedTargets();
    hwy::SetSupportedTargetsForTest(targets[input.below(targets.size())]);
  }
  ~ForcedTarget() { hwy::SetSupportedTargetsForTest(0); }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  FuzzInput input(data, size);
  const ForcedTarget target(input);
  const int operation = int(input.below(8));
  // The packed forms take 4- and 6-bit formats, which small fields reach often.
  const bool packed = operation == 4 || operation == 5;
  const auto format = packed ? input.format(3, 4) : input.format_of_at_most(32);
  if (!format) return 0;
  Conversion c{*format, input.rounding(), input.overflow(), RandomStream{input.integer(8), input.integer(8)},
               std::size_t(input.below(300)), std::size_t(input.below(17)), std::size_t(input.below(17))};
  switch (operation) {
    case 0: with_code_type(c.format, [&](auto code) { check_quantize<float, decltype(code)>(input, c); }); break;
    case 1: with_code_type(c.format, [&](auto code) { check_quantize<double, decltype(code)>(input, c); }); break;
    case 2: with_code_type(c.format, [&](auto code) { check_dequantize<decltype(code)>(input, c); }); break;
    case 3: check_round_trip(input, c); break;
    case 4: check_packed(input, c, true); break;
    case 5: check_packed(input, c, false); break;
    case 6: check_mx(input, c); break;
    default: check_nvfp4(input, c); break;
  }
  return 0;
}
