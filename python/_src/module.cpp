// The compiled module softfloat._core: exact low-precision formats for NumPy arrays
// (and, through private buffer entry points, torch tensors), calling the compiled
// library (softfloat/simd.hpp, mx.hpp, matmul.hpp). The package softfloat
// (python/softfloat/__init__.py) re-exports its names. Each part registers its
// functions (bindings.hpp); this file adds the docstring, version and thread setting.
#include "python/_src/bindings.hpp"
#include "softfloat/threads.hpp"

PYBIND11_MODULE(_core, module) {
  using namespace pybind11::literals;
  module.doc() = R"(Exact emulation of low-precision floating-point formats on NumPy arrays.

round_trip(array, "e4m3") replaces every value by the nearest E4M3 value (fake
quantization), keeping the dtype; quantize / dequantize convert to and from codes;
mx_quantize / mx_dequantize do OCP MX block scaling and mx_matmul multiplies their
results with exact block products; matmul multiplies code matrices with a chosen
accumulator; format_info describes a format. Formats are specs such as
"bf16", "e5m2", "e2m1", "e4m3fnuz", "e3m4:bias=5"; rounding is one of rounding_modes().
Every value is decoded exactly and rounded once, so float64 input is never rounded
through float32. Errors raise ValueError (bad format, rounding or shape) or TypeError
(wrong dtype). The calls release the GIL for arrays of 4096 values or more.)";
  module.attr("__version__") = SOFTFLOAT_VERSION;

  softfloat::python::register_formats(module);
  softfloat::python::register_arrays(module);
  softfloat::python::register_mx(module);
  softfloat::python::register_nvfp4(module);
  softfloat::python::register_mx_matmul(module);
  softfloat::python::register_matmul(module);
  softfloat::python::register_tensor_buffers(module);
  softfloat::python::register_cost(module);

  module.def("set_num_threads", &softfloat::set_num_threads, "n"_a,
             "Threads for large arrays (default 1, or SOFTFLOAT_NUM_THREADS); results never depend on it.");
  module.def("num_threads", &softfloat::num_threads, "The current thread count of the array functions.");
}
