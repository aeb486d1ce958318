// The memory rules every array entry point (softfloat/simd.hpp, mx.hpp, nvfp4.hpp)
// checks, stated once:
//   - n elements of `size` bytes must be addressable: n * size fits std::size_t;
//   - an output may be its input itself (out == in) when both hold elements of the same
//     size (float -> float, float -> uint32_t codes and back): every element is read
//     before its own result is written, and each conversion is element by element;
//   - any other overlap is refused: a result would land on an input not yet read (a
//     shifted range) or on the wrong element (1-byte codes over 4-byte floats).
// `where` names the caller ("softfloat::simd::quantize: ") and starts every message:
// a std::string, a C string, or a Caller, which builds the text only when a check fails
// (the checks run on every call, where an allocation would cost more than converting
// 16 values).
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>

namespace softfloat::detail {

// A caller named by its scope and function, "softfloat::nvfp4::" and "quantize": the
// message prefix "softfloat::nvfp4::quantize: " made only when it is needed.
struct Caller {
  const char* scope;
  const char* function;
  std::string text() const { return std::string(scope) + function + ": "; }
};
inline std::string text_of(const Caller& where) { return where.text(); }
inline const std::string& text_of(const std::string& where) { return where; }
inline std::string text_of(const char* where) { return where; }

// n * size, or std::invalid_argument when it leaves std::size_t.
template <class Where>
std::size_t checked_bytes(const Where& where, std::size_t n, std::size_t size, const char* what) {
  if (size != 0 && n > std::numeric_limits<std::size_t>::max() / size)
    throw std::invalid_argument(text_of(where) + std::to_string(n) + " " + what + " of " + std::to_string(size) +
                                " bytes are more than std::size_t can address");
  return n * size;
}

inline bool overlap(const void* a, std::size_t a_bytes, const void* b, std::size_t b_bytes) {
  if (a_bytes == 0 || b_bytes == 0) return false;
  const auto a_start = reinterpret_cast<std::uintptr_t>(a), b_start = reinterpret_cast<std::uintptr_t>(b);
  return a_start < b_start + b_bytes && b_start < a_start + a_bytes;
}

// Two buffers that must not share a byte (two outputs, or an input and an output of
// different roles).
template <class Where>
void check_disjoint(const Where& where, const void* a, std::size_t a_bytes, const char* a_name, const void* b,
                    std::size_t b_bytes, const char* b_name) {
  if (overlap(a, a_bytes, b, b_bytes))
    throw std::invalid_argument(text_of(where) + "the " + std::string(a_name) + " and the " + b_name +
                                " overlap; they must be separate buffers");
}

// An input of elements of in_size bytes and an output of elements of out_size bytes,
// in_bytes and out_bytes long: separate, or the same memory when the element sizes match.
template <class Where>
void check_in_place(const Where& where, const void* in, std::size_t in_bytes, std::size_t in_size, const void* out,
                    std::size_t out_bytes, std::size_t out_size) {
  if (!overlap(in, in_bytes, out, out_bytes)) return;
  if (in == out && in_size == out_size) return;
  if (in_size == out_size)
    throw std::invalid_argument(text_of(where) +
                                "the output overlaps the input without starting at it; in place, out must equal in");
  throw std::invalid_argument(text_of(where) + "the output overlaps the input, whose elements have " +
                              std::to_string(in_size) + " bytes and the output's " + std::to_string(out_size) +
                              "; in place (out == in) is allowed only where the two sizes match");
}

}  // namespace softfloat::detail
