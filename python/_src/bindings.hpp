// The Python module's parts, one registration function per job: formats (format_info,
// names), arrays (quantize / dequantize / round_trip, packing, the scalar reference
// path), mx (MX block scaling), nvfp4 (NVFP4's two-level scaling), mx_matmul (exact
// block products of MX operands), matmul, the torch layer's buffer entry points and the
// cost model's all-reduce. module.cpp calls them in that order.
#pragma once

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>  // std::vector <-> list, in every part alike

namespace softfloat::python {

void register_formats(pybind11::module_& module);
void register_arrays(pybind11::module_& module);
void register_mx(pybind11::module_& module);
void register_nvfp4(pybind11::module_& module);
void register_mx_matmul(pybind11::module_& module);
void register_matmul(pybind11::module_& module);
void register_tensor_buffers(pybind11::module_& module);
void register_cost(pybind11::module_& module);

}  // namespace softfloat::python
