// softfloat.mx_matmul: C = A * B for MX-quantized operands with exact block products
// (softfloat/mx_matmul.hpp). A's rows and B's columns come as mx_quantize returns them
// for rows of k values along the last axis: A's (elements, scales) of shapes
// (m, element_bytes(k)) and (m, k / 32), and B's for B transposed, (n, ...) and
// (n, k / 32). The library checks the rest and its messages become ValueError.
#include <stdexcept>
#include <string>

#include "python/_src/array_access.hpp"
#include "python/_src/bindings.hpp"
#include "softfloat/escape.hpp"
#include "softfloat/mx_matmul.hpp"

namespace softfloat::python {

namespace {

const char* const kFunction = "mx_matmul";

std::string where() { return std::string("softfloat.") + kFunction + ": "; }

// A 2-D uint8 array, contiguous.
CodeInput byte_matrix(const py::object& array, const char* what) {
  CodeInput codes = read_code_input(array, kFunction, false);
  if (codes.code_bytes != 1)
    throw py::type_error(where() + what + " must be uint8 (as mx_quantize returns them), got " +
                         dtype_name(codes.array));
  if (codes.shape.size() != 2)
    throw py::value_error(where() + what + " must be a 2-D array (one row per row of the operand), got " +
                          std::to_string(codes.shape.size()) + " dimensions");
  return codes;
}

mx::Element read_kind(const std::string& name) {
  try {
    return mx::parse_element(name);
  } catch (const std::invalid_argument& error) {
    throw py::value_error(where() + error.what());
  }
}

MxMatmulKernel read_kernel(const py::object& kernel) {
  if (kernel.is_none()) return MxMatmulKernel::none;  // the automatic choice
  const std::string name = kernel.cast<std::string>();
  std::string accepted = "None";
  for (MxMatmulKernel each : {MxMatmulKernel::exact_scalar, MxMatmulKernel::avx512_vnni, MxMatmulKernel::amx_int8}) {
    if (name == mx_matmul_kernel_name(each)) return each;
    accepted += ", \"" + std::string(mx_matmul_kernel_name(each)) + "\"";
  }
  throw py::value_error(where() + "unknown kernel '" + escape_unprintable(name) + "' (accepted: " + accepted + ")");
}

MxOperand operand(const CodeInput& elements, const CodeInput& scales, mx::Element kind) {
  return {static_cast<const std::uint8_t*>(elements.data()), elements.size,
          static_cast<const std::uint8_t*>(scales.data()), scales.size, kind};
}

py::array_t<float> mx_matmul_numpy(const py::object& a_elements, const py::object& a_scales,
                                   const py::object& b_elements, const py::object& b_scales,
                                   const std::string& element, const py::object& b_element,
                                   const py::object& kernel_name) {
  const mx::Element a_kind = read_kind(element);
  const mx::Element b_kind = b_element.is_none() ? a_kind : read_kind(b_element.cast<std::string>());
  const MxMatmulKernel kernel = read_kernel(kernel_name);
  const CodeInput ae = byte_matrix(a_elements, "a_elements"), as = byte_matrix(a_scales, "a_scales");
  const CodeInput be = byte_matrix(b_elements, "b_elements"), bs = byte_matrix(b_scales, "b_scales");
  const std::size_t m = std::size_t(ae.shape[0]), n = std::size_t(be.shape[0]);
  const std::size_t k = std::size_t(as.shape[1]) * kMxMatmulBlock;
  if (std::size_t(as.shape[0]) != m || std::size_t(bs.shape[0]) != n)
    throw py::value_error(where() + "each operand needs as many rows of scales as of elements; got " +
                          std::to_string(as.shape[0]) + " for A's " + std::to_string(m) + " and " +
                          std::to_string(bs.shape[0]) + " for B's " + std::to_string(n));
  if (bs.shape[1] != as.shape[1])
    throw py::value_error(where() + "A's rows have " + std::to_string(as.shape[1]) + " blocks and B's " +
                          std::to_string(bs.shape[1]) + ": both run along the same k");
  const auto check_row_bytes = [&](const CodeInput& elements, mx::Element kind, const char* which) {
    const std::size_t need = mx::element_bytes(kind, k);
    if (std::size_t(elements.shape[1]) != need)
      throw py::value_error(where() + which + " rows of k = " + std::to_string(k) + " " +
                            std::string(mx::element_name(kind)) + " values take " + std::to_string(need) +
                            " bytes, but its elements have " + std::to_string(elements.shape[1]) + " per row");
  };
  check_row_bytes(ae, a_kind, "A's");
  check_row_bytes(be, b_kind, "B's");
  auto c = new_array<float>({py::ssize_t(m), py::ssize_t(n)});
  float* out = mutable_data(c);
  const MxOperand a = operand(ae, as, a_kind), b = operand(be, bs, b_kind);
  try {
    run_without_gil(m * n * k, [&] {
      if (kernel == MxMatmulKernel::none) {
        mx_matmul(a, b, out, m, n, k);
      } else {
        mx_matmul(a, b, out, m, n, k, kernel);
      }
    });
  } catch (const std::invalid_argument& error) {
    throw py::value_error(where() + error.what());
  }
  return c;
}

std::string mx_matmul_path_name(const std::string& element, const py::object& b_element, std::size_t m,
                                std::size_t n, std::size_t k) {
  const mx::Element a_kind = read_kind(element);
  const mx::Element b_kind = b_element.is_none() ? a_kind : read_kind(b_element.cast<std::string>());
  try {
    return std::string(mx_matmul_kernel_name(mx_matmul_path(a_kind, b_kind, m, n, k)));
  } catch (const std::invalid_argument& error) {
    throw py::value_error(where() + error.what());
  }
}

}  // namespace

void register_mx_matmul(py::module_& module) {
  using namespace pybind11::literals;
  module.def("mx_matmul", &mx_matmul_numpy, "a_elements"_a, "a_scales"_a, "b_elements"_a, "b_scales"_a,
             "element"_a, py::kw_only(), "b_element"_a = py::none(), "kernel"_a = py::none(),
             R"(C = A @ B (float32, m x n) for MX operands, each block's products summed exactly.

a_elements, a_scales: mx_quantize(a, element) of A (m x k), blocks of 32 along k.
b_elements, b_scales: mx_quantize(b.T, b_element) of B (k x n) transposed, so that B's
            blocks also run along k (mx_quantize(b, kind, axis=0) returns the same
            bytes transposed: pass its .T).
element     "mxfp4_e2m1", "mxfp6_e2m3", "mxfp6_e3m2" or "mxint8" (A's kind; B's too
            unless b_element names another). MXFP8 is refused.
kernel      None (the fastest this CPU has), "exact scalar", "avx512-vnni vpdpbusd" or
            "amx int8 tiles": every kernel gives the same bits.
k is 32 times the scales' last axis; a row's block t contributes the exact integer dot
product times both scales, rounded once to float32 (exact unless it leaves float32's
range), and the blocks are added in k order in float32, one rounding each. A NaN scale
(0xFF) makes its row or column NaN. See softfloat/mx_matmul.hpp.)");
  module.def("mx_matmul_path", &mx_matmul_path_name, "element"_a, py::kw_only(), "b_element"_a = py::none(),
             "m"_a, "n"_a, "k"_a, "The kernel mx_matmul takes for these kinds and shape on this CPU, by name.");
}

}  // namespace softfloat::python
