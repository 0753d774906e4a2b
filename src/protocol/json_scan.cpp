#include "protocol/json_scan.h"

#include <algorithm>
#include <array>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace llmux::protocol {
namespace {

bool isWhitespace(char c) {
  return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}
bool isDigit(char c) {
  return c >= '0' && c <= '9';
}

int hexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

#if defined(__SSE2__)
inline __m128i load16(char const* p) {
  return _mm_loadu_si128(reinterpret_cast<__m128i const*>(p));
}
inline unsigned maskOf(__m128i bytes) {
  return static_cast<unsigned>(_mm_movemask_epi8(bytes));
}
inline __m128i eq(__m128i v, char c) {
  return _mm_cmpeq_epi8(v, _mm_set1_epi8(c));
}
inline unsigned maskEq(__m128i v, char c) {
  return maskOf(eq(v, c));
}
/// Lanes holding a byte that ends or interrupts plain string content: '"', '\\' or a control byte.
inline __m128i specialBytes(__m128i v) {
  __m128i control_max = _mm_set1_epi8(0x1F);
  __m128i controls = _mm_cmpeq_epi8(_mm_max_epu8(v, control_max), control_max);
  return _mm_or_si128(_mm_or_si128(eq(v, '"'), eq(v, '\\')), controls);
}
/// Lanes holding a byte in [lo, lo + span].
inline __m128i inRange(__m128i v, char lo, char span) {
  __m128i offset = _mm_sub_epi8(v, _mm_set1_epi8(lo));
  return _mm_cmpeq_epi8(_mm_min_epu8(offset, _mm_set1_epi8(span)), offset);
}
/// Lanes holding a hex digit.
inline unsigned hexMask(__m128i v) {
  return maskOf(
      _mm_or_si128(_mm_or_si128(inRange(v, '0', 9), inRange(v, 'a', 5)), inRange(v, 'A', 5)));
}
/// Lanes holding the letter of a one-character escape: \" \\ \/ \b \f \n \r \t.
inline unsigned simpleEscapeMask(__m128i v) {
  __m128i a =
      _mm_or_si128(_mm_or_si128(eq(v, '"'), eq(v, '\\')), _mm_or_si128(eq(v, '/'), eq(v, 'b')));
  __m128i b =
      _mm_or_si128(_mm_or_si128(eq(v, 'f'), eq(v, 'n')), _mm_or_si128(eq(v, 'r'), eq(v, 't')));
  return maskOf(_mm_or_si128(a, b));
}
#endif

JsonType typeFromFirstByte(char c) {
  switch (c) {
    case '{':
      return JsonType::Object;
    case '[':
      return JsonType::Array;
    case '"':
      return JsonType::String;
    case 't':
      return JsonType::True;
    case 'f':
      return JsonType::False;
    case 'n':
      return JsonType::Null;
    default:
      return JsonType::Number;
  }
}

/// The first byte from `p` on that is not JSON whitespace, or `end`.
char const* skipBlank(char const* p, char const* end) {
  if (p < end && !isWhitespace(*p)) return p;  // compact JSON: nothing to skip
#if defined(__SSE2__)
  while (end - p >= 16) {  // indentation runs of pretty-printed bodies
    __m128i v = load16(p);
    unsigned blank = maskOf(_mm_or_si128(_mm_or_si128(eq(v, ' '), eq(v, '\n')),
                                         _mm_or_si128(eq(v, '\r'), eq(v, '\t'))));
    if (blank != 0xFFFF) return p + __builtin_ctz(~blank);
    p += 16;
  }
#endif
  while (p < end && isWhitespace(*p)) ++p;
  return p;
}

/// One pass over the document. Every step takes the cursor and returns the advanced cursor, or
/// nullptr once it has recorded an error. Containers are tracked on an explicit stack, so
/// hostile nesting cannot exhaust the call stack.
class Scanner {
 public:
  explicit Scanner(std::string_view text) : begin_(text.data()), end_(text.data() + text.size()) {}

  JsonScan run();

 private:
  char const* fail(char const* at, std::string_view reason) {
    error_ = JsonScanError{static_cast<std::size_t>(at - begin_), reason};
    return nullptr;
  }
  std::size_t offsetOf(char const* p) const { return static_cast<std::size_t>(p - begin_); }

