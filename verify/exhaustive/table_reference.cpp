// Table-lookup reference rounding (see table_reference.hpp). Every value comes from
// MPFR (reference_value); the special codes are found by decoding every code, so
// the only facts taken from the Format description are its field widths and sign bit.
#include "verify/exhaustive/table_reference.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <stdexcept>
#include <string>

#include "softfloat/verify/mpfr_reference.hpp"

namespace softfloat::verify {
namespace {

constexpr std::uint32_t float_infinity_bits = 0x7f80'0000;
constexpr std::uint32_t float_mantissa_mask = 0x007f'ffff;

// The exact value of a non-negative finite float given by its bits, computed
// without the FPU's float handling so that denormals-are-zero cannot touch it:
// subnormals are m * 2^-149, exact in double; normal floats widen exactly.
double magnitude_as_double(std::uint32_t magnitude_bits) {
  if (magnitude_bits <= float_mantissa_mask) return double(magnitude_bits) * 0x1p-149;
  return double(std::bit_cast<float>(magnitude_bits));
}

}  // namespace

TableReference::TableReference(const Format& format) : format_(format) {
  if (!format.valid() || format.total_bits() > 16)
    throw std::invalid_argument("TableReference: needs a valid format of at most 16 bits");
  const std::uint32_t code_count = std::uint32_t{1} << format.total_bits();
  const std::uint64_t sign_bit = format.sign_bit();

  // Decode every code with MPFR and sort the pieces by what they decode to.
  struct Entry {
    double value;
    std::uint16_t code;
  };
  std::vector<Entry> positive, negative;
  for (std::uint32_t code = 0; code < code_count; ++code) {
    const double value = reference_value(code, format);
    const bool code_negative = (code & sign_bit) != 0;
    if (std::isnan(value)) {
      (code_negative ? negative_nans_ : positive_nans_).push_back(std::uint16_t(code));
    } else if (std::isinf(value)) {
      has_infinity_ = true;
      (value > 0 ? positive_infinity_ : negative_infinity_) = std::uint16_t(code);
    } else if (std::signbit(value)) {
      negative.push_back({-value, std::uint16_t(code)});
    } else {
      positive.push_back({value, std::uint16_t(code)});
    }
  }
  auto by_value = [](const Entry& a, const Entry& b) { return a.value < b.value; };
  std::sort(positive.begin(), positive.end(), by_value);
  for (std::size_t i = 0; i < positive.size(); ++i) {
    if (i > 0 && positive[i].value == positive[i - 1].value)
      throw std::logic_error("TableReference: two codes decode to " + std::to_string(positive[i].value));
    values_.push_back(positive[i].value);
    codes_.push_back(positive[i].code);
  }
  if (values_.size() < 2) throw std::logic_error("TableReference: fewer than two finite values");

  // The negative of each value; -0 is kept apart (it is the zero code of a negative result).
  negative_codes_.assign(values_.size(), 0);
  for (const Entry& entry : negative) {
    if (entry.value == 0) {
      has_negative_zero_ = true;
      negative_zero_code_ = entry.code;
      continue;
    }
    const auto at = std::lower_bound(values_.begin(), values_.end(), entry.value);
    if (at == values_.end() || *at != entry.value)
      throw std::logic_error("TableReference: a negative value without a positive twin");
    negative_codes_[std::size_t(at - values_.begin())] = entry.code;
  }

  // Overflow: a value rounds beyond max when it exceeds max + half an ulp of max's
  // binade (2^(floor(log2 max) - M)); at exactly that midpoint the tie goes to the
  // even one of max and the code above it (max_code + 1), or up when M = 0.
  max_ = values_.back();
  const double max_binade_ulp = std::ldexp(1.0, std::ilogb(max_) - format.mantissa_bits);
  overflow_midpoint_ = max_ + max_binade_ulp / 2;
  ties_round_up_ = format.mantissa_bits == 0;
  overflow_tie_rounds_up_ = ties_round_up_ || (codes_.back() & 1u) != 0;

  // The search brackets, one per float magnitude bucket (bits >> 16).
  constexpr std::uint32_t bucket_count = 1u << 15;
  bucket_first_.assign(bucket_count, 0);
  bucket_last_.assign(bucket_count, std::uint32_t(values_.size() - 1));
  for (std::uint32_t bucket = 0; bucket < (float_infinity_bits >> 16); ++bucket) {
    const double smallest = magnitude_as_double(bucket << 16);
    const double largest = magnitude_as_double((bucket << 16) | 0xffff);
    const auto first = std::upper_bound(values_.begin(), values_.end(), smallest);
    const auto last = std::lower_bound(values_.begin(), values_.end(), largest);
    bucket_first_[bucket] = first == values_.begin() ? 0 : std::uint32_t(first - values_.begin() - 1);
    bucket_last_[bucket] = last == values_.end() ? std::uint32_t(values_.size() - 1) : std::uint32_t(last - values_.begin());
  }
}

// The code of the signed result whose magnitude is values_[index].
std::uint16_t TableReference::apply_sign(std::size_t index, bool negative) const {
  if (!negative) return codes_[index];
  if (values_[index] == 0) return has_negative_zero_ ? negative_zero_code_ : codes_[index];
  return negative_codes_[index];
}

// NaN input. A format without NaN gives +0 (the library's documented choice). A
// format with many NaN codes (IEEE style) gets the quiet NaN of the input's sign
// with the input's top payload bits: infinity | quiet bit | payload >> (23 - M),
// what the x86 conversion instructions produce. Otherwise the NaN code of the
// input's sign, or the only NaN code there is.
std::uint16_t TableReference::nan_code(bool negative, std::uint32_t float_mantissa) const {
  const auto& same_sign = negative ? negative_nans_ : positive_nans_;
  const auto& other_sign = negative ? positive_nans_ : negative_nans_;
  if (same_sign.empty() && other_sign.empty()) return apply_sign(0, false);
  if (same_sign.size() > 1) {
    const int m = format_.mantissa_bits;
    const std::uint32_t quiet_bit = 1u << (m - 1);
    const std::uint16_t infinity = negative ? negative_infinity_ : positive_infinity_;
    return std::uint16_t(infinity | quiet_bit | (float_mantissa >> (23 - m)));
  }
  return same_sign.empty() ? other_sign.front() : same_sign.front();
}

// Beyond the largest finite value: infinity, else NaN, else max.
std::uint16_t TableReference::overflow_code(bool negative) const {
  if (has_infinity_) return negative ? negative_infinity_ : positive_infinity_;
  if (!positive_nans_.empty() || !negative_nans_.empty()) return nan_code(negative, 0);
  return apply_sign(values_.size() - 1, negative);
}

// Inlined into both overloads so that the array loop makes no call per element.
inline __attribute__((always_inline)) std::uint16_t TableReference::round_one(float x) const {
  const std::uint32_t bits = std::bit_cast<std::uint32_t>(x);
  const bool negative = (bits >> 31) != 0;
  const std::uint32_t magnitude_bits = bits & 0x7fff'ffff;
  if (magnitude_bits > float_infinity_bits) return nan_code(negative, bits & float_mantissa_mask);
  // An unsigned format has no negative numbers: NaN, or its zero without NaN.
  if (negative && !format_.is_signed && magnitude_bits != 0) {
    if (!positive_nans_.empty()) return nan_code(false, 0);
    return apply_sign(0, false);
  }
  if (magnitude_bits == float_infinity_bits)
    return has_infinity_ ? (negative ? negative_infinity_ : positive_infinity_) : overflow_code(negative);

  const double magnitude = magnitude_as_double(magnitude_bits);
  if (magnitude >= max_) {
    if (magnitude == max_) return apply_sign(values_.size() - 1, negative);
    if (magnitude < overflow_midpoint_ || (magnitude == overflow_midpoint_ && !overflow_tie_rounds_up_))
      return apply_sign(values_.size() - 1, negative);
    return overflow_code(negative);
  }
  // Below the smallest value of a format without zero (E8M0): that value.
  if (magnitude <= values_.front()) return apply_sign(0, negative);

  const std::uint32_t bucket = magnitude_bits >> 16;
  const double* first = values_.data() + bucket_first_[bucket];
  const double* last = values_.data() + bucket_last_[bucket];
  // lower: the largest value <= magnitude; the bracket guarantees lower < last
  // unless magnitude equals *last.
  const std::size_t lower = std::size_t(std::upper_bound(first, last + 1, magnitude) - values_.data()) - 1;
  const double below = values_[lower];
  if (below == magnitude) return apply_sign(lower, negative);
  const double above = values_[lower + 1];
  // Exact: both neighbours have at most 16 significant bits and lie far inside
  // double's range, so their sum and its half are exact.
  const double midpoint = (below + above) / 2;
  std::size_t nearest = lower;
  if (magnitude > midpoint) {
    nearest = lower + 1;
  } else if (magnitude == midpoint) {
    // M = 0 has no even significand: a tie between two powers of two goes up (as
    // MPFR at precision 1), but a tie between zero and the smallest value goes to zero.
    const bool up = ties_round_up_ && below != 0;
    nearest = up || (codes_[lower] & 1u) != 0 ? lower + 1 : lower;
  }
  return apply_sign(nearest, negative);
}

std::uint16_t TableReference::round(float x) const { return round_one(x); }

void TableReference::round(const float* in, std::size_t n, std::uint16_t* out) const {
  for (std::size_t i = 0; i < n; ++i) out[i] = round_one(in[i]);
}

// Outside the NaN inputs, the code is a function of the rounded value and the rounded
// value is monotone in the input's magnitude, so consecutive float bits of one sign give
// each code as one unbroken run: the run's end is found by galloping and bisection with
// round_one, and the run filled. NaN inputs (whose payload codes need not be monotone)
// go one by one.
void TableReference::round_consecutive(std::uint32_t first_bits, std::size_t n, std::uint16_t* out) const {
  const auto round_bits = [this](std::uint32_t bits) { return round_one(std::bit_cast<float>(bits)); };
  std::size_t i = 0;
  while (i < n) {
    const std::uint32_t bits = first_bits + std::uint32_t(i);
    const std::uint32_t magnitude_bits = bits & 0x7fff'ffff;
    const std::uint16_t code = round_bits(bits);
    if (magnitude_bits > float_infinity_bits) {
      out[i++] = code;
      continue;
    }
    // Same sign and not NaN: up to the infinity of this sign.
    const std::size_t end = std::min<std::size_t>(n, i + (float_infinity_bits - magnitude_bits) + 1);
    std::size_t same = i;  // the last index known to give `code`
    std::size_t step = 1;
    std::size_t differs = end;  // the first index known to give another code, or end
    while (same + step < end) {
      if (round_bits(first_bits + std::uint32_t(same + step)) != code) {
        differs = same + step;
        break;
      }
      same += step;
      step *= 2;
    }
    while (differs - same > 1) {
      const std::size_t middle = same + (differs - same) / 2;
      if (round_bits(first_bits + std::uint32_t(middle)) == code)
        same = middle;
      else
        differs = middle;
    }
    std::fill(out + i, out + differs, code);
    i = differs;
  }
}

}  // namespace softfloat::verify
