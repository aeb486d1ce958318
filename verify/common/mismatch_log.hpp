// Checking many inputs at once: a loop over millions of inputs counts the
// mismatches and keeps the first few for the message, instead of building a
// GoogleTest assertion per input. Shared by the MPFR-backed suites.
#pragma once

#include <gtest/gtest.h>

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <type_traits>
#include <utility>

namespace softfloat::test_support {

// "0x7e": codes in messages.
inline std::string hex(std::uint64_t code) {
  char text[32];
  std::snprintf(text, sizeof text, "0x%llx", static_cast<unsigned long long>(code));
  return text;
}

class MismatchLog {
 public:
  explicit MismatchLog(std::string what) : what_(std::move(what)) {}

  // `describe_input` is only called for a mismatch.
  template <class Describe>
  void check(std::uint64_t got, std::uint64_t expected, Describe&& describe_input) {
    ++checked_;
    if (got == expected) return;
    fail([&] { return describe_input() + ": library " + hex(got) + ", expected " + hex(expected); });
  }
  // got[i] against expected[i] for i < n, as bits (a float's bits, NaN payloads too): the
  // arrays are compared whole first and element by element only when they differ, so
  // that n agreeing values cost one memcmp rather than n calls. Each element still
  // counts as checked. (A call per element was most of the SIMD suites' time under the
  // sanitizers, whose -O1 inlines none of it: the tf32 case of
  // ArrayConversion.QuantizeMatchesScalarOnEveryTarget took 227 s there.)
  // describe_input(i) names input i, for a mismatch.
  template <class Got, class Expected, class Describe>
  void check_each(const Got* got, const Expected* expected, std::size_t n, Describe&& describe_input) {
    static_assert(sizeof(Got) == sizeof(Expected) && std::is_trivially_copyable_v<Got> &&
                      std::is_trivially_copyable_v<Expected>,
                  "check_each compares the bits of values of one width");
    if (n == 0 || std::memcmp(got, expected, n * sizeof(Got)) == 0) {
      checked_ += n;
      return;
    }
    for (std::size_t i = 0; i < n; ++i) check(bits_of(got[i]), bits_of(expected[i]), [&] { return describe_input(i); });
  }

  template <class Describe>
  void check_true(bool ok, Describe&& describe_failure) {
    ++checked_;
    if (!ok) fail(describe_failure);
  }
  std::size_t checked() const { return checked_; }
  std::size_t failed() const { return failed_; }

  // For EXPECT_TRUE(log.result()). A log that checked nothing fails: a loop that
  // silently ran zero times must not pass.
  ::testing::AssertionResult result() const {
    if (checked_ == 0) return ::testing::AssertionFailure() << what_ << ": nothing was checked";
    if (failed_ == 0) return ::testing::AssertionSuccess() << what_ << ": " << checked_ << " cases agree";
    return ::testing::AssertionFailure() << what_ << ": " << failed_ << " of " << checked_
                                         << " cases differ from the expected values; first ones:" << examples_;
  }

 private:
  template <class T>
  static std::uint64_t bits_of(T value) {
    if constexpr (std::is_integral_v<T>) return std::uint64_t(value);
    else if constexpr (sizeof(T) == 4) return std::bit_cast<std::uint32_t>(value);
    else return std::bit_cast<std::uint64_t>(value);
  }
  template <class Describe>
  void fail(Describe&& describe_failure) {
    if (++failed_ <= kShown) examples_ += "\n  " + describe_failure();
  }
  static constexpr std::size_t kShown = 12;
  std::string what_;
  std::string examples_;
  std::size_t checked_ = 0;
  std::size_t failed_ = 0;
};

}  // namespace softfloat::test_support
