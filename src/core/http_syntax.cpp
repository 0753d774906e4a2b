#include "core/http_syntax.h"

#include <algorithm>

#include "core/ascii_scan.h"

namespace llmux {
namespace {

bool isVisibleAscii(char c) {
  auto u = static_cast<unsigned char>(c);
  return u > 0x20 && u < 0x7f;
}

}  // namespace

bool isHeaderName(std::string_view name) {
  if (name.empty()) return false;
  for (char c : name) {
    if (!isTokenChar(c)) return false;
  }
  return true;
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
