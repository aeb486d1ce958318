// The public matmul entry points (softfloat/matmul.hpp, matmul_summation.hpp): argument
// checks, the process-wide default summation, the run of the kernel that
// kernel_choice.hpp names for the sum S (the blocked GEMMs, the matrix-vector loops or
// the general accumulator), matmul_path() reporting that same choice, and the alpha /
// beta epilogue in fp32.
#include <atomic>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "matmul/amx_gemm.hpp"
#include "matmul/bf16_dot.hpp"
#include "matmul/code_matrix.hpp"
#include "matmul/column_parts.hpp"
#include "matmul/kernel_choice.hpp"
#include "matmul/kernels.hpp"
#include "runtime/float_environment.hpp"
#include "runtime/memory_checks.hpp"
#include "softfloat/format_spec.hpp"
#include "softfloat/matmul.hpp"

namespace softfloat {

namespace {

const char* const kWhere = "softfloat::matmul: ";

[[noreturn]] void fail(const std::string& message) { throw std::invalid_argument(kWhere + message); }

std::string name_of(const Format& format) {
  try {
    return format_name(format);
  } catch (...) {
    return "the format";
  }
}

void check_format(const Format& format, const char* role) {
  if (!format.valid())
    fail(std::string("invalid format for ") + role + ": " + std::string(describe(format.problem())));
}

// The last element of a rows x columns matrix with leading dimension ld, at
// (rows - 1) * ld + columns - 1, must be addressable in units of `size` bytes.
bool addressable(std::size_t rows, std::size_t columns, std::size_t ld, std::size_t size) {
  const std::size_t most = std::numeric_limits<std::size_t>::max() / size;
  return columns <= most && (rows <= 1 || ld <= (most - columns) / (rows - 1));
}

// The bytes from the first element of a rows x columns matrix to its last (addressable()
// has been checked).
std::size_t span_bytes(std::size_t rows, std::size_t columns, std::size_t ld, std::size_t size) {
  return rows == 0 || columns == 0 ? 0 : ((rows - 1) * ld + columns) * size;
}

void check_operand(const detail::MatmulOperand& x, const char* name, const char* ld_name, std::size_t rows,
                   std::size_t columns, const char* rows_name, const char* columns_name) {
  check_format(x.format, name);
  if (x.code_bytes != 1 && x.code_bytes != 2 && x.code_bytes != 4)
    fail(std::string(name) + ": codes of " + std::to_string(x.code_bytes) + " bytes (1, 2 or 4 expected)");
  if (x.format.total_bits() > int(8 * x.code_bytes))
    fail(std::string(name) + "'s format " + name_of(x.format) + " has " + std::to_string(x.format.total_bits()) +
         " bits and does not fit its " + std::to_string(8 * x.code_bytes) + "-bit codes");
  if (x.ld < columns)
    fail(std::string(ld_name) + " = " + std::to_string(x.ld) + " is smaller than the row length " + columns_name +
         " = " + std::to_string(columns));
  if (rows > 0 && columns > 0) {
    if (x.codes == nullptr)
      fail(std::string(name) + " is null with " + rows_name + " = " + std::to_string(rows) + " and " + columns_name +
           " = " + std::to_string(columns));
    if (!addressable(rows, columns, x.ld, x.code_bytes)) fail(std::string(name) + " is too large to address");
  }
}

void check_arguments(const detail::MatmulOperand& a, const detail::MatmulOperand& b, const float* c, std::size_t ldc,
                     std::size_t m, std::size_t n, std::size_t k, const Format& accumulator) {
  check_format(accumulator, "the accumulator");
  check_operand(a, "A", "lda", m, k, "m", "k");
  check_operand(b, "B", "ldb", k, n, "k", "n");
  if (ldc < n) fail("ldc = " + std::to_string(ldc) + " is smaller than the row length n = " + std::to_string(n));
  if (m > 0 && n > 0) {
    if (c == nullptr) fail("C is null with m = " + std::to_string(m) + " and n = " + std::to_string(n));
    if (!addressable(m, n, ldc, sizeof(float))) fail("C is too large to address");
  }
  // C is written while A and B are still read: it must share no byte with them.
  const std::size_t c_bytes = span_bytes(m, n, ldc, sizeof(float));
  detail::check_disjoint(kWhere, c, c_bytes, "C", a.codes, span_bytes(m, k, a.ld, a.code_bytes), "A");
  detail::check_disjoint(kWhere, c, c_bytes, "C", b.codes, span_bytes(k, n, b.ld, b.code_bytes), "B");
}

std::atomic<MatmulSummation> summation_setting{MatmulSummation::fastest};

void check_summation(MatmulSummation summation, const char* where) {
  if (summation != MatmulSummation::fastest && summation != MatmulSummation::in_order &&
      summation != MatmulSummation::pairs && summation != MatmulSummation::tiles)
    fail(std::string(where) + "unknown summation " + std::to_string(int(summation)) +
         " (fastest, in_order, pairs or tiles)");
}

// S into s (row stride lds) by the kernel that the accumulator, the shape, the
// summation and the CPU call for; the fp32 paths split the columns among threads.
void compute_sum(const matmul_detail::CodeMatrix& a, const matmul_detail::CodeMatrix& b, float* s, std::size_t lds,
                 std::size_t m, std::size_t n, std::size_t k, const Format& accumulator, MatmulSummation summation) {
  namespace md = matmul_detail;
  const md::KernelChoice choice = md::choose_kernel(a, b, m, n, k, accumulator, summation, true);
  const MatmulKernel kernel = choice.kernel;
  if (kernel == MatmulKernel::scalar_accumulator) return md::accumulate_exact(a, b, s, lds, m, n, k, accumulator);
  const double multiply_adds = double(m) * double(n) * double(k);
  md::for_column_parts(n, 64, multiply_adds, [&](std::size_t begin, std::size_t end) {
    const md::CodeMatrix part = b.from_column(begin);
    switch (kernel) {
      case MatmulKernel::fma_matvec:
      case MatmulKernel::pairs_matvec:
        return md::matvec_fp32(a, part, s + begin, end - begin, k, kernel == MatmulKernel::pairs_matvec);
      case MatmulKernel::pairs_gemm: return md::gemm_bf16_dot(a, part, s + begin, lds, m, end - begin, k);
      case MatmulKernel::tiles_gemm:
        return md::gemm_amx(a, part, s + begin, lds, m, end - begin, k, choice.a_pieces, choice.b_pieces);
      default: return md::gemm_fp32(a, part, s + begin, lds, m, end - begin, k);
    }
  });
}

// The smallest code type that holds the format, as the typed forms store it.
std::size_t code_bytes_of(const Format& format, const char* role) {
  check_format(format, role);
  const int bits = format.total_bits();
  if (bits > 32) fail(std::string(role) + "'s format " + name_of(format) + " has more bits than 32-bit codes hold");
  return bits <= 8 ? 1 : bits <= 16 ? 2 : 4;
}

}  // namespace

void set_matmul_summation(MatmulSummation summation) {
  check_summation(summation, "set_matmul_summation: ");
  summation_setting.store(summation);
}
MatmulSummation matmul_summation() { return summation_setting.load(); }

MatmulKernel matmul_path(const Format& format_a, const Format& format_b, std::size_t m, std::size_t n,
                         std::size_t k, const Format& accumulator, MatmulSummation summation) {
  check_format(accumulator, "the accumulator");
  check_summation(summation, "");
  // Matrices without codes: choose_kernel reads only their formats.
  const matmul_detail::CodeMatrix a(detail::MatmulOperand{nullptr, code_bytes_of(format_a, "A"), format_a, k});
  const matmul_detail::CodeMatrix b(detail::MatmulOperand{nullptr, code_bytes_of(format_b, "B"), format_b, n});
  return matmul_detail::choose_kernel(a, b, m, n, k, accumulator, summation, false).kernel;
}

std::string_view matmul_kernel_name(MatmulKernel kernel) {
  switch (kernel) {
    case MatmulKernel::none: return "none";
    case MatmulKernel::fma_gemm: return "fma gemm";
    case MatmulKernel::pairs_gemm: return "vdpbf16ps pairs gemm";
    case MatmulKernel::fma_matvec: return "fma matvec";
    case MatmulKernel::pairs_matvec: return "vdpbf16ps pairs matvec";
    case MatmulKernel::tiles_gemm: return "amx tiles gemm";
    case MatmulKernel::scalar_accumulator: return "scalar accumulator";
  }
  fail("matmul_kernel_name: unknown kernel " + std::to_string(int(kernel)));
}

namespace detail {

void matmul(float alpha, const MatmulOperand& a, const MatmulOperand& b, float beta, float* c, std::size_t ldc,
            std::size_t m, std::size_t n, std::size_t k, const Format& accumulator, MatmulSummation summation) {
  check_arguments(a, b, c, ldc, m, n, k, accumulator);
  check_summation(summation, "");
  if (m == 0 || n == 0) return;
  // The FMA chain and the epilogue round to nearest with subnormals, whatever the
  // caller's MXCSR says.
  softfloat::detail::ScopedDefaultFloatEnvironment environment;
  const matmul_detail::CodeMatrix a_codes(a), b_codes(b);
  if (beta == 0.0f) {
    // C is not read: S goes straight into it, then alpha scales it in place.
    compute_sum(a_codes, b_codes, c, ldc, m, n, k, accumulator, summation);
    if (alpha != 1.0f)
      for (std::size_t i = 0; i < m; ++i)
        for (std::size_t j = 0; j < n; ++j) c[i * ldc + j] = alpha * c[i * ldc + j];
    return;
  }
  std::vector<float> sum(m * n);
  compute_sum(a_codes, b_codes, sum.data(), n, m, n, k, accumulator, summation);
  for (std::size_t i = 0; i < m; ++i)
    for (std::size_t j = 0; j < n; ++j) {
      const float scaled_sum = alpha * sum[i * n + j];
      const float scaled_c = beta * c[i * ldc + j];
      c[i * ldc + j] = scaled_sum + scaled_c;
    }
}

}  // namespace detail

}  // namespace softfloat
