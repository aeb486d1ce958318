// Format specs: the one grammar that the command line, Python and C++ use to name a
// format at run time.
//
//   spec    := named | generic (":" option)*
//   named   := fp32 | fp64 | bf16 | fp16 | tf32 | e5m2 | e4m3 | e3m2 | e2m3 | e2m1 | e8m0
//            | e4m3fnuz | e5m2fnuz | p3109_8pP (P = 1..7)
//   generic := e<E>m<M>                      IEEE-style unless an option says otherwise
//   option  := ieee | fn | finite | fnuz | unsigned | nozero | bias=<N>
//
// Case does not matter. A named spec means exactly the contract's type; a name of the
// form eXmY followed by options is read generically, so "e4m3" is the OCP format (max
// 448) and "e4m3:ieee" the IEEE-style one (max 240). ":fnuz" moves the default bias
// one above the IEEE default, as in E4M3FNUZ. ":nozero" makes exponent field 0 an
// ordinary binade, with neither zero nor subnormals (as in E8M0, which equals
// "e8m0:unsigned:fn:nozero").
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "softfloat/format.hpp"

namespace softfloat {

// Throws std::invalid_argument naming what was wrong and what is accepted.
Format parse_format(std::string_view spec);

// The shortest spec that parse_format() reads back to `format`: the contract's name
// where there is one, else eXmY with the options it needs.
std::string format_name(const Format& format);

// The contract's named specs ("fp32", "fp64", "bf16", ..., "p3109_8p7"): what
// parse_format() accepts without options, in the order format_name() prefers them.
std::vector<std::string_view> named_format_specs();

// "ieee", "fn", "finite", "fnuz" or "p3109".
std::string_view specials_name(Specials specials);

}  // namespace softfloat
