#pragma once

// What may go on the wire in an HTTP/1.1 head. Every name, value and request target llmux
// writes to an upstream passes these checks (proxy/upstream_request.cpp is the one place that
// writes heads): a CR or LF inside a value would end the header line early and let whoever
// chose the value write headers, or a whole second request, with the channel's credentials.

#include <array>
#include <string_view>

namespace llmux {

namespace detail {
inline constexpr auto kTokenChars = [] {
  std::array<bool, 256> table{};
  for (int c = 'a'; c <= 'z'; ++c) table[static_cast<std::size_t>(c)] = true;
  for (int c = 'A'; c <= 'Z'; ++c) table[static_cast<std::size_t>(c)] = true;
  for (int c = '0'; c <= '9'; ++c) table[static_cast<std::size_t>(c)] = true;
  for (char c : std::string_view("!#$%&'*+-.^_`|~")) table[static_cast<unsigned char>(c)] = true;
  return table;
}();
}  // namespace detail

/// A character of an RFC 9110 token: letters, digits and !#$%&'*+-.^_`|~. Inline (a table):
/// parsers test every byte of every header name with it.
inline bool isTokenChar(char c) { return detail::kTokenChars[static_cast<unsigned char>(c)]; }

/// An RFC 9110 token: the only characters a header name may have.
bool isHeaderName(std::string_view name);

/// A header value that cannot end its line early: no CR, LF, NUL or other control character
/// (HTAB allowed, bytes >= 0x80 allowed as obs-text).
bool isSafeHeaderValue(std::string_view value);

/// An origin-form request target ("/path?query"), or an absolute-form one ("http://host/path", what
/// an HTTP proxy takes): visible ASCII only (no space, control character or raw non-ASCII byte:
/// those must be percent-encoded).
bool isSafeRequestTarget(std::string_view target);

/// A credential as a provider issues it: visible ASCII only. Whitespace (a trailing newline read
/// from a file or a variable is the usual mistake) or control characters are refused at load, so
/// a secret can never break a header line or a URL.
bool isSafeSecret(std::string_view secret);

/// Why `secret` is not safe, in words that never quote it ("" when it is safe).
std::string_view secretProblem(std::string_view secret);

}  // namespace llmux
