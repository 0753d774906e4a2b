#include "core/http_syntax.h"

#include <algorithm>

namespace llmux {
namespace {

bool isTokenChar(char c) {
  if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')) return true;
  return std::string_view("!#$%&'*+-.^_`|~").find(c) != std::string_view::npos;
}

bool isVisibleAscii(char c) {
  auto u = static_cast<unsigned char>(c);
  return u > 0x20 && u < 0x7f;
}

}  // namespace

bool isHeaderName(std::string_view name) {
  return !name.empty() && std::all_of(name.begin(), name.end(), isTokenChar);
}

bool isSafeHeaderValue(std::string_view value) {
  for (char c : value) {
    auto u = static_cast<unsigned char>(c);
    if ((u < 0x20 && c != '\t') || u == 0x7f) return false;
  }
  return true;
}

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
