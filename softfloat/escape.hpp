// User text as error messages quote it: a format spec, a number, a rounding name, a
// file name or an environment variable, made one line of printable characters, so that
// a message stays one line on a terminal, in a log and in a Python traceback, and
// shows what was typed instead of acting on the terminal.
//
//   escape_unprintable("e4m3\n")        == R"(e4m3\n)"        shown as e4m3\n
//   escape_unprintable("a\tb\x01\x7f")  == R"(a\tb\x01\x7f)"   shown as a\tb\x01\x7f
//   escape_unprintable("\xff" "1")      == R"(\xff1)"          0xff is never UTF-8
//   escape_unprintable("\xc2\x85")      == R"(\xc2\x85)"       U+0085, a C1 line break
//   escape_unprintable("1\xc2\xb5s")    == "1\xc2\xb5s"        "1 micro-s": valid UTF-8 is kept
//   escape_unprintable("a\xe2\x80\xa8" "b") == R"(a\u2028b)"  U+2028, a line separator
//
// \n, \r and \t become their C escapes. Every other control character (C0 below 0x20,
// DEL 0x7f, C1 U+0080..U+009F) and every byte that is not part of well-formed UTF-8
// becomes \xNN, one per byte, in lowercase hex as Python's repr() writes it. The
// characters that break a line or reorder what a terminal shows without being control
// characters (U+2028 and U+2029, the bidirectional marks, embeddings, overrides and
// isolates U+200E, U+200F, U+202A..U+202E, U+2066..U+2069, and U+FEFF) become \uNNNN.
// Backslashes are kept as they are, so escaping twice changes nothing: the command line
// escapes its whole message, parts of which the library has escaped already.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace softfloat {
namespace detail {

// The length of the well-formed UTF-8 sequence that starts at text[at] (2, 3 or 4
// bytes), or 0 if there is none (text[at] is above 0x7f). The second byte's range
// depends on the lead (Unicode 15, table 3-7): E0 A0.., not E0 80.. (overlong), ED ..9F
// (above are UTF-16 surrogates), F0 90.. (overlong) and F4 ..8F (above U+10FFFF).
inline std::size_t utf8_sequence_length(std::string_view text, std::size_t at) {
  const auto byte = [&](std::size_t i) -> unsigned {
    return at + i < text.size() ? static_cast<unsigned char>(text[at + i]) : 0;
  };
  const unsigned lead = byte(0);
  std::size_t length = 0;
  unsigned low = 0x80, high = 0xbf;
  if (lead >= 0xc2 && lead <= 0xdf) {
    length = 2;
  } else if (lead >= 0xe0 && lead <= 0xef) {
    length = 3;
    if (lead == 0xe0) low = 0xa0;
    if (lead == 0xed) high = 0x9f;
  } else if (lead >= 0xf0 && lead <= 0xf4) {
    length = 4;
    if (lead == 0xf0) low = 0x90;
    if (lead == 0xf4) high = 0x8f;
  } else {
    return 0;  // 80..C1 (a continuation byte or an overlong lead) or F5..FF
  }
  if (byte(1) < low || byte(1) > high) return 0;
  for (std::size_t i = 2; i < length; ++i)
    if (byte(i) < 0x80 || byte(i) > 0xbf) return 0;
  return length;
}

// Whether the code point of a three-byte sequence is one of the invisible characters
// above that change how a line reads: separators and bidirectional controls.
inline bool reorders_or_breaks_lines(unsigned code_point) {
  return code_point == 0x200e || code_point == 0x200f || (code_point >= 0x2028 && code_point <= 0x202e) ||
         (code_point >= 0x2066 && code_point <= 0x2069) || code_point == 0xfeff;
}

}  // namespace detail

inline std::string escape_unprintable(std::string_view text) {
  std::string escaped;
  escaped.reserve(text.size());
  const auto escape_byte = [&escaped](char c) {
    constexpr char hex[] = "0123456789abcdef";
    const auto b = static_cast<unsigned char>(c);
    ((escaped += "\\x") += hex[b >> 4]) += hex[b & 0xf];
  };
  for (std::size_t at = 0; at < text.size();) {
    const char c = text[at];
    const auto b = static_cast<unsigned char>(c);
    if (b < 0x80) {
      if (c == '\n') escaped += "\\n";
      else if (c == '\r') escaped += "\\r";
      else if (c == '\t') escaped += "\\t";
      else if (b < 0x20 || b == 0x7f) escape_byte(c);
      else escaped += c;
      ++at;
      continue;
    }
    const std::size_t length = detail::utf8_sequence_length(text, at);
    if (length == 0) {
      escape_byte(c);
      ++at;
      continue;
    }
    // U+0080..U+009F are C2 80..C2 9F.
    const bool c1_control = b == 0xc2 && static_cast<unsigned char>(text[at + 1]) < 0xa0;
    const unsigned code_point = length == 3 ? ((b & 0x0fu) << 12) |
                                                  ((static_cast<unsigned char>(text[at + 1]) & 0x3fu) << 6) |
                                                  (static_cast<unsigned char>(text[at + 2]) & 0x3fu)
                                            : 0;
    if (c1_control) {
      escape_byte(text[at]);
      escape_byte(text[at + 1]);
    } else if (detail::reorders_or_breaks_lines(code_point)) {
      constexpr char hex[] = "0123456789abcdef";
      escaped += "\\u";
      for (int shift = 12; shift >= 0; shift -= 4) escaped += hex[(code_point >> shift) & 0xf];
    } else {
      escaped += text.substr(at, length);
    }
    at += length;
  }
  return escaped;
}

}  // namespace softfloat
