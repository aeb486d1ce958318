// The buffer entry points of the torch layer (softfloat/torch/): the conversions of
// buffer_conversions.hpp on memory that Python hands over by address, so that a
// contiguous CPU tensor is read in place and its result written straight into the
// tensor allocated for it, with no NumPy array, no copy and no compilation at import.
// They are private (underscored): softfloat.torch checks dtype, device, contiguity and
// sizes before it calls them, and keeps the tensors alive across the call.
#include <cstdint>
#include <stdexcept>
#include <string>

#include "python/_src/array_access.hpp"
#include "python/_src/bindings.hpp"
#include "python/_src/buffer_conversions.hpp"
#include "runtime/memory_checks.hpp"
#include "softfloat/format_spec.hpp"

namespace softfloat::python {

namespace {

const void* address(std::uintptr_t value) { return reinterpret_cast<const void*>(value); }
void* mutable_address(std::uintptr_t value) { return reinterpret_cast<void*>(value); }

int read_code_bytes(int code_bytes, const Format& format, const char* function) {
  if (code_bytes != 1 && code_bytes != 2 && code_bytes != 4 && code_bytes != 8)
    throw py::value_error(std::string("softfloat.") + function + ": codes of " + std::to_string(code_bytes) +
                          " bytes (accepted: 1, 2, 4, 8)");
  if (8 * code_bytes < format.total_bits())
    throw py::value_error(std::string("softfloat.") + function + ": " + format_name(format) + " codes have " +
                          std::to_string(format.total_bits()) + " bits and do not fit " + std::to_string(code_bytes) +
                          "-byte integers");
  return code_bytes;
}

std::size_t value_bytes(FloatType type) {
  switch (type) {
    case FloatType::float32: return 4;
    case FloatType::float64: return 8;
    case FloatType::float16:
    case FloatType::bfloat16: return 2;
  }
  return 0;
}

// `out=` may be x itself (the same dtype), never another view of x's memory: the rule of
// the C++ array functions (runtime/memory_checks.hpp), as a ValueError.
void check_in_place(const void* in, FloatType in_type, std::size_t n, const void* out, FloatType out_type,
                    const char* function) {
  try {
    const std::string where = std::string("softfloat.") + function + ": ";
    const std::size_t in_size = value_bytes(in_type), out_size = value_bytes(out_type);
    softfloat::detail::check_in_place(where, in, softfloat::detail::checked_bytes(where, n, in_size, "values"), in_size,
                                      out, softfloat::detail::checked_bytes(where, n, out_size, "values"), out_size);
  } catch (const std::invalid_argument& error) {
    throw py::value_error(error.what());
  }
}

void round_trip_buffer(std::uintptr_t in, const std::string& in_type, std::uintptr_t out, const std::string& out_type,
                       std::size_t n, const std::string& format, const std::string& rounding, bool saturate,
                       const py::object& seed, const py::object& offset) {
  const char* function = "torch.quantize";
  const ConversionOptions options = read_conversion_options(function, format, rounding, saturate, seed, offset);
  const FloatType from = read_float_type(in_type, function), to = read_float_type(out_type, function);
  check_in_place(address(in), from, n, address(out), to, function);
  run_without_gil(n, [&] { round_trip_values(address(in), from, n, mutable_address(out), to, options); });
}

void quantize_buffer(std::uintptr_t in, const std::string& in_type, std::uintptr_t codes, int code_bytes,
                     std::size_t n, const std::string& format, const std::string& rounding, bool saturate,
                     const py::object& seed, const py::object& offset) {
  const char* function = "torch.encode";
  const ConversionOptions options = read_conversion_options(function, format, rounding, saturate, seed, offset);
  const FloatType from = read_float_type(in_type, function);
  read_code_bytes(code_bytes, options.format, function);
  run_without_gil(n, [&] { quantize_values(address(in), from, n, mutable_address(codes), code_bytes, options); });
}

void dequantize_buffer(std::uintptr_t codes, int code_bytes, std::uintptr_t out, const std::string& out_type,
                       std::size_t n, const std::string& format_spec) {
  const char* function = "torch.decode";
  const Format format = read_format(format_spec, function);
  const FloatType to = read_float_type(out_type, function);
  read_code_bytes(code_bytes, format, function);
  check_codes_fit(address(codes), code_bytes, n, format, function);
  run_without_gil(n, [&] { dequantize_codes(address(codes), code_bytes, n, mutable_address(out), to, format); });
}

}  // namespace

void register_tensor_buffers(py::module_& module) {
  using namespace pybind11::literals;
  module.def("_round_trip_buffer", &round_trip_buffer, "input"_a, "input_type"_a, "output"_a, "output_type"_a, "n"_a,
             "format"_a, "rounding"_a, "saturate"_a, "seed"_a, "offset"_a,
             "Fake quantization of n contiguous values at address input into output (private: softfloat.torch).");
  module.def("_quantize_buffer", &quantize_buffer, "input"_a, "input_type"_a, "codes"_a, "code_bytes"_a, "n"_a,
             "format"_a, "rounding"_a, "saturate"_a, "seed"_a, "offset"_a,
             "Codes of n contiguous values (private: softfloat.torch).");
  module.def("_dequantize_buffer", &dequantize_buffer, "codes"_a, "code_bytes"_a, "output"_a, "output_type"_a, "n"_a,
             "format"_a, "Values of n contiguous codes, which must fit the format (private: softfloat.torch).");
}

}  // namespace softfloat::python
