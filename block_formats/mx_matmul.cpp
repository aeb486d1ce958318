// The public entry points of softfloat/mx_matmul.hpp: argument checks, the choice of
// kernel, and the exact scalar loop split among threads by columns.
#include "softfloat/mx_matmul.hpp"

#include <limits>
#include <stdexcept>
#include <string>
#include <tuple>

#include "block_formats/mx_integers.hpp"
#include "matmul/column_parts.hpp"
#include "runtime/float_environment.hpp"
#include "runtime/memory_checks.hpp"

namespace softfloat {

namespace {

const char* const kWhere = "softfloat::mx_matmul: ";

[[noreturn]] void fail(const std::string& message) { throw std::invalid_argument(kWhere + message); }

void check_element(mx::Element element, const char* name) {
  bool known = false;
  for (mx::Element each : mx::kAllElements) known = known || each == element;
  if (!known) fail(std::string(name) + " has an unknown element kind " + std::to_string(int(element)));
  if (block_formats_detail::mx_integer_shift(element) < 0)
    fail(std::string(name) + " is " + std::string(mx::element_name(element)) +
         ": only mxfp4_e2m1, mxfp6_e2m3, mxfp6_e3m2 and mxint8 have block products exact in int32 (MXFP8 "
         "products need up to 64 bits and E4M3 / E5M2 have NaN elements); dequantize MXFP8 with "
         "softfloat::mx::dequantize and multiply with softfloat::matmul");
}

// The operand's rows, its buffers checked against rows x k values.
block_formats_detail::MxRows check_operand(const MxOperand& x, const char* name, std::size_t rows, const char* rows_name,
                                    std::size_t k) {
  check_element(x.element, name);
  const std::size_t row_bytes = mx::element_bytes(x.element, k);
  const std::size_t blocks = k / kMxMatmulBlock;
  if (rows > 0 && row_bytes > std::numeric_limits<std::size_t>::max() / rows)
    fail(std::string(name) + ": " + rows_name + " x k = " + std::to_string(rows) + " x " + std::to_string(k) +
         " values are too many to address");
  const std::size_t need_bytes = rows * row_bytes, need_scales = rows * blocks;
  if (need_bytes > 0 && x.elements == nullptr) fail(std::string(name) + ": the element pointer is null");
  if (need_scales > 0 && x.scales == nullptr) fail(std::string(name) + ": the scale pointer is null");
  if (x.element_bytes < need_bytes)
    fail(std::string(name) + ": " + std::to_string(rows) + " rows of " + std::to_string(k) + " " +
         std::string(mx::element_name(x.element)) + " values take " + std::to_string(need_bytes) +
         " element bytes, the buffer has " + std::to_string(x.element_bytes));
  if (x.scale_count < need_scales)
    fail(std::string(name) + ": " + std::to_string(rows) + " rows of " + std::to_string(k) + " values in blocks of 32 "
         "have " + std::to_string(need_scales) + " scales, the buffer has " + std::to_string(x.scale_count));
  return {x.elements, x.scales, x.element, row_bytes, blocks};
}

void check_shape(std::size_t m, std::size_t n, std::size_t k, const float* c) {
  if (k % kMxMatmulBlock != 0)
    fail("k = " + std::to_string(k) + " is not a multiple of 32, the MX block size (pad the rows of A and B with "
         "zeros to a whole block)");
  if (n > 0 && m > std::numeric_limits<std::size_t>::max() / sizeof(float) / n)
    fail("C of m x n = " + std::to_string(m) + " x " + std::to_string(n) + " is too large to address");
  if (m > 0 && n > 0 && c == nullptr) fail("the pointer to C is null");
}

bool kernel_applies(MxMatmulKernel kernel, mx::Element a, mx::Element b) {
  if (kernel == MxMatmulKernel::exact_scalar) return true;
  if (kernel != MxMatmulKernel::avx512_vnni && kernel != MxMatmulKernel::amx_int8) return false;
  return mx_matmul_kernel_supported(kernel) && block_formats_detail::mx_fits_int8(a) && block_formats_detail::mx_fits_int8(b);
}

}  // namespace

std::string_view mx_matmul_kernel_name(MxMatmulKernel kernel) {
  switch (kernel) {
    case MxMatmulKernel::none: return "none";
    case MxMatmulKernel::exact_scalar: return "exact scalar";
    case MxMatmulKernel::avx512_vnni: return "avx512-vnni vpdpbusd";
    case MxMatmulKernel::amx_int8: return "amx int8 tiles";
  }
  return "unknown";
}

bool mx_matmul_kernel_supported(MxMatmulKernel kernel) {
  if (kernel == MxMatmulKernel::avx512_vnni) return block_formats_detail::mx_vnni_supported();
  if (kernel == MxMatmulKernel::amx_int8) return block_formats_detail::mx_amx_int8_supported();
  return true;
}

MxMatmulKernel mx_matmul_path(mx::Element a, mx::Element b, std::size_t m, std::size_t n, std::size_t k) {
  check_element(a, "A");
  check_element(b, "B");
  if (m == 0 || n == 0) return MxMatmulKernel::none;
  // amx_int8 only where vpdpbusd is missing: on the tiles the per-block rescale costs
  // as much as TDPBSSD on one-block tiles, and the kernel measured no faster
  // (softfloat/mx_matmul.hpp).
  if (k > 0 && kernel_applies(MxMatmulKernel::avx512_vnni, a, b)) return MxMatmulKernel::avx512_vnni;
  if (k > 0 && kernel_applies(MxMatmulKernel::amx_int8, a, b)) return MxMatmulKernel::amx_int8;
  return MxMatmulKernel::exact_scalar;
}

void mx_matmul(const MxOperand& a, const MxOperand& b_transposed, float* c, std::size_t m, std::size_t n,
               std::size_t k, MxMatmulKernel kernel) {
  check_shape(m, n, k, c);
  const block_formats_detail::MxRows a_rows = check_operand(a, "A", m, "m", k);
  const block_formats_detail::MxRows b_rows = check_operand(b_transposed, "B (transposed)", n, "n", k);
  // C is written while the operands are still read: it must share no byte with them.
  const std::size_t c_bytes = m * n * sizeof(float);  // addressable: check_shape
  for (const auto& [x, rows, name] : {std::tuple{&a, m, "A"}, std::tuple{&b_transposed, n, "B (transposed)"}}) {
    const std::string elements = std::string(name) + "'s elements", scales = std::string(name) + "'s scales";
    detail::check_disjoint(kWhere, c, c_bytes, "C", x->elements, rows * mx::element_bytes(x->element, k),
                           elements.c_str());
    detail::check_disjoint(kWhere, c, c_bytes, "C", x->scales, rows * (k / kMxMatmulBlock), scales.c_str());
  }
  if (m == 0 || n == 0) return;
  if (kernel == MxMatmulKernel::none) fail("the kernel none computes nothing; name exact_scalar, avx512_vnni or amx_int8");
  if (!kernel_applies(kernel, a.element, b_transposed.element))
    fail("the kernel " + std::string(mx_matmul_kernel_name(kernel)) +
         (mx_matmul_kernel_supported(kernel) ? " multiplies only mxfp4_e2m1, mxfp6_e2m3 and mxint8 elements"
                                             : " is not available on this CPU or build"));
  softfloat::detail::ScopedDefaultFloatEnvironment environment;
  if (kernel == MxMatmulKernel::avx512_vnni) return block_formats_detail::mx_matmul_vnni(a_rows, b_rows, c, m, n, k);
  if (kernel == MxMatmulKernel::amx_int8) return block_formats_detail::mx_matmul_amx_int8(a_rows, b_rows, c, m, n, k);
  matmul_detail::for_column_parts(n, 1, double(m) * double(n) * double(k), [&](std::size_t begin, std::size_t end) {
    block_formats_detail::mx_matmul_exact_scalar(a_rows, b_rows, c, n, 0, m, begin, end);
  });
}

void mx_matmul(const MxOperand& a, const MxOperand& b_transposed, float* c, std::size_t m, std::size_t n,
               std::size_t k) {
  check_element(a.element, "A");
  check_element(b_transposed.element, "B (transposed)");
  mx_matmul(a, b_transposed, c, m, n, k, mx_matmul_path(a.element, b_transposed.element, m, n, k));
}

}  // namespace softfloat
