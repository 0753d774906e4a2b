#include "core/http_syntax.h"

#include <algorithm>
#include <array>

#include "core/ascii_scan.h"

namespace llmux {
namespace {

/// RFC 9110 tchar: letters, digits and !#$%&'*+-.^_`|~ (a table: every header name of every
/// request is checked byte by byte).
constexpr auto kTokenChars = [] {
  std::array<bool, 256> table{};
  for (int c = 'a'; c <= 'z'; ++c) table[static_cast<std::size_t>(c)] = true;
  for (int c = 'A'; c <= 'Z'; ++c) table[static_cast<std::size_t>(c)] = true;
  for (int c = '0'; c <= '9'; ++c) table[static_cast<std::size_t>(c)] = true;
  for (char c : std::string_view("!#$%&'*+-.^_`|~")) table[static_cast<unsigned char>(c)] = true;
  return table;
}();

bool isTokenChar(char c) { return kTokenChars[static_cast<unsigned char>(c)]; }

bool isVisibleAscii(char c) {
  auto u = static_cast<unsigned char>(c);
  return u > 0x20 && u < 0x7f;
}

}  // namespace

bool isHeaderName(std::string_view name) {
  return !name.empty() && std::all_of(name.begin(), name.end(), isTokenChar);
}

bool isSafeHeaderValue(std::string_view value) { return findHeaderControl(value) == value.size(); }

bool isSafeRequestTarget(std::string_view target) {
  bool const origin_form = target.starts_with('/');
  bool const absolute_form = target.starts_with("http://") || target.starts_with("https://");
  return (origin_form || absolute_form) && std::all_of(target.begin(), target.end(), isVisibleAscii);
}

bool isSafeSecret(std::string_view secret) { return secretProblem(secret).empty(); }

std::string_view secretProblem(std::string_view secret) {
  if (secret.empty()) return "empty secret";
  char last = secret.back();
  if (last == '\n' || last == '\r') {
    return "the secret ends with a line break (read from a file or a variable with its newline?)";
  }
  if (secret.front() == ' ' || secret.front() == '\t' || last == ' ' || last == '\t') {
    return "the secret starts or ends with whitespace";
  }
  for (char c : secret) {
    if (c == ' ' || c == '\t') return "the secret contains whitespace";
    if (!isVisibleAscii(c)) return "the secret contains a control character or a non-ASCII byte";
  }
  return {};
}

}  // namespace llmux