  char const* skipWhitespace(char const* p) const;
  char const* key(char const* p);
  char const* string(char const* p, bool& escaped);
  char const* escape(char const* p);
  char const* number(char const* p);
  char const* literal(char const* p, std::string_view word);

  char const* begin_;
  char const* end_;
  std::array<bool, kJsonMaxDepth> is_object_{};  ///< per open container: object (or array)
  std::size_t depth_ = 0;
  bool root_object_ = false;
  std::vector<JsonMember> members_;
  JsonScanError error_;
};

JsonScan Scanner::run() {
  JsonScan out;
  char const* p = skipWhitespace(begin_);
  if (p == end_) {
    fail(p, "the document is empty");
    out.error = error_;
    return out;
  }
  out.root = typeFromFirstByte(*p);
  out.root_begin = offsetOf(p);
  root_object_ = (*p == '{');

  for (;;) {
    // A value starts at p.
    if (p == end_) {
      fail(p, "unexpected end of input");
      break;
    }
    bool opened = false;
    switch (*p) {
      case '{':
      case '[': {
        if (depth_ == kJsonMaxDepth) {
          p = fail(p, "nesting deeper than 256 levels");
          break;
        }
        bool object = *p == '{';
        is_object_[depth_++] = object;
        p = skipWhitespace(p + 1);
        if (p < end_ && *p == (object ? '}' : ']')) {
          ++p;
          --depth_;
        } else {
          opened = true;
          if (object) p = key(p);
        }
        break;
      }
      case '"': {
        bool escaped = false;
        p = string(p, escaped);
        break;
      }
      case 't':
        p = literal(p, "true");
        break;
      case 'f':
        p = literal(p, "false");
        break;
      case 'n':
        p = literal(p, "null");
        break;
      default:
        p = (*p == '-' || isDigit(*p)) ? number(p) : fail(p, "expected a JSON value");
    }
    if (!p) break;
    if (opened) continue;  // the container's first value comes next

    // A value ended at p: close containers until the next member or element.
    bool next = false;
    while (p && !next) {
      if (depth_ == 0) {
        out.root_end = offsetOf(p);
        p = skipWhitespace(p);
        if (p != end_) {
          fail(p, "unexpected data after the JSON value");
          out.error = error_;
        } else {
          out.members = std::move(members_);
        }
        return out;
      }
      // Only the values of top-level members complete at depth 1 inside an object root.
      if (depth_ == 1 && root_object_) members_.back().value_end = offsetOf(p);
      p = skipWhitespace(p);
      if (p == end_) {
        p = fail(p, "unexpected end of input");
        break;
      }
      bool in_object = is_object_[depth_ - 1];
      if (*p == ',') {
        p = skipWhitespace(p + 1);
        if (in_object) p = key(p);
        next = true;
      } else if (*p == (in_object ? '}' : ']')) {
        ++p;
        --depth_;
      } else {
        p = fail(p, in_object ? "expected ',' or '}' after an object member"
                              : "expected ',' or ']' after an array element");
      }
    }
    if (!p) break;
  }
  out.error = error_;
  return out;
}

char const* Scanner::skipWhitespace(char const* p) const {
  return skipBlank(p, end_);
}

char const* Scanner::key(char const* p) {
  if (p == end_) return fail(p, "unexpected end of input");
  if (*p != '"') return fail(p, "expected a string key");
  char const* name_begin = p + 1;
  bool escaped = false;
  p = string(p, escaped);
  if (!p) return nullptr;
  std::string_view name(name_begin, static_cast<std::size_t>(p - 1 - name_begin));
  p = skipWhitespace(p);
  if (p == end_) return fail(p, "unexpected end of input");
  if (*p != ':') return fail(p, "expected ':' after an object key");
  p = skipWhitespace(p + 1);
  if (depth_ == 1 && root_object_) {
    if (p == end_) return fail(p, "unexpected end of input");
    if (members_.size() == kJsonMaxMembers) return fail(p, "more than 1024 top-level members");
    JsonMember member;
    member.key = name;
    member.key_escaped = escaped;
    member.type = typeFromFirstByte(*p);
    member.value_begin = offsetOf(p);
    members_.push_back(member);
  }
  return p;
}

// String content is most of an LLM request (prompts, code, base64 images), so this is the hot
// path. With SSE2 it takes 16 bytes per step: quotes, backslashes and control characters become
// bit masks and escapes are validated in bulk. The step never depends on what the block held
// (an escape running into the next block is carried as bits), so loads of consecutive blocks
// overlap. A block with an error goes byte by byte, which also yields the exact error offset.
char const* Scanner::string(char const* p, bool& escaped) {
  ++p;  // opening quote
#if defined(__SSE2__)
  // Keys and short values, most strings of an API message, end within 16 bytes: one block finds
  // their closing quote before the steps below would have set up (measured: a quarter of the
  // scan of a pretty-printed chat completion).
  if (end_ - p >= 16) {
    unsigned const special = maskOf(specialBytes(load16(p)));
    if (special == 0) {
      p += 16;  // plain text: the steps below go on from the next block
    } else if (char const* first = p + __builtin_ctz(special); *first == '"') {
      return first + 1;
    }  // else an escape or a control byte: the steps below judge the block
  }
#endif
  for (;;) {
    char const* slow_from = nullptr;
    char const* slow_until = end_;
#if defined(__SSE2__)
    __m128i const control_max = _mm_set1_epi8(0x1F);
    bool carry = false;    // lane 0 is escaped by a backslash that ended the previous block
    unsigned pending = 0;  // lanes that must be hex digits of a \u begun in the previous block
    char const* escape_start = p;  // the backslash of that carried escape
    while (end_ - p >= 16) {
      // Long runs of plain text (prompts, base64 images) are skipped 64 bytes at a time.
      if (!carry && pending == 0) {
        while (end_ - p >= 64) {
          __m128i any = _mm_or_si128(
              _mm_or_si128(specialBytes(load16(p)), specialBytes(load16(p + 16))),
              _mm_or_si128(specialBytes(load16(p + 32)), specialBytes(load16(p + 48))));
          if (maskOf(any) != 0) break;
          p += 64;
        }
        if (end_ - p < 16) break;
      }
      __m128i v = load16(p);
      unsigned backslashes = maskEq(v, '\\');
      unsigned quotes = maskEq(v, '"');
      unsigned controls = maskOf(_mm_cmpeq_epi8(_mm_max_epu8(v, control_max), control_max));
      if ((backslashes | quotes | controls | pending) == 0 && !carry) {
        p += 16;
        continue;
      }
      char const* restart = (carry || pending != 0) ? escape_start : p;
      if (pending != 0 && (pending & ~hexMask(v)) != 0) {
        slow_from = restart;
        slow_until = p + 16;
        break;
      }
      unsigned escapes = carry ? 1u : 0u;
      bool next_carry = false;
      for (unsigned b = backslashes & ~escapes; b != 0;) {
        unsigned i = static_cast<unsigned>(__builtin_ctz(b));
        if (i == 15) {
          next_carry = true;
          break;
        }
        escapes |= 1u << (i + 1);
        b &= ~(3u << i);  // this backslash, and the next byte if it is an escaped backslash
      }
      unsigned closing = quotes & ~escapes;
      unsigned inside = closing != 0 ? (closing & (0u - closing)) - 1 : 0xFFFFu;
      unsigned used = escapes & inside;
      unsigned unicode = 0;
      bool bad = (controls & inside) != 0;
      if (used != 0 && !bad) {
        escaped = true;
        unicode = used & maskEq(v, 'u');
        unsigned others = used & ~unicode;
        bad = others != 0 && (others & ~simpleEscapeMask(v)) != 0;
      }
      unsigned digits = (unicode << 1) | (unicode << 2) | (unicode << 3) | (unicode << 4);
      if (bad || (digits & 0xFFFFu & ~hexMask(v)) != 0) {
        slow_from = restart;
        slow_until = p + 16;
        break;
      }
      if (closing != 0) return p + __builtin_ctz(closing) + 1;
      carry = next_carry;
      pending = digits >> 16;
      if (carry) {
        escaped = true;
        escape_start = p + 15;
      } else if (pending != 0) {
        escape_start = p + (30 - __builtin_clz(unicode));  // the backslash before the last 'u'
      }
      p += 16;
    }
    if (!slow_from && (carry || pending != 0)) slow_from = escape_start;
#endif
    if (slow_from) p = slow_from;
    while (p < slow_until) {
      char c = *p;
      if (c == '"') return p + 1;
      if (c == '\\') {
        escaped = true;
        p = escape(p);
        if (!p) return nullptr;
      } else if (static_cast<unsigned char>(c) < 0x20) {
        return fail(p, "control character in string");
      } else {
        ++p;
      }
    }
    if (p >= end_) return fail(end_, "unterminated string");
  }
}

/// Validates the escape sequence at p (a backslash) and returns the byte after it.
char const* Scanner::escape(char const* p) {
  if (end_ - p < 2) return fail(p, "unterminated string");
  switch (p[1]) {
    case '"':
    case '\\':
    case '/':
    case 'b':
    case 'f':
    case 'n':
    case 'r':
    case 't':
      return p + 2;
    case 'u':
      if (end_ - p < 6 || hexValue(p[2]) < 0 || hexValue(p[3]) < 0 || hexValue(p[4]) < 0 ||
          hexValue(p[5]) < 0) {
        return fail(p, "invalid \\u escape in string");
      }
      return p + 6;
    default:
      return fail(p, "invalid escape in string");
  }
}

char const* Scanner::number(char const* p) {
  if (*p == '-') ++p;
  if (p == end_ || !isDigit(*p)) return fail(p, "invalid number");
  if (*p == '0') {
    ++p;
  } else {
    while (p < end_ && isDigit(*p)) ++p;
  }
  if (p < end_ && *p == '.') {
    ++p;
    if (p == end_ || !isDigit(*p)) return fail(p, "invalid number: expected a digit after '.'");
    while (p < end_ && isDigit(*p)) ++p;
  }
  if (p < end_ && (*p == 'e' || *p == 'E')) {
    ++p;
    if (p < end_ && (*p == '+' || *p == '-')) ++p;
    if (p == end_ || !isDigit(*p)) return fail(p, "invalid number: expected an exponent digit");
    while (p < end_ && isDigit(*p)) ++p;
  }
  return p;
}

char const* Scanner::literal(char const* p, std::string_view word) {
  if (static_cast<std::size_t>(end_ - p) < word.size() ||
      std::memcmp(p, word.data(), word.size()) != 0) {
    return fail(p, "invalid literal");
  }
  return p + word.size();
}

unsigned parseHex4(char const* p) {
  unsigned v = 0;
  for (int i = 0; i < 4; ++i) v = v * 16 + static_cast<unsigned>(hexValue(p[i]));
  return v;
}

void appendUtf8(std::string& out, unsigned cp) {
  if (cp < 0x80) {
    out.push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

bool isHex4(std::string_view s, std::size_t at) {
  if (at + 4 > s.size()) return false;
  for (std::size_t i = at; i < at + 4; ++i) {
    if (hexValue(s[i]) < 0) return false;
  }
  return true;
}

}  // namespace

namespace {

/// The closing quote of the string whose content starts at `p` (after its opening quote), or
/// `end`; `escaped` is set when a backslash was met. Escapes are skipped, not validated.
char const* skimString(char const* p, char const* end, bool& escaped) {
  for (;;) {
#if defined(__SSE2__)
    while (end - p >= 16) {
      __m128i v = load16(p);
      unsigned stops = maskOf(_mm_or_si128(eq(v, '"'), eq(v, '\\')));
      if (stops != 0) {
        p += __builtin_ctz(stops);
        break;
      }
      p += 16;
    }
#endif
    while (p < end && *p != '"' && *p != '\\') ++p;
    if (p >= end) return end;
    if (*p == '"') return p;
    escaped = true;
    p += 2;  // the backslash and the byte it escapes
    if (p >= end) return end;
  }
}

/// The first of '"', '{', '}', '[', ']' or ',' from `p` on, or `end`: what a skim acts on
/// (whitespace, numbers and literals in between are passed over a block at a time).
char const* nextStructural(char const* p, char const* end) {
#if defined(__SSE2__)
  while (end - p >= 16) {
    __m128i v = load16(p);
    unsigned hits = maskOf(_mm_or_si128(
        _mm_or_si128(_mm_or_si128(eq(v, '"'), eq(v, ',')), _mm_or_si128(eq(v, '{'), eq(v, '}'))),
        _mm_or_si128(eq(v, '['), eq(v, ']'))));
    if (hits != 0) return p + __builtin_ctz(hits);
    p += 16;
  }
#endif
  while (p < end && *p != '"' && *p != ',' && *p != '{' && *p != '}' && *p != '[' && *p != ']') ++p;
  return p;
}

/// One past the last non-whitespace byte before `p`, not before `floor`.
char const* trimBack(char const* floor, char const* p) {
  while (p > floor && isWhitespace(p[-1])) --p;
  return p;
}

}  // namespace

std::optional<JsonMember> skimTopLevelMember(std::string_view text,
                                             std::initializer_list<std::string_view> keys) {
  char const* const begin = text.data();
  char const* const end = begin + text.size();
  char const* p = begin;
  p = skipBlank(p, end);
  if (p == end || *p != '{') return std::nullopt;
  ++p;
  std::size_t depth = 1;  // inside the root object
  bool expect_key = true;
  std::optional<JsonMember> found;
  JsonMember current;
  bool in_value = false;  // `current` is a member of the root whose value is being skimmed
  auto finish = [&](char const* at) {  // the value of `current` ends before `at`
    if (!in_value) return;
    current.value_end = static_cast<std::size_t>(trimBack(begin + current.value_begin, at) - begin);
    for (std::string_view key : keys) {
      if (current.keyIs(key)) {
        found = current;
        break;
      }
    }
    in_value = false;
  };
  while (p < end) {
    switch (*p) {
      case '"': {
        bool escaped = false;
        char const* close = skimString(p + 1, end, escaped);
        if (close == end) return std::nullopt;
        if (depth == 1 && expect_key) {
          current = JsonMember{};
          current.key = std::string_view(p + 1, static_cast<std::size_t>(close - p - 1));
          current.key_escaped = escaped;
          p = close + 1;
          p = skipBlank(p, end);
          if (p == end || *p != ':') return std::nullopt;
          p = skipBlank(p + 1, end);
          if (p == end) return std::nullopt;
          current.type = typeFromFirstByte(*p);
          current.value_begin = static_cast<std::size_t>(p - begin);
          in_value = true;
          expect_key = false;
          continue;  // the value starts at p
        }
        p = nextStructural(close + 1, end);
        continue;
      }
      case '{':
      case '[':
        ++depth;
        break;
      case '}':
      case ']':
        if (--depth == 0) {
          finish(p);
          return found;
        }
        break;
      case ',':
        if (depth == 1) {
          finish(p);
          expect_key = true;
        }
        break;
      default:
        p = nextStructural(p + 1, end);
        continue;
    }
    p = nextStructural(p + 1, end);
  }
  return std::nullopt;  // cut short
}

bool JsonMember::keyIs(std::string_view name) const {
  if (!key_escaped) return key == name;
  return decodeJsonString(key) == name;
}

JsonScan scanJson(std::string_view text) {
  return Scanner(text).run();
}

std::string decodeJsonString(std::string_view s) {
  constexpr unsigned kReplacement = 0xFFFD;
  std::string out;
  out.reserve(s.size());
  std::size_t i = 0;
  while (i < s.size()) {
    char c = s[i];
    if (c != '\\' || i + 1 >= s.size()) {
      out.push_back(c);
      ++i;
      continue;
    }
    char e = s[i + 1];
    i += 2;
    switch (e) {
      case '"':
        out.push_back('"');
        break;
      case '\\':
        out.push_back('\\');
        break;
      case '/':
        out.push_back('/');
        break;
      case 'b':
        out.push_back('\b');
        break;
      case 'f':
        out.push_back('\f');
        break;
      case 'n':
        out.push_back('\n');
        break;
      case 'r':
        out.push_back('\r');
        break;
      case 't':
        out.push_back('\t');
        break;
      case 'u': {
        if (!isHex4(s, i)) {  // not produced by a validated token; keep the bytes
          out.append("\\u");
          break;
        }
        unsigned cp = parseHex4(s.data() + i);
        i += 4;
        if (cp >= 0xD800 && cp <= 0xDBFF) {
          if (i + 6 <= s.size() && s[i] == '\\' && s[i + 1] == 'u' && isHex4(s, i + 2)) {
            unsigned low = parseHex4(s.data() + i + 2);
            if (low >= 0xDC00 && low <= 0xDFFF) {
              cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
              i += 6;
            } else {
              cp = kReplacement;
            }
          } else {
            cp = kReplacement;
          }
        } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
          cp = kReplacement;
        }
        appendUtf8(out, cp);
        break;
      }
      default:
        out.push_back('\\');
        out.push_back(e);
    }
  }
  return out;
}

}  // namespace llmux::protocol
