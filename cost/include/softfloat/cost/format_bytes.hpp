// Bytes per value: what one number of a format takes in memory, as the library lays it
// out, so that every other cost (weights, KV cache, traffic, transfers) follows from
// the same definitions as the conversions.
//
//   plain formats   the codes as the library stores them: 4- and 6-bit formats packed
//                   (two E2M1 codes a byte, four E3M2 / E2M3 codes in three bytes, as
//                   simd::quantize_packed), every other width in its code type
//                   Float<...>::storage_type (8, 16, 32 or 64 bits; TF32's 19 bits
//                   take 32). bf16 16 bits, e4m3 8, e2m1 4, e3m2 6.
//   MX formats      elements as softfloat::mx lays them out (mx::element_bits) plus one
//                   E8M0 scale (8 bits) per block of mx::Options{}.block_size = 32
//                   values: MXFP4 = 4 + 8 / 32 = 4.25 bits, MXFP6 6.25, MXFP8 8.25.
//   NVFP4           E2M1 elements plus one E4M3 scale per nvfp4::kBlockSize = 16
//                   values: 4 + 8 / 16 = 4.5 bits (and one fp32 per tensor, which is
//                   not a per-value cost and is left out).
//
// A StorageFormat converts implicitly from a Format (format_of<BF16>(), BF16::format,
// parse_format("e4m3")) and from a spec string, which accepts the format specs of
// parse_format() and the block-scaled names mxfp8_e4m3, mxfp8_e5m2, mxfp6_e3m2,
// mxfp6_e2m3, mxfp4_e2m1 (or mxfp4), mxint8 and nvfp4; so every cost function that
// takes one can be called as f(..., "e4m3"), f(..., format_of<E4M3>()) or f(..., "mxfp4").
#pragma once

#include <algorithm>
#include <cctype>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

#include "softfloat/cost/arguments.hpp"
#include "softfloat/escape.hpp"
#include "softfloat/float.hpp"
#include "softfloat/format.hpp"
#include "softfloat/format_spec.hpp"
#include "softfloat/mx.hpp"
#include "softfloat/named_formats.hpp"
#include "softfloat/nvfp4.hpp"

namespace softfloat::cost {

class StorageFormat;
StorageFormat parse_storage_format(std::string_view spec);

// How the values of a format lie in memory: element codes of `element_bits()` bits each,
// and, for block-scaled formats, one scale of `scale_bits()` bits per `block_size()`
// values.
class StorageFormat {
 public:
  // A plain format, stored as the library stores its codes (see the top of this file).
  // Throws std::invalid_argument for an invalid Format.
  StorageFormat(const Format& format)  // implicit: a Format is a StorageFormat without scales
      : element_(format), element_bits_(plain_element_bits(format)), name_(format_name(format)) {}
  // A spec: parse_format()'s grammar or a block-scaled name (mxfp4, nvfp4, ...).
  StorageFormat(std::string_view spec) : StorageFormat(parse_storage_format(spec)) {}
  StorageFormat(const char* spec) : StorageFormat(std::string_view(spec)) {}
  StorageFormat(const std::string& spec) : StorageFormat(std::string_view(spec)) {}

  // Elements of `element` bits in `element_bits` bits each, with a `scale`-format scale
  // per `block_size` values; `name` is what name() returns. For new block-scaled
  // schemes: mx_storage_format() and nvfp4_storage_format() build the library's own.
  static StorageFormat block_scaled(const Format& element, int element_bits, const Format& scale,
                                    std::size_t block_size, std::string name) {
    if (!element.valid() || !scale.valid())
      throw std::invalid_argument("softfloat::cost::StorageFormat: invalid element or scale format");
    if (element_bits < element.total_bits() || element_bits > 64)
      throw std::invalid_argument("softfloat::cost::StorageFormat: " + std::to_string(element_bits) +
                                  " bits per element cannot store the " + std::to_string(element.total_bits()) +
                                  "-bit elements of " + name);
    detail::require_at_least_one(block_size, "StorageFormat::block_scaled", "the block size");
    StorageFormat storage(element);
    storage.element_bits_ = element_bits;
    storage.scale_ = scale;
    storage.scale_bits_ = (scale.total_bits() + 7) / 8 * 8;  // each scale in whole bytes
    storage.block_size_ = block_size;
    storage.name_ = std::move(name);
    return storage;
  }

  const Format& element() const { return element_; }
  // Bits one element code takes in memory (packed where the library packs).
  int element_bits() const { return element_bits_; }
  bool is_block_scaled() const { return block_size_ != 0; }
  // The scale format (none without block scaling), the bits one scale takes in memory
  // (whole bytes; 0 without) and the values per scale (0 without).
  const std::optional<Format>& scale() const { return scale_; }
  int scale_bits() const { return scale_bits_; }
  std::size_t block_size() const { return block_size_; }
  // "bf16", "e4m3", "mxfp4_e2m1", "nvfp4".
  const std::string& name() const { return name_; }

