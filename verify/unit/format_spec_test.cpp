// Format specs (softfloat/format_spec.hpp): every named spec means exactly the
// contract's type, generic eXmY specs and their options, format_name() round trips,
// and bad specs throw std::invalid_argument saying what is wrong.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cctype>
#include <cfloat>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "softfloat/softfloat.hpp"
#include "softfloat/verify/mpfr_reference.hpp"

namespace softfloat {
namespace {

using ::testing::HasSubstr;

// The largest finite value of a runtime format, through MPFR: rounding the largest
// double toward zero lands on max() in every convention.
double max_of(const Format& format) {
  return verify::reference_value(verify::reference_round(DBL_MAX, format, MPFR_RNDZ), format);
}

const std::vector<std::pair<std::string, Format>>& named_specs() {
  static const std::vector<std::pair<std::string, Format>> specs = {
      {"fp32", format_of<FP32>()},         {"bf16", format_of<BF16>()},
      {"fp16", format_of<FP16>()},         {"tf32", format_of<TF32>()},
      {"e5m2", format_of<E5M2>()},         {"e4m3", format_of<E4M3>()},
      {"e3m2", format_of<E3M2>()},         {"e2m3", format_of<E2M3>()},
      {"e2m1", format_of<E2M1>()},         {"e8m0", format_of<E8M0>()},
      {"e4m3fnuz", format_of<E4M3FNUZ>()}, {"e5m2fnuz", format_of<E5M2FNUZ>()},
      {"p3109_8p1", format_of<P3109<8, 1>>()}, {"p3109_8p2", format_of<P3109<8, 2>>()},
      {"p3109_8p3", format_of<P3109<8, 3>>()}, {"p3109_8p4", format_of<P3109<8, 4>>()},
      {"p3109_8p5", format_of<P3109<8, 5>>()}, {"p3109_8p6", format_of<P3109<8, 6>>()},
      {"p3109_8p7", format_of<P3109<8, 7>>()},
  };
  return specs;
}

std::string upper(std::string text) {
  for (char& c : text) c = char(std::toupper(static_cast<unsigned char>(c)));
  return text;
}

TEST(FormatSpec, NamedSpecsAreTheContractTypes) {
  for (const auto& [spec, format] : named_specs()) {
    EXPECT_EQ(parse_format(spec), format) << spec;
    EXPECT_EQ(parse_format(upper(spec)), format) << upper(spec);
    EXPECT_EQ(format_name(format), spec);
    EXPECT_EQ(parse_format(format_name(format)), format) << spec;
  }
  EXPECT_EQ(parse_format("Bf16"), format_of<BF16>());
  EXPECT_EQ(parse_format("P3109_8P3"), (format_of<P3109<8, 3>>()));
}

// A generic eXmY with the same widths, bias and conventions is the same format.
TEST(FormatSpec, GenericSpellingsOfNamedFormats) {
  EXPECT_EQ(parse_format("e8m7"), format_of<BF16>());
  EXPECT_EQ(parse_format("e5m10"), format_of<FP16>());
  EXPECT_EQ(parse_format("e8m23"), format_of<FP32>());
  EXPECT_EQ(parse_format("e8m10"), format_of<TF32>());
  EXPECT_EQ(parse_format("e4m3:fn"), format_of<E4M3>());
  EXPECT_EQ(parse_format("e2m1:finite"), format_of<E2M1>());
  EXPECT_EQ(parse_format("e5m2:ieee"), format_of<E5M2>());
  // :fnuz moves the default bias one above IEEE's: 7 + 1 = 8 and 15 + 1 = 16.
  EXPECT_EQ(parse_format("e4m3:fnuz"), format_of<E4M3FNUZ>());
  EXPECT_EQ(parse_format("e5m2:fnuz"), format_of<E5M2FNUZ>());
  EXPECT_EQ(parse_format("E4M3:FNUZ"), format_of<E4M3FNUZ>());
}

// The named e4m3 is OCP (no infinity, max 1.75 * 2^8 = 448); ":ieee" asks for the
// IEEE-style reading, whose exponent field 15 is special: max 1.875 * 2^7 = 240.
TEST(FormatSpec, NamedReadingWinsOverGeneric) {
  EXPECT_EQ(max_of(parse_format("e4m3")), 448.0);
  EXPECT_EQ(max_of(parse_format("e4m3:ieee")), 240.0);
  EXPECT_EQ(parse_format("e4m3:ieee"), (Format{4, 3, 7, Specials::ieee, true, true}));
  EXPECT_EQ(parse_format("e4m3:ieee"), (format_of<Float<4, 3>>()));
  EXPECT_NE(parse_format("e4m3:ieee"), format_of<E4M3>());
  EXPECT_EQ(max_of(parse_format("e4m3:fnuz")), 240.0);  // 1.875 * 2^(15 - 8)
}

TEST(FormatSpec, Options) {
  EXPECT_EQ(parse_format("e6m9:bias=31"), (Format{6, 9, 31, Specials::ieee, true, true}));
  EXPECT_EQ(parse_format("e6m9:bias=20"), (Format{6, 9, 20, Specials::ieee, true, true}));
  EXPECT_EQ(parse_format("e6m9:bias=-3").bias, -3);
  EXPECT_EQ(parse_format("e3m4:finite"), (Format{3, 4, 3, Specials::finite, true, true}));
  EXPECT_EQ(parse_format("e3m4:fn"), (Format{3, 4, 3, Specials::fn, true, true}));
  EXPECT_EQ(parse_format("e3m4:unsigned"), (Format{3, 4, 3, Specials::ieee, false, true}));
  // Options in any order.
  const Format expected{5, 3, 9, Specials::fn, false, true};
  EXPECT_EQ(parse_format("e5m3:fn:unsigned:bias=9"), expected);
  EXPECT_EQ(parse_format("e5m3:bias=9:fn:unsigned"), expected);
  EXPECT_EQ(parse_format("e5m3:unsigned:bias=9:fn"), expected);
  EXPECT_EQ(parse_format("E5M3:UNSIGNED:BIAS=9:FN"), expected);
  // Values follow: e3m4:finite max 0b0'111'1111 = 1.9375 * 2^4 = 31; e3m4:unsigned
  // (IEEE) max 0b110'1111 = 1.9375 * 2^3 = 15.5.
  EXPECT_EQ(max_of(parse_format("e3m4:finite")), 31.0);
  EXPECT_EQ(max_of(parse_format("e3m4:unsigned")), 15.5);
}

TEST(FormatSpec, FormatNameRoundTrips) {
  const char* specs[] = {"e8m7",         "e5m10",          "e4m3:ieee",      "e4m3:fnuz",
                         "e5m2:fnuz",    "e6m9:bias=31",   "e6m9:bias=20",   "e3m4:finite",
                         "e3m4:fn",      "e3m4:unsigned",  "e5m3:fn:unsigned:bias=9",
                         "e4m3:fn",      "e2m1:finite",    "e7m5:fnuz:bias=3", "e11m52",
                         "e1m6:finite",  "e3m0:fn",        "e6m9:bias=-3",   "e4m3:fn:nozero",
                         "e5m2:nozero:unsigned"};
  for (const char* spec : specs) {
    const Format format = parse_format(spec);
    EXPECT_EQ(parse_format(format_name(format)), format) << spec << " -> " << format_name(format);
  }
  EXPECT_EQ(format_name(parse_format("e4m3:ieee")), "e4m3:ieee");  // must not read back as OCP e4m3
  EXPECT_EQ(format_name(parse_format("e8m7")), "bf16");
  EXPECT_EQ(format_name(parse_format("e4m3:fnuz")), "e4m3fnuz");
  // A format without zero has its own option, so its name reads back to it.
  EXPECT_EQ(parse_format("e8m0:unsigned:fn:nozero"), format_of<E8M0>());
  EXPECT_EQ(format_name(format_of<Float<4, 3, 7, false, Specials::fn, true, false>>()), "e4m3:fn:nozero");
}

// Each bad spec throws std::invalid_argument whose message names the problem.
TEST(FormatSpec, BadSpecsThrowWithReason) {
  const std::pair<const char*, const char*> cases[] = {
      {"", "expected a named format"},
      {"e", "unknown format"},
      {"x4m3", "unknown format"},
      {"e4m3:bogus", "unknown option 'bogus'"},
      {"e4m3:fn:finite", "more than one of"},
      {"e0m3", "exponent bits must be between 1 and 11"},
      {"e04m03", "unknown format"},  // leading zeros would dodge the named lookup of e4m3
      {"e12m3", "exponent bits must be between 1 and 11"},
      {"e5m60", "mantissa bits must be between 0 and 52"},
      {"e4m0", "at least one mantissa bit"},
      {"e1m3", "at least two exponent bits"},
      {"e4m3:bias=abc", "the bias must be an integer"},
      {"e3m0:fnuz:unsigned", "need a sign bit"},
      {"bf16:fn", "takes no options"},
  };
  for (const auto& [spec, reason] : cases) {
    try {
      const Format format = parse_format(spec);
      ADD_FAILURE() << "'" << spec << "' parsed as " << format_name(format);
    } catch (const std::invalid_argument& error) {
      EXPECT_THAT(error.what(), HasSubstr(reason)) << "spec '" << spec << "'";
      EXPECT_THAT(error.what(), HasSubstr("'" + std::string(spec) + "'")) << "the message quotes the spec";
    }
  }
}

// The message of a spec holding a control character or a byte that is not UTF-8 quotes
// it escaped (softfloat/escape.hpp), so it stays one line. The first is the command
// line fuzz target's finding: `softfloat encode $'e4m3\n' ...` printed two lines.
TEST(FormatSpec, BadSpecsAreQuotedEscaped) {
  const std::pair<std::string, std::string> cases[] = {
      {"e4m3\n",
       R"(invalid format spec 'e4m3\n': unknown format 'e4m3\n'; expected a named format (fp32 fp64 bf16 fp16 )"
       R"(tf32 e5m2 e4m3 e3m2 e2m3 e2m1 e8m0 e4m3fnuz e5m2fnuz p3109_8p1..p3109_8p7) or eXmY with options :ieee )"
       R"(:fn :finite :fnuz :unsigned :nozero :bias=N)"},
      {"e4m3:\tfn",
       R"(invalid format spec 'e4m3:\tfn': unknown option '\tfn'; options are :ieee :fn :finite :fnuz :unsigned )"
       R"(:nozero :bias=N)"},
      {"e4m3:bias=\xff\r", R"(invalid format spec 'e4m3:bias=\xff\r': the bias must be an integer, as in :bias=15)"},
  };
  for (const auto& [spec, message] : cases) {
    try {
      const Format format = parse_format(spec);
      ADD_FAILURE() << "parsed as " << format_name(format);
    } catch (const std::invalid_argument& error) {
      EXPECT_EQ(std::string(error.what()), message);
    }
  }
}

}  // namespace
}  // namespace softfloat
