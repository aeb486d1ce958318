// The conversions behind every Python entry point, on raw contiguous buffers: NumPy
// arrays (arrays.cpp) and torch tensors (tensor_buffers.cpp) hand their memory here,
// so both modules round the same way through the same code. Each call chooses its
// route by value type and format: the library's vectorised array functions, or the
// value-by-value definition (scalar_conversions.hpp) where they do not apply. Values come as float32,
// float64, float16 or bfloat16; codes as unsigned integers of 1, 2, 4 or 8 bytes. Each
// value is decoded exactly and rounded once into the format; a result written as
// float16 or bfloat16 is the format's value rounded to nearest even into that type (a
// second rounding only where the type cannot hold the value, e.g. fp16 values in a
// bfloat16 tensor; float32 output avoids it).
#pragma once

#include <cstddef>
#include <string>

#include "python/_src/conversion_options.hpp"
#include "softfloat/format.hpp"

namespace softfloat::python {

enum class FloatType { float32, float64, float16, bfloat16 };

// "float32", "float64", "float16", "bfloat16"; ValueError naming `function` otherwise.
FloatType read_float_type(const std::string& name, const char* function);
const char* float_type_name(FloatType type);
std::size_t float_type_bytes(FloatType type);

// Whether float32 holds every value of the format exactly.
bool values_fit_float(const Format& format);

// values -> codes (code_bytes must hold the format's bits).
void quantize_values(const void* in, FloatType in_type, std::size_t n, void* codes, int code_bytes,
                     const ConversionOptions& options);
// codes -> values. Codes are not checked here: see check_codes_fit.
void dequantize_codes(const void* codes, int code_bytes, std::size_t n, void* out, FloatType out_type,
                      const Format& format);
// values -> the nearest values of the format (fake quantization), in another buffer or
// in place (in == out with the same type).
void round_trip_values(const void* in, FloatType in_type, std::size_t n, void* out, FloatType out_type,
                       const ConversionOptions& options);

// ValueError, naming `function`, the first offending index and code, when a code has
// bits set above the format's width (which would otherwise be silently dropped).
void check_codes_fit(const void* codes, int code_bytes, std::size_t n, const Format& format, const char* function);
// The same for codes of `bits` bits that `what` describes ("e4m3's", "the"), in `rows`
// rows of `columns` codes that start `leading_dimension` codes apart (the flat index
// counts the codes of the rows only).
void check_code_width(const void* codes, int code_bytes, std::size_t rows, std::size_t columns,
                      std::size_t leading_dimension, int bits, const std::string& what, const char* function);

}  // namespace softfloat::python