  // Average bits per value in a long array: element bits plus the scale's share.
  double bits_per_value() const {
    return element_bits_ + (block_size_ != 0 ? double(scale_bits_) / double(block_size_) : 0.0);
  }
  double bytes_per_value() const { return bits_per_value() / 8; }

  // Bytes of an array of `count` values, rounded up to whole bytes and whole blocks as
  // the library's buffers are: ceil(count * element bits / 8) for the elements (what
  // simd::packed_size and mx::element_bytes give) plus ceil(count / block) scales (what
  // mx::scale_count and nvfp4::scale_count give) of scale_bits / 8 bytes.
  std::uint64_t storage_bytes(std::uint64_t count) const {
    constexpr std::uint64_t most = ~std::uint64_t{0};
    if (count > most / 64)
      detail::reject_argument("StorageFormat::storage_bytes", "the value count", "below 2^58", double(count));
    const std::uint64_t element_bytes = (count * std::uint64_t(element_bits_) + 7) / 8;
    if (block_size_ == 0) return element_bytes;
    const std::uint64_t blocks = count / block_size_ + (count % block_size_ != 0 ? 1 : 0);
    return element_bytes + blocks * std::uint64_t(scale_bits_ / 8);
  }

  friend bool operator==(const StorageFormat&, const StorageFormat&) = default;

 private:
  // 4 and 6 bits pack (simd::packed_size); the rest take their Float storage type,
  // the smallest of 8, 16, 32 and 64 bits that holds them.
  static int plain_element_bits(const Format& format) {
    if (!format.valid())
      throw std::invalid_argument("softfloat::cost::StorageFormat: invalid format: " +
                                  std::string(describe(format.problem())));
    const int bits = format.total_bits();
    if (bits == 4 || bits == 6) return bits;
    return bits <= 8 ? 8 : bits <= 16 ? 16 : bits <= 32 ? 32 : 64;
  }

  Format element_;
  int element_bits_ = 0;
  std::optional<Format> scale_;
  int scale_bits_ = 0;
  std::size_t block_size_ = 0;
  std::string name_;
};

// The storage of a Float type: storage_format_of<BF16>() is 16 bits per value.
template <class F>
  requires FloatType<F>
StorageFormat storage_format_of() {
  return StorageFormat(format_of<F>());
}

// An OCP MX format: mx::element_bits(element) bits per element, an E8M0 scale per
// block (32 values by default, the specification's k).
inline StorageFormat mx_storage_format(mx::Element element, std::size_t block_size = mx::Options{}.block_size) {
  return StorageFormat::block_scaled(mx::element_format(element), mx::element_bits(element), format_of<E8M0>(),
                                     block_size, std::string(mx::element_name(element)));
}

// NVFP4: E2M1 elements, an E4M3 scale per 16 values (the per-tensor fp32 left out).
inline StorageFormat nvfp4_storage_format() {
  return StorageFormat::block_scaled(format_of<E2M1>(), format_of<E2M1>().total_bits(), format_of<E4M3>(),
                                     nvfp4::kBlockSize, "nvfp4");
}

// A spec of parse_format() or a block-scaled name: mxfp8_e4m3, mxfp8_e5m2, mxfp6_e3m2,
// mxfp6_e2m3, mxfp4_e2m1, mxint8 (mx::parse_element's names), mxfp4 (the one MXFP4,
// E2M1) and nvfp4; case does not matter. Anything else throws std::invalid_argument:
// a name starting "mx" or "nv" with the block-scaled names, any other with
// parse_format()'s message, to which an unknown name also gets the block-scaled names.
inline StorageFormat parse_storage_format(std::string_view spec) {
  constexpr std::string_view block_scaled =
      "mxfp8_e4m3 mxfp8_e5m2 mxfp6_e3m2 mxfp6_e2m3 mxfp4_e2m1 (mxfp4) mxint8 nvfp4";
  std::string lower(spec);
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  if (lower == "nvfp4") return nvfp4_storage_format();
  if (lower == "mxfp4") return mx_storage_format(mx::Element::fp4_e2m1);
  for (const mx::Element element : mx::kAllElements)
    if (lower == mx::element_name(element)) return mx_storage_format(element);
  if (lower.rfind("mx", 0) == 0 || lower.rfind("nv", 0) == 0)
    throw std::invalid_argument("invalid format spec '" + escape_unprintable(spec) +
                                "': unknown block-scaled format; expected " + std::string(block_scaled) +
                                ", or a format spec such as bf16 or e4m3");
  try {
    return StorageFormat(parse_format(spec));
  } catch (const std::invalid_argument& error) {
    // parse_format() lists what it accepts when it does not know the name at all
    // ("expected a named format ..."); there the block-scaled names belong to the list.
    std::string message = error.what();
    if (message.find("expected a named format") != std::string::npos)
      message += "; or block-scaled: " + std::string(block_scaled);
    throw std::invalid_argument(message);
  }
}

}  // namespace softfloat::cost
