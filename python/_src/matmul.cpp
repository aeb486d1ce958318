// softfloat.matmul: C = A * B for matrices of codes (softfloat/matmul.hpp's runtime
// overload), the products summed in an accumulator format and returned as float32.
// Rows that are spaced but contiguous (a slice such as a[:, :k] of a larger matrix) are
// read in place through the leading dimension; any other layout is copied first.
#include <optional>
#include <string>
#include <tuple>

#include "python/_src/array_access.hpp"
#include "python/_src/bindings.hpp"
#include "python/_src/buffer_conversions.hpp"
#include "python/_src/conversion_options.hpp"
#include "softfloat/escape.hpp"
#include "softfloat/format_spec.hpp"
#include "softfloat/matmul.hpp"

namespace softfloat::python {

namespace {

// A matrix of codes with its leading dimension (elements between row starts).
struct CodeMatrix {
  py::array array;
  int code_bytes = 1;
  std::size_t rows = 0, columns = 0, leading_dimension = 0;
};

CodeMatrix read_code_matrix(const py::handle& object, const char* which) {
  py::array array = py::array::ensure(object);
  if (!array)
    throw py::type_error(std::string("softfloat.matmul: ") + which + " must be a NumPy array of codes");
  const py::dtype dtype = array.dtype();
  const py::ssize_t size = dtype.itemsize();
  if (dtype.kind() != 'u' || size == 8)
    throw py::type_error(std::string("softfloat.matmul: ") + which + " must hold codes as uint8, uint16 or uint32, "
                         "not " + dtype_name(dtype) + " (quantize() gives them)");
  if (array.ndim() != 2)
    throw py::value_error(std::string("softfloat.matmul: ") + which + " must be a 2-D matrix, got " +
                          std::to_string(array.ndim()) + " dimensions");
  CodeMatrix matrix;
  matrix.code_bytes = int(size);
  matrix.rows = std::size_t(array.shape(0));
  matrix.columns = std::size_t(array.shape(1));
  // In place when each row is contiguous in native byte order and rows start a whole
  // number of elements apart, at least a row's length.
  const bool native = dtype.byteorder() != '>';
  const bool contiguous_rows = matrix.columns <= 1 || array.strides(1) == size;
  const py::ssize_t row_stride = array.strides(0);
  const bool rows_in_order = matrix.rows <= 1 || (row_stride >= 0 && row_stride % size == 0 &&
                                                  std::size_t(row_stride / size) >= matrix.columns);
  if (native && contiguous_rows && rows_in_order) {
    matrix.array = array;
    matrix.leading_dimension = matrix.rows <= 1 ? matrix.columns : std::size_t(row_stride / size);
  } else {
    switch (size) {
      case 1: matrix.array = py::array_t<std::uint8_t, py::array::c_style>::ensure(array); break;
      case 2: matrix.array = py::array_t<std::uint16_t, py::array::c_style>::ensure(array); break;
      default: matrix.array = py::array_t<std::uint32_t, py::array::c_style>::ensure(array); break;
    }
    if (!matrix.array)
      throw py::type_error(std::string("softfloat.matmul: could not copy ") + which + " into a contiguous array");
    matrix.leading_dimension = matrix.columns;
  }
  return matrix;
}

template <class Body>
void with_code_pointer(const CodeMatrix& matrix, Body&& body) {
  const void* data = matrix.array.data();
  switch (matrix.code_bytes) {
    case 1: body(static_cast<const std::uint8_t*>(data)); break;
    case 2: body(static_cast<const std::uint16_t*>(data)); break;
    default: body(static_cast<const std::uint32_t*>(data)); break;
  }
}

MatmulSummation read_summation(const std::string& name, const char* where) {
  if (name == "fastest") return MatmulSummation::fastest;
  if (name == "in_order") return MatmulSummation::in_order;
  if (name == "pairs") return MatmulSummation::pairs;
  if (name == "tiles") return MatmulSummation::tiles;
  throw py::value_error(std::string("softfloat.") + where + ": unknown summation '" + escape_unprintable(name) +
                        "' (accepted: fastest, in_order, pairs, tiles)");
}

std::string summation_name(MatmulSummation summation) {
  switch (summation) {
    case MatmulSummation::in_order: return "in_order";
    case MatmulSummation::pairs: return "pairs";
    case MatmulSummation::tiles: return "tiles";
    default: return "fastest";
  }
}

// None: the process-wide default, read now, before the GIL is released.
MatmulSummation summation_or_default(const std::optional<std::string>& name, const char* where) {
  return name ? read_summation(*name, where) : matmul_summation();
}

py::array matmul(const py::object& a_codes, const py::object& b_codes, const std::string& format_a_spec,
                 const std::string& format_b_spec, const std::string& accumulator_spec,
                 const std::optional<std::string>& summation_spec) {
  const Format format_a = read_format(format_a_spec, "matmul");
  const Format format_b = read_format(format_b_spec, "matmul");
  const Format accumulator = read_format(accumulator_spec, "matmul");
  const MatmulSummation summation = summation_or_default(summation_spec, "matmul");
  const CodeMatrix a = read_code_matrix(a_codes, "a_codes");
  const CodeMatrix b = read_code_matrix(b_codes, "b_codes");
  if (a.columns != b.rows)
    throw py::value_error("softfloat.matmul: mismatched shapes: a_codes is " + std::to_string(a.rows) + "x" +
                          std::to_string(a.columns) + " and b_codes " + std::to_string(b.rows) + "x" +
                          std::to_string(b.columns) + "; a_codes needs as many columns as b_codes has rows");
  for (const auto& [matrix, format, which] :
       {std::tuple{&a, &format_a, "a_codes"}, std::tuple{&b, &format_b, "b_codes"}})
    if (format->total_bits() > 8 * matrix->code_bytes)
      throw py::value_error(std::string("softfloat.matmul: ") + which + " holds " + format_name(*format) +
                            " codes of " + std::to_string(format->total_bits()) + " bits, which do not fit its " +
                            std::to_string(8 * matrix->code_bytes) + "-bit dtype");
  for (const auto& [matrix, format, which] :
       {std::tuple{&a, &format_a, "a_codes"}, std::tuple{&b, &format_b, "b_codes"}})
    check_code_width(matrix->array.data(), matrix->code_bytes, matrix->rows, matrix->columns,
                     matrix->leading_dimension, format->total_bits(), format_name(*format) + "'s",
                     (std::string("matmul: ") + which).c_str());
  const std::size_t m = a.rows, n = b.columns, k = a.columns;
  auto out = new_array<float>(Shape{py::ssize_t(m), py::ssize_t(n)});
  float* c = mutable_data(out);
  run_without_gil(m * n * (k + 1), [&] {
    with_code_pointer(a, [&](auto a_data) {
      with_code_pointer(b, [&](auto b_data) {
        softfloat::matmul(1.0f, a_data, format_a, a.leading_dimension, b_data, format_b, b.leading_dimension, 0.0f, c,
                          n, m, n, k, accumulator, summation);
      });
    });
  });
  return out;
}

std::string matmul_path(const std::string& format_a_spec, const std::string& format_b_spec, std::size_t m,
                        std::size_t n, std::size_t k, const std::string& accumulator_spec,
                        const std::optional<std::string>& summation_spec) {
  const MatmulKernel kernel =
      softfloat::matmul_path(read_format(format_a_spec, "matmul_path"), read_format(format_b_spec, "matmul_path"), m,
                             n, k, read_format(accumulator_spec, "matmul_path"),
                             summation_or_default(summation_spec, "matmul_path"));
  return std::string(matmul_kernel_name(kernel));
}

}  // namespace

void register_matmul(py::module_& module) {
  using namespace pybind11::literals;
  module.def(
      "set_matmul_summation",
      [](const std::string& name) { set_matmul_summation(read_summation(name, "set_matmul_summation")); },
      "summation"_a,
      R"(The default summation order of matmul's fp32 accumulator, process-wide, for calls
that pass no summation=: "fastest" (the initial default: the kernel that a rule over
what the CPU can do names as fastest on it, the fp32 FMA chain, vdpbf16ps pairs of
products or AMX tiles; SOFTFLOAT_MAX_ISA caps it), "in_order" (the reproducible fp32 FMA chain in k order), "pairs"
(pairs of products by vdpbf16ps wherever the CPU has it and they are exact, else the
chain) or "tiles" (AMX TDPBF16PS for products of more than one row wherever the CPU and
system allow the tiles and the pairs rule holds, else the chain).)");
  module.def(
      "matmul_summation", [] { return summation_name(matmul_summation()); },
      "The current default summation order of matmul's fp32 accumulator.");
  module.def("matmul", &matmul, "a_codes"_a, "b_codes"_a, "fmt_a"_a, "fmt_b"_a, "acc"_a = "fp32", py::kw_only(),
             "summation"_a = py::none(),
             R"(C = A * B for matrices of codes: a_codes (m x k) of format fmt_a, b_codes (k x n) of fmt_b.

The products of the decoded values are summed in k order in the accumulator format acc
(a format spec: "fp32", the default, runs a chain of fp32 fused multiply-adds; "bf16",
"fp16", ... round every step to that format), and C is returned as float32 (m x n).
summation (keyword only) is the order of the fp32 accumulator's sums for this call:
"fastest", "in_order", "pairs" or "tiles" (see set_matmul_summation); None, the default, takes
the process-wide setting. It is this call's alone, so threads may use different ones.
Codes are uint8, uint16 or uint32 (as quantize returns them), one per element; packed
4- and 6-bit arrays must be unpacked first (unpack_codes).)");
  module.def("matmul_path", &matmul_path, "fmt_a"_a, "fmt_b"_a, "m"_a, "n"_a, "k"_a, "acc"_a = "fp32", py::kw_only(),
             "summation"_a = py::none(),
             R"(The kernel that matmul takes on this CPU for these formats, shape (m x k times k x n),
accumulator and summation (None: the process-wide setting): "fma gemm", "vdpbf16ps pairs
gemm", "amx tiles gemm", "fma matvec", "vdpbf16ps pairs matvec", "scalar accumulator" or
"none" (m or n is 0). For bf16 operands the pairs and tile kernels also need the values
to fit their rule,
which this does not see: it answers for values that fit.)");
}

}  // namespace softfloat::python
