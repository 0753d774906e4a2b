#include "payloads/redaction.h"

#include <algorithm>
#include <array>

#include "core/json_text.h"
#include "core/strings.h"

namespace llmux::payloads {
namespace {

constexpr std::string_view kBlank = "\"\"";

/// Headers that carry the client's credentials: blanked whatever `redact` says.
constexpr std::array<std::string_view, 5> kCredentialHeaders = {
    "authorization", "x-api-key", "x-goog-api-key", "proxy-authorization", "cookie"};

bool isSpace(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

std::size_t skipSpace(std::string_view text, std::size_t i) {
  while (i < text.size() && isSpace(text[i])) ++i;
  return i;
}

/// The index of the quote closing the string that opens at `open`, or npos when cut.
std::size_t closingQuote(std::string_view text, std::size_t open) {
  for (std::size_t i = open + 1; i < text.size(); ++i) {
    if (text[i] == '\\') {
      ++i;
    } else if (text[i] == '"') {
      return i;
    }
  }
  return std::string_view::npos;
}

/// One past the JSON value starting at `start` (the end of the text when it is cut).
std::size_t valueEnd(std::string_view text, std::size_t start) {
  if (start >= text.size()) return text.size();
  char const first = text[start];
  if (first == '"') {
    auto close = closingQuote(text, start);
    return close == std::string_view::npos ? text.size() : close + 1;
  }
  if (first == '{' || first == '[') {
    int depth = 0;
    for (std::size_t i = start; i < text.size(); ++i) {
      char const c = text[i];
      if (c == '"') {
        i = closingQuote(text, i);
        if (i == std::string_view::npos) return text.size();
      } else if (c == '{' || c == '[') {
        ++depth;
      } else if ((c == '}' || c == ']') && --depth == 0) {
        return i + 1;
      }
    }
    return text.size();
  }
  std::size_t i = start;
  while (i < text.size() && !isSpace(text[i]) && text[i] != ',' && text[i] != '}' && text[i] != ']') ++i;
  return i;
}

bool listed(std::string_view name, std::vector<std::string> const& names) {
  return std::any_of(names.begin(), names.end(),
                     [&](std::string const& listed_name) { return equalsIgnoreCase(name, listed_name); });
}

}  // namespace

void redactJsonFields(std::string& text, std::vector<std::string> const& names) {
  if (names.empty()) return;
  std::size_t i = 0;
  while ((i = text.find('"', i)) != std::string::npos) {
    std::size_t const close = closingQuote(text, i);
    if (close == std::string::npos) return;
    std::string_view const name(text.data() + i + 1, close - i - 1);
    std::size_t const colon = skipSpace(text, close + 1);
    if (colon < text.size() && text[colon] == ':' && listed(name, names)) {
      std::size_t const start = skipSpace(text, colon + 1);
      text.replace(start, valueEnd(text, start) - start, kBlank);
      i = start + kBlank.size();
      continue;
    }
    i = close + 1;
  }
}

std::string redactedHeadersJson(HeaderList const& headers, std::vector<std::string> const& names) {
  std::string out = "{";
  for (auto const& field : headers) {
    std::string const name = toLower(field.name);
    bool const secret = listed(name, names) ||
                        std::find(kCredentialHeaders.begin(), kCredentialHeaders.end(), name) !=
                            kCredentialHeaders.end();
    if (out.size() > 1) out += ',';
    appendJsonString(out, name);
    out += ':';
    appendJsonString(out, secret ? std::string_view() : field.value);
  }
  out += '}';
  return out;
}

}  // namespace llmux::payloads
