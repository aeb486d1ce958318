// softfloat.format_info and the names: what a format spec means, its limits as Python
// floats and as codes, computed from the runtime Format by decoding its limit codes
// exactly (the codes Float<...>::max(), min_normal(), min_subnormal() hold).
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "python/_src/bindings.hpp"
#include "python/_src/conversion_options.hpp"
#include "python/_src/scalar_conversions.hpp"
#include "softfloat/format_spec.hpp"
#include "softfloat/rounding.hpp"

namespace softfloat::python {

namespace py = pybind11;

namespace {

struct FormatInfo {
  Format format;
  std::string name;

  double value(std::uint64_t code) const { return scalar_value<double>(code, format); }
  std::uint64_t max_code() const { return format.max_finite_magnitude(); }
  // Signed: -max. Unsigned: code 0, the smallest value (0, or 2^-bias without zero).
  std::uint64_t lowest_code() const { return format.is_signed ? format.sign_bit() | max_code() : 0; }
  // Exponent field 1 (field 0 in a format without zero, whose lowest binade is normal).
  std::uint64_t min_normal_code() const {
    return format.has_zero ? std::uint64_t{1} << format.mantissa_bits : 0;
  }
  std::uint64_t min_subnormal_code() const { return format.has_subnormals() ? 1 : min_normal_code(); }
  // The code +NaN becomes (quiet, no payload); None without NaN.
  py::object nan_code() const {
    return format.has_nan() ? py::object(py::int_(format.nan_code(false))) : py::object(py::none());
  }
  py::object infinity_code() const {
    return format.has_infinity() ? py::object(py::int_(format.infinity_magnitude())) : py::object(py::none());
  }
  double epsilon() const { return std::ldexp(1.0, -format.mantissa_bits); }  // 2^-M, the gap above 1
};

FormatInfo format_info(const std::string& spec) {
  FormatInfo info;
  info.format = read_format(spec, "format_info");
  info.name = format_name(info.format);
  return info;
}

std::string representation(const FormatInfo& info) {
  const auto number = [](double x) { return std::string(py::repr(py::float_(x))); };
  const Format& f = info.format;
  return "FormatInfo(name='" + info.name + "', bits=" + std::to_string(f.total_bits()) +
         ", exponent_bits=" + std::to_string(f.exponent_bits) + ", mantissa_bits=" + std::to_string(f.mantissa_bits) +
         ", bias=" + std::to_string(f.bias) + ", specials='" + std::string(specials_name(f.specials)) +
         "', max=" + number(info.value(info.max_code())) +
         ", min_normal=" + number(info.value(info.min_normal_code())) +
         ", min_subnormal=" + number(info.value(info.min_subnormal_code())) + ", epsilon=" + number(info.epsilon()) +
         ")";
}
}  // namespace

void register_formats(py::module_& module) {
  using namespace pybind11::literals;

  py::class_<FormatInfo>(module, "FormatInfo",
                         R"(What a format spec means: widths, conventions, and limits as Python floats
(exact: every format of at most 53 significant bits within float64's range) and as codes.
numpy.finfo's names eps, smallest_normal and smallest_subnormal are aliases.)")
      .def_readonly("name", &FormatInfo::name, "the shortest spec that means this format")
      .def_property_readonly("bits", [](const FormatInfo& i) { return i.format.total_bits(); },
                             "sign (if any) + exponent + mantissa bits")
      .def_property_readonly("exponent_bits", [](const FormatInfo& i) { return i.format.exponent_bits; })
      .def_property_readonly("mantissa_bits", [](const FormatInfo& i) { return i.format.mantissa_bits; })
      .def_property_readonly("bias", [](const FormatInfo& i) { return i.format.bias; })
      .def_property_readonly(
          "specials", [](const FormatInfo& i) { return std::string(specials_name(i.format.specials)); },
          "'ieee', 'fn', 'finite', 'fnuz' or 'p3109'")
      .def_property_readonly("signed", [](const FormatInfo& i) { return i.format.is_signed; })
      .def_property_readonly("has_infinity", [](const FormatInfo& i) { return i.format.has_infinity(); })
      .def_property_readonly("has_nan", [](const FormatInfo& i) { return i.format.has_nan(); })
      .def_property_readonly("has_zero", [](const FormatInfo& i) { return i.format.has_zero; })
      .def_property_readonly("has_negative_zero", [](const FormatInfo& i) { return i.format.has_negative_zero(); })
      .def_property_readonly("has_subnormals", [](const FormatInfo& i) { return i.format.has_subnormals(); })
      .def_property_readonly("max", [](const FormatInfo& i) { return i.value(i.max_code()); }, "largest finite value")
      .def_property_readonly("lowest", [](const FormatInfo& i) { return i.value(i.lowest_code()); },
                             "most negative finite value (the smallest value of an unsigned format)")
      .def_property_readonly("min_normal", [](const FormatInfo& i) { return i.value(i.min_normal_code()); },
                             "smallest positive normal value")
      .def_property_readonly("min_subnormal", [](const FormatInfo& i) { return i.value(i.min_subnormal_code()); },
                             "smallest positive value (min_normal where there are no subnormals)")
      .def_property_readonly("epsilon", &FormatInfo::epsilon, "2^-M, the gap between 1 and the next value")
      .def_property_readonly("eps", &FormatInfo::epsilon)
      .def_property_readonly("smallest_normal", [](const FormatInfo& i) { return i.value(i.min_normal_code()); })
      .def_property_readonly("smallest_subnormal", [](const FormatInfo& i) { return i.value(i.min_subnormal_code()); })
      .def_property_readonly("max_code", &FormatInfo::max_code)
      .def_property_readonly("lowest_code", &FormatInfo::lowest_code)
      .def_property_readonly("min_normal_code", &FormatInfo::min_normal_code)
      .def_property_readonly("min_subnormal_code", &FormatInfo::min_subnormal_code)
      .def_property_readonly("nan_code", &FormatInfo::nan_code, "the code of a positive quiet NaN, or None")
      .def_property_readonly("infinity_code", &FormatInfo::infinity_code, "the code of +infinity, or None")
      .def("__repr__", &representation);

  module.def("format_info", &format_info, "format"_a,
             R"(The FormatInfo of a format spec ("e4m3", "bf16", "e3m4:bias=5", ...).)");
  module.def(
      "format_name", [](const std::string& spec) { return format_name(read_format(spec, "format_name")); }, "format"_a,
      R"(The shortest spec that means the same format: format_name("E8M7") == "bf16".)");
  module.def(
      "named_formats",
      [] {
        std::vector<std::string> names;
        for (std::string_view name : named_format_specs()) names.emplace_back(name);
        return names;
      },
      "The named format specs, in the order format_name prefers them.");
  module.def(
      "rounding_modes",
      [] {
        std::vector<std::string> names;
        for (Rounding mode : kAllRoundings) names.emplace_back(rounding_name(mode));
        return names;
      },
      "The names the rounding= argument accepts.");
}

}  // namespace softfloat::python
