#include "config/env.h"

#include <algorithm>
#include <cstdlib>
#include <vector>

namespace llmux::config {
namespace {

bool isNameStart(char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_'; }
bool isNameChar(char c) { return isNameStart(c) || (c >= '0' && c <= '9'); }

}  // namespace

EnvLookup processEnvironment() {
  return [](std::string_view name) -> std::optional<std::string> {
    char const* value = std::getenv(std::string(name).c_str());
    if (value == nullptr) return std::nullopt;
    return std::string(value);
  };
}

bool isVariableName(std::string_view name) {
  if (name.empty() || !isNameStart(name.front())) return false;
  for (char c : name) {
    if (!isNameChar(c)) return false;
  }
  return true;
}

Result<std::string> expandVariables(std::string_view text, EnvLookup const& env) {
  std::string out;
  out.reserve(text.size());
  std::vector<std::string> missing;
  std::size_t i = 0;
  while (i < text.size()) {
    if (text[i] != '$' || i + 1 >= text.size() || text[i + 1] != '{') {
      out += text[i++];
      continue;
    }
    std::size_t close = text.find('}', i + 2);
    std::string_view name =
        close == std::string_view::npos ? std::string_view() : text.substr(i + 2, close - i - 2);
    if (!isVariableName(name)) {
      return makeError(ErrorKind::InvalidRequest,
                       "malformed variable reference (expected ${NAME} with NAME made of letters, "
                       "digits and _)");
    }
    if (auto value = env(name)) {
      out += *value;
    } else if (std::find(missing.begin(), missing.end(), name) == missing.end()) {
      missing.emplace_back(name);
    }
    i = close + 1;
  }
  if (missing.empty()) return out;
  std::string message = missing.size() == 1 ? "environment variable " : "environment variables ";
  for (std::size_t k = 0; k < missing.size(); ++k) {
    if (k > 0) message += ", ";
    message += missing[k];
  }
  message += missing.size() == 1 ? " is not set" : " are not set";
  return makeError(ErrorKind::InvalidRequest, std::move(message));
}

}  // namespace llmux::config
