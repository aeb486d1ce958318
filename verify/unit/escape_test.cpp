// escape_unprintable (softfloat/escape.hpp), which every error message quoting user text
// goes through: control characters and bytes that are not UTF-8 become escapes, valid
// UTF-8 and printable ASCII stay, and escaping twice changes nothing. Then the parsers'
// messages with such text (parse_format's are in format_spec_test.cpp).
#include <gtest/gtest.h>

#include <functional>
#include <stdexcept>
#include <string>
#include <string_view>

#include "softfloat/escape.hpp"
#include "softfloat/softfloat.hpp"

namespace softfloat {
namespace {

using namespace std::literals;

TEST(EscapeUnprintable, TheWorkedExamples) {
  EXPECT_EQ(escape_unprintable("e4m3\n"), R"(e4m3\n)");
  EXPECT_EQ(escape_unprintable("a\tb\x01\x7f"), R"(a\tb\x01\x7f)");
  EXPECT_EQ(escape_unprintable("\xff" "1"), R"(\xff1)");
  EXPECT_EQ(escape_unprintable("\xc2\x85"), R"(\xc2\x85)");
  EXPECT_EQ(escape_unprintable("1\xc2\xb5s"), "1\xc2\xb5s");
}

TEST(EscapeUnprintable, ControlCharacters) {
  EXPECT_EQ(escape_unprintable("a\r\nb"), R"(a\r\nb)");
  EXPECT_EQ(escape_unprintable("\x1b[31m"), R"(\x1b[31m)");  // a terminal colour change
  EXPECT_EQ(escape_unprintable("nul\0here"s), R"(nul\x00here)");
  EXPECT_EQ(escape_unprintable("\x1f\x20\x7e\x7f"), R"(\x1f ~\x7f)");
  EXPECT_EQ(escape_unprintable("\xc2\x9f\xc2\xa0"), "\\xc2\\x9f\xc2\xa0");  // U+009F is C1, U+00A0 is not
}

TEST(EscapeUnprintable, PrintableTextIsKept) {
  const std::string printable = R"(e6m9:bias=31 0x1.8p3 -inf 'quoted' "too" back\slash ~)";
  EXPECT_EQ(escape_unprintable(printable), printable);
  EXPECT_EQ(escape_unprintable(""), "");
  // Two, three and four bytes: U+00E9, U+20AC, U+1F600.
  EXPECT_EQ(escape_unprintable("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80"), "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80");
}

// Each byte of a sequence that is not well-formed UTF-8 (Unicode table 3-7) is escaped.
TEST(EscapeUnprintable, BytesThatAreNotUtf8) {
  EXPECT_EQ(escape_unprintable("\x80"), R"(\x80)");                   // a continuation byte alone
  EXPECT_EQ(escape_unprintable("\xc0\xaf"), R"(\xc0\xaf)");           // overlong '/'
  EXPECT_EQ(escape_unprintable("\xe0\x80\xaf"), R"(\xe0\x80\xaf)");   // overlong, three bytes
  EXPECT_EQ(escape_unprintable("\xed\xa0\x80"), R"(\xed\xa0\x80)");   // a UTF-16 surrogate, U+D800
  EXPECT_EQ(escape_unprintable("\xf4\x90\x80\x80"), R"(\xf4\x90\x80\x80)");  // U+110000
  EXPECT_EQ(escape_unprintable("\xe2\x82"), R"(\xe2\x82)");           // cut short at the end
  EXPECT_EQ(escape_unprintable("\xe2\x82x"), R"(\xe2\x82x)");         // cut short by ASCII
  EXPECT_EQ(escape_unprintable("\xf5\x80\x80\x80"), R"(\xf5\x80\x80\x80)");
}

// Characters that break a line or reorder how it reads, without being control characters,
// become \uNNNN: the separators U+2028 / U+2029, the bidirectional marks, embeddings,
// overrides and isolates, and the byte-order mark. Their neighbours stay as they are.
TEST(EscapeUnprintable, LineBreakingAndReorderingCharacters) {
  EXPECT_EQ(escape_unprintable("a\xe2\x80\xa8" "b"), R"(a\u2028b)");             // line separator
  EXPECT_EQ(escape_unprintable("a\xe2\x80\xa9" "b"), R"(a\u2029b)");             // paragraph separator
  EXPECT_EQ(escape_unprintable("\xe2\x80\xae" "e4m3"), R"(\u202ee4m3)");         // right-to-left override
  EXPECT_EQ(escape_unprintable("\xe2\x80\xaa\xe2\x80\xad"), R"(\u202a\u202d)");  // embedding, override
  EXPECT_EQ(escape_unprintable("\xe2\x81\xa6x\xe2\x81\xa9"), R"(\u2066x\u2069)");  // an isolate and its end
  EXPECT_EQ(escape_unprintable("\xe2\x80\x8e\xe2\x80\x8f"), R"(\u200e\u200f)");  // LRM, RLM
  EXPECT_EQ(escape_unprintable("\xef\xbb\xbf" "1"), R"(\ufeff1)");               // byte-order mark
  // U+2027 and U+202F, either side of the separators, and U+2065, U+206A are kept.
  for (const std::string_view kept : {"\xe2\x80\xa7"sv, "\xe2\x80\xaf"sv, "\xe2\x81\xa5"sv, "\xe2\x81\xaa"sv})
    EXPECT_EQ(escape_unprintable(kept), kept);
  EXPECT_EQ(escape_unprintable(escape_unprintable("a\xe2\x80\xa8" "b")), R"(a\u2028b)");
}

// The command line escapes messages whose quoted parts the library escaped already.
TEST(EscapeUnprintable, EscapingTwiceChangesNothing) {
  for (const std::string_view text : {"e4m3\n"sv, "a\tb\x01\x7f"sv, "\xff\xc2\x85\xe2\x82"sv, "1\xc2\xb5s\\n"sv}) {
    const std::string once = escape_unprintable(text);
    EXPECT_EQ(escape_unprintable(once), once) << once;
  }
}

// The message of `parse`, which must throw std::invalid_argument.
std::string message_of(const std::function<void()>& parse) {
  try {
    parse();
  } catch (const std::invalid_argument& error) {
    return error.what();
  }
  return "(no exception)";
}

TEST(QuotedUserText, ParsersQuoteTheirTextEscaped) {
  EXPECT_EQ(message_of([] { parse_exact("1\n2"); }),
            R"(cannot parse '1\n2' as a number: expected digits, a point, an exponent, inf or nan)");
  EXPECT_EQ(message_of([] { parse_exact("0x1p\xff"); }),
            R"(cannot parse '0x1p\xff' as a number: unexpected character in the exponent)");
  EXPECT_EQ(message_of([] { parse_rounding("up\r"); }),
            R"(unknown rounding mode 'up\r' (accepted: nearest_even, nearest_away, nearest_zero, toward_zero, )"
            R"(away_from_zero, up, down, odd, stochastic, stochastic_equal))");
  EXPECT_EQ(message_of([] { parse_overflow("\x1b[2J"); }),
            R"(unknown overflow policy '\x1b[2J' (accepted: standard, saturate))");
  EXPECT_EQ(message_of([] { mx::parse_element("mxfp8\n"); }),
            R"(softfloat::mx::parse_element: unknown element kind 'mxfp8\n'; expected mxfp8_e4m3, mxfp8_e5m2, )"
            R"(mxfp6_e3m2, mxfp6_e2m3, mxfp4_e2m1 or mxint8)");
  EXPECT_EQ(message_of([] { mx::parse_scale_rule("floor\t"); }),
            R"(unknown scale rule 'floor\t' (accepted: floor, rceil, ceil, even))");
  EXPECT_EQ(message_of([] { cost::parse_storage_format("mx\tfp4"); }),
            R"(invalid format spec 'mx\tfp4': unknown block-scaled format; expected mxfp8_e4m3 mxfp8_e5m2 )"
            R"(mxfp6_e3m2 mxfp6_e2m3 mxfp4_e2m1 (mxfp4) mxint8 nvfp4, or a format spec such as bf16 or e4m3)");
  EXPECT_EQ(message_of([] { cost::illustrative_memory_level("HBM\n"); }).substr(0, 67),
            R"(softfloat::cost::illustrative_memory_level: unknown level 'HBM\n'; )");
}

}  // namespace
}  // namespace softfloat
