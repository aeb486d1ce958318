// The fuzz targets' reading of libFuzzer's bytes: integers, flags, formats, rounding
// modes and values taken from the front of the input, so that each target decodes its
// case the same way and a mutation of one byte changes one choice. Once the bytes run
// out every read gives zero, so any input, even an empty one, is a valid case.
#pragma once

#include <cstdarg>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <span>
#include <string_view>

#include "softfloat/format.hpp"
#include "softfloat/rounding.hpp"
#include "verify/common/rounding_modes.hpp"

namespace softfloat::fuzz {

class FuzzInput {
 public:
  FuzzInput(const std::uint8_t* data, std::size_t size) : bytes_(data, size) {}

  // The next `count` bytes (at most 8), little-endian; missing bytes read as zero.
  std::uint64_t integer(int count) {
    std::uint64_t value = 0;
    for (int i = 0; i < count && !bytes_.empty(); ++i) {
      value |= std::uint64_t(bytes_.front()) << (8 * i);
      bytes_ = bytes_.subspan(1);
    }
    return value;
  }
  std::uint8_t byte() { return std::uint8_t(integer(1)); }
  bool flag() { return (byte() & 1) != 0; }
  // A number in [0, n) from as few bytes as n needs (n > 0).
  std::uint64_t below(std::uint64_t n) {
    int count = 1;
    while (count < 8 && (n - 1) >> (8 * count) != 0) ++count;
    return integer(count) % n;
  }

  // Any parameter set: exponent bits 1..max_exponent_bits (at most 11), mantissa bits
  // 0..max_mantissa_bits (at most 52), every convention, signed or not, with or without
  // zero, and a bias near the IEEE default or anywhere in the allowed range. Sets that
  // are not a format (Format::problem()) give nothing.
  std::optional<Format> format(int max_exponent_bits = 11, int max_mantissa_bits = 52) {
    Format f;
    f.exponent_bits = 1 + int(below(std::uint64_t(max_exponent_bits)));
    f.mantissa_bits = int(below(std::uint64_t(max_mantissa_bits) + 1));
    f.specials = Specials(below(5));
    const std::uint8_t shape = byte();
    f.is_signed = (shape & 1) == 0;
    f.has_zero = (shape & 6) != 0;  // three in four formats have zero and subnormals
    const int ieee_bias = (1 << (f.exponent_bits - 1)) - 1;
    if ((shape & 8) == 0) {
      f.bias = ieee_bias + int(std::int8_t(byte())) / 16;  // the default, moved by -8 .. 7
    } else {
      const int limit = (1 << 20) - 1;  // |bias| < 2^20 (FormatProblem::bias_out_of_range)
      f.bias = int(below(2 * limit + 1)) - limit;
    }
    if (!f.valid()) return std::nullopt;
    return f;
  }
  // A format whose codes fit `max_bits` bits.
  std::optional<Format> format_of_at_most(int max_bits) {
    const auto f = format();
    if (!f || f->total_bits() > max_bits) return std::nullopt;
    return f;
  }

  // The modes with one correct result (those MPFR's reference computes), or any mode.
  Rounding deterministic_rounding() {
    using test_support::kDeterministicRoundings;
    return kDeterministicRoundings[below(std::size(kDeterministicRoundings))];
  }
  Rounding rounding() { return Rounding(below(10)); }
  Overflow overflow() { return flag() ? Overflow::saturate : Overflow::standard; }

  // A code of `f`: any bits of its width.
  std::uint64_t code(const Format& f) {
    const std::uint64_t bits = integer(8);
    return f.total_bits() >= 64 ? bits : bits & ((std::uint64_t{1} << f.total_bits()) - 1);
  }

  bool empty() const { return bytes_.empty(); }
  std::span<const std::uint8_t> rest() const { return bytes_; }
  std::string_view rest_as_text() const {
    return {reinterpret_cast<const char*>(bytes_.data()), bytes_.size()};
  }

 private:
  std::span<const std::uint8_t> bytes_;
};

// A finding: what went wrong, printf-style on stderr, then abort(), which libFuzzer
// reports with the input saved (and the corpus driver as a failed test).
[[noreturn]] inline void fail(const char* format, ...) __attribute__((format(printf, 1, 2)));
inline void fail(const char* format, ...) {
  std::va_list arguments;
  va_start(arguments, format);
  std::vfprintf(stderr, format, arguments);
  va_end(arguments);
  std::fputc('\n', stderr);
  std::abort();
}

}  // namespace softfloat::fuzz
