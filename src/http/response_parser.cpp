#include "http/response_parser.h"

#include <algorithm>
#include <limits>

#include "core/http_syntax.h"
#include "core/strings.h"

namespace llmux::http {
namespace {

constexpr std::string_view kLineEnd = "\r\n";
constexpr std::string_view kBlankLine = "\r\n\r\n";

bool isDigit(char c) { return c >= '0' && c <= '9'; }
bool isBlank(char c) { return c == ' ' || c == '\t'; }

int hexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

/// Calls `each` with every element of a comma-separated list, blanks trimmed (empty ones too).
template <class Each>
void forEachElement(std::string_view list, Each each) {
  for (;;) {
    auto comma = list.find(',');
    each(trimSpaces(list.substr(0, comma)));
    if (comma == std::string_view::npos) return;
    list.remove_prefix(comma + 1);
  }
}

/// A whole decimal number that fits 64 bits.
bool parseDecimal(std::string_view s, std::uint64_t& out) {
  if (s.empty()) return false;
  std::uint64_t value = 0;
  for (char c : s) {
    if (!isDigit(c)) return false;
    auto digit = static_cast<std::uint64_t>(c - '0');
    if (value > (std::numeric_limits<std::uint64_t>::max() - digit) / 10) return false;
    value = value * 10 + digit;
  }
  out = value;
  return true;
}

constexpr std::string_view kBadChunkExtension = "bad chunk extension";
/// RFC 9110's quoted-string has no control bytes (tab aside) even escaped; Beast let them by.
constexpr std::string_view kControlInChunkExtension =
    "bad chunk extension (a control byte in a quoted value)";

/// Why `s`, what follows a chunk's size on its line, is not a list of chunk extensions
/// `*( BWS ";" BWS name [ BWS "=" BWS ( token / quoted-string ) ] )` (RFC 9112 §7.1.1); empty
/// when it is one. Blanks are allowed only where the grammar has BWS: not at the end.
std::string_view chunkExtensionProblem(std::string_view s) {
  std::size_t i = 0;
  auto skipBlanks = [&] {
    while (i < s.size() && isBlank(s[i])) ++i;
  };
  auto token = [&] {
    std::size_t start = i;
    while (i < s.size() && isTokenChar(s[i])) ++i;
    return i > start;
  };
  auto isControl = [](char c) {
    auto u = static_cast<unsigned char>(c);
    return (u < 0x20 && c != '\t') || u == 0x7f;
  };
  auto quoted = [&]() -> std::string_view {
    for (++i; i < s.size(); ++i) {
      if (s[i] == '"') {
        ++i;
        return {};
      }
      if (s[i] == '\\' && ++i == s.size()) break;
      if (isControl(s[i])) return kControlInChunkExtension;
    }
    return kBadChunkExtension;  // unterminated
  };
  for (;;) {
    if (i == s.size()) return {};
    skipBlanks();
    if (i == s.size() || s[i] != ';') return kBadChunkExtension;
    ++i;
    skipBlanks();
    if (!token()) return kBadChunkExtension;
    std::size_t const name_end = i;
    skipBlanks();
    if (i == s.size()) return i == name_end ? std::string_view{} : kBadChunkExtension;
    if (s[i] == ';') continue;
    if (s[i] != '=') return kBadChunkExtension;
    ++i;
    skipBlanks();
    if (i < s.size() && s[i] == '"') {
      if (auto problem = quoted(); !problem.empty()) return problem;
    } else if (!token()) {
      return kBadChunkExtension;
    }
  }
}

/// Splits `lines` (each ending with CRLF) into header fields, obsolete folds joined with a
/// space, and hands each to `take(name, value)`, which may refuse it with an error text. An
/// error text, or empty.
template <class Take>
std::string_view parseFieldLines(std::string_view lines, Take take) {
  std::string folded;  // only when a value is folded over several lines (obsolete, rare)
  auto nextLine = [&] {
    auto end = lines.find(kLineEnd);  // every line ends with one
    std::string_view line = lines.substr(0, end);
    lines.remove_prefix(end + kLineEnd.size());
    return line;
  };
  while (!lines.empty()) {
    std::string_view line = nextLine();
    std::size_t colon = 0;  // the name is a token, followed at once by the colon
    while (colon < line.size() && isTokenChar(line[colon])) ++colon;
    if (colon == 0 || colon == line.size() || line[colon] != ':') return "bad field name";
    std::string_view value = trimSpaces(line.substr(colon + 1));
    if (!isSafeHeaderValue(value)) return "bad field value";
    if (!lines.empty() && isBlank(lines.front())) {
      folded.assign(value);
      while (!lines.empty() && isBlank(lines.front())) {
        std::string_view more = trimSpaces(nextLine());
        if (!isSafeHeaderValue(more)) return "bad field value";
        if (more.empty()) continue;
        if (!folded.empty()) folded += ' ';
        folded += more;
      }
      value = folded;
    }
    if (auto refused = take(line.substr(0, colon), value); !refused.empty()) return refused;
  }
  return {};
}

ResponseParser::Step failed(std::string_view error) {
  return ResponseParser::Step{.error = error};
}

constexpr ResponseParser::Step kNeedMore{.need_more = true};

}  // namespace

ResponseParser::Step ResponseParser::put(std::string_view data) {
  if (!data.empty()) got_some_ = true;
  switch (state_) {
    case State::Head: return parseHead(data);
    case State::SizedBody: return takeSized(data, State::Done);
    case State::BodyToEof:
      if (data.empty()) return kNeedMore;
      body_.append(data.data(), data.size());
      return {.used = data.size()};
    case State::ChunkHeader: return parseChunkHeader(data);
    case State::ChunkData: return takeSized(data, State::ChunkHeader);
    case State::Done: return {};
  }
  return {};
}

ResponseParser::Step ResponseParser::takeSized(std::string_view data, State after) {
  if (data.empty()) return kNeedMore;
  auto n = static_cast<std::size_t>(std::min<std::uint64_t>(remaining_, data.size()));
  body_.append(data.data(), n);
  remaining_ -= n;
  if (remaining_ == 0) state_ = after;
  return {.used = n};
}

bool ResponseParser::putEof() {
  if (state_ == State::BodyToEof) state_ = State::Done;
  return state_ == State::Done;
}

bool ResponseParser::keepAlive() const {
  if (http11_ ? connection_close_ : !connection_keep_alive_) return false;
  return !body_to_eof_;
}

ResponseParser::Step ResponseParser::parseHead(std::string_view data) {
  auto blank = data.find(kBlankLine);
  if (blank == std::string_view::npos) return kNeedMore;
  std::string_view fields = data.substr(0, blank + kLineEnd.size());
  auto line_end = fields.find(kLineEnd);
  std::string_view status_line = fields.substr(0, line_end);
  fields.remove_prefix(line_end + kLineEnd.size());

  // HTTP-version SP 3DIGIT SP reason-phrase
  std::string_view const s = status_line;
  if (s.size() < 13 || !s.starts_with("HTTP/1.") || !isDigit(s[7]) || s[8] != ' ') {
    return failed("bad status line (HTTP/1.0 or HTTP/1.1 expected)");
  }
  if (s[7] != '0' && s[7] != '1') return failed("bad HTTP version");
  if (!isDigit(s[9]) || !isDigit(s[10]) || !isDigit(s[11]) || s[12] != ' ') {
    return failed("bad status code");
  }
  if (!isSafeHeaderValue(s.substr(13))) return failed("bad reason phrase");
  http11_ = s[7] == '1';
  status_ = (s[9] - '0') * 100 + (s[10] - '0') * 10 + (s[11] - '0');

  std::string_view refused = parseFieldLines(fields, [&](std::string_view name, std::string_view value) {
    if (auto problem = noteField(name, value); !problem.empty()) return problem;
    headers_.add(name, value);
    return std::string_view{};
  });
  if (!refused.empty()) return failed(refused);

  if (status_ / 100 == 1 || status_ == 204 || status_ == 304) {
    state_ = State::Done;  // no body, whatever the head declares (RFC 9110 §6.4.1)
  } else if (content_length_) {
    remaining_ = *content_length_;
    state_ = remaining_ > 0 ? State::SizedBody : State::Done;
  } else if (chunked_) {
    state_ = State::ChunkHeader;
  } else {
    body_to_eof_ = true;
    state_ = State::BodyToEof;
  }
  return {.used = blank + kBlankLine.size()};
}

std::string_view ResponseParser::noteField(std::string_view name, std::string_view value) {
  // Most fields frame nothing: their length rules them out before any comparison.
  constexpr std::size_t kFramingLengths = (1u << 10) | (1u << 14) | (1u << 16) | (1u << 17);
  if (name.size() > 17 || ((kFramingLengths >> name.size()) & 1u) == 0) return {};
  if (equalsIgnoreCase(name, "content-length")) {
    if (chunked_) return "Content-Length with the chunked coding";
    std::optional<std::uint64_t> length = content_length_;
    bool bad = false;
    bool conflicting = false;
    forEachElement(value, [&](std::string_view element) {
      std::uint64_t n = 0;
      if (!parseDecimal(element, n)) {
        bad = true;
      } else if (length && *length != n) {
        conflicting = true;
      } else {
        length = n;
      }
    });
    if (bad) return "bad Content-Length";
    if (conflicting) return "conflicting Content-Length values";
    content_length_ = length;
    return {};
  }
  if (equalsIgnoreCase(name, "transfer-encoding")) {
    if (chunked_) return "a second Transfer-Encoding after chunked";
    if (content_length_) return "Transfer-Encoding with Content-Length";
    // Chunked when `chunked` is the last coding (RFC 9112 §6.3); any other coding is read to
    // the end of the connection.
    bool chunked_seen = false;
    bool chunked_last = false;
    bool bad = false;
    forEachElement(value, [&](std::string_view coding) {
      if (coding.empty()) return;  // an empty list element counts for nothing
      if (!isHeaderName(coding)) bad = true;  // a token (parameters are not taken)
      if (chunked_seen) {
        chunked_last = false;
        return;
      }
      if (equalsIgnoreCase(coding, "chunked")) chunked_seen = chunked_last = true;
    });
    // Beast read such a list up to its first fault; refused here: which coding comes last
    // must not be a guess.
    if (bad) return "bad Transfer-Encoding";
    chunked_ = chunked_last;
    return {};
  }
  if (equalsIgnoreCase(name, "connection") || equalsIgnoreCase(name, "proxy-connection")) {
    bool bad = false;
    forEachElement(value, [&](std::string_view option) {
      if (option.empty()) return;
      if (!isHeaderName(option)) bad = true;
      if (equalsIgnoreCase(option, "close")) connection_close_ = true;
      if (equalsIgnoreCase(option, "keep-alive")) connection_keep_alive_ = true;
    });
    if (bad) return "bad Connection value";
  }
  return {};
}

ResponseParser::Step ResponseParser::parseChunkHeader(std::string_view data) {
  // The line end after the previous chunk's data is read with the next chunk's header line.
  std::size_t at = 0;
  if (chunk_line_end_due_) {
    if (data.size() < kLineEnd.size()) return kNeedMore;
    if (!data.starts_with(kLineEnd)) return failed("bad chunk (no line end after its data)");
    at = kLineEnd.size();
  }
  auto line_end = data.find(kLineEnd, at);
  if (line_end == std::string_view::npos) return kNeedMore;
  std::string_view line = data.substr(at, line_end - at);
  std::uint64_t size = 0;
  std::size_t digits = 0;
  for (; digits < line.size() && hexValue(line[digits]) >= 0; ++digits) {
    if (size > (std::numeric_limits<std::uint64_t>::max() >> 4)) {
      return failed("bad chunk size (too large)");
    }
    size = size * 16 + static_cast<std::uint64_t>(hexValue(line[digits]));
  }
  if (digits == 0) return failed("bad chunk size");
  if (auto problem = chunkExtensionProblem(line.substr(digits)); !problem.empty()) {
    return failed(problem);
  }
  std::size_t used = line_end + kLineEnd.size();
  if (size > 0) {
    remaining_ = size;
    chunk_line_end_due_ = true;
    state_ = State::ChunkData;
    return {.used = used};
  }
  // The last chunk: its trailer section, up to a blank line, is checked and dropped.
  std::string_view rest = data.substr(used);
  if (rest.size() < kLineEnd.size()) return kNeedMore;
  if (rest.starts_with(kLineEnd)) {
    state_ = State::Done;
    return {.used = used + kLineEnd.size()};
  }
  auto blank = rest.find(kBlankLine);
  if (blank == std::string_view::npos) return kNeedMore;
  std::string_view refused = parseFieldLines(
      rest.substr(0, blank + kLineEnd.size()),
      [](std::string_view, std::string_view) { return std::string_view{}; });
  if (!refused.empty()) return failed(refused);
  state_ = State::Done;
  return {.used = used + blank + kBlankLine.size()};
}

}  // namespace llmux::http
