#include "protocol/client_auth.h"

#include "core/strings.h"
#include "protocol/percent_encoding.h"

namespace llmux::protocol {
namespace {

std::optional<std::string> bearerToken(std::string_view value) {
  value = trimSpaces(value);
  constexpr std::string_view kScheme = "bearer";
  if (value.size() <= kScheme.size() ||
      !equalsIgnoreCase(value.substr(0, kScheme.size()), kScheme)) {
    return std::nullopt;
  }
  std::string_view rest = value.substr(kScheme.size());
  if (rest.front() != ' ' && rest.front() != '\t') return std::nullopt;  // "Bearerx"
  rest = trimSpaces(rest);
  if (rest.empty()) return std::nullopt;
  return std::string(rest);
}

std::optional<std::string> headerKey(HeaderList const& headers, std::string_view name) {
  std::string_view value = trimSpaces(headers.get(name));
  if (value.empty()) return std::nullopt;
  return std::string(value);
}

/// Whether a query parameter's name is `key`, however it is percent-encoded ("%6Bey").
bool isKeyParameter(std::string_view name) {
  if (name == "key") return true;
  if (name.find('%') == std::string_view::npos) return false;
  auto decoded = percentDecode(name);
  return decoded && *decoded == "key";
}

template <class Fn>
void forEachParameter(std::string_view query, Fn&& fn) {
  std::size_t start = 0;
  while (start <= query.size()) {
    std::size_t amp = query.find('&', start);
    if (amp == std::string_view::npos) amp = query.size();
    fn(query.substr(start, amp - start));
    start = amp + 1;
  }
}

std::string_view parameterName(std::string_view parameter) {
  return parameter.substr(0, parameter.find('='));
}

}  // namespace

std::optional<std::string> findClientKey(HeaderList const& headers, std::string_view query) {
  for (HeaderField const& field : headers) {
    if (!equalsIgnoreCase(field.name, "authorization")) continue;
    if (auto token = bearerToken(field.value)) return token;
  }
  if (auto key = headerKey(headers, "x-api-key")) return key;
  if (auto key = headerKey(headers, "x-goog-api-key")) return key;

  std::optional<std::string> found;
  forEachParameter(query, [&](std::string_view parameter) {
    if (found || !isKeyParameter(parameterName(parameter))) return;
    auto eq = parameter.find('=');
    if (eq == std::string_view::npos) return;
    auto value = percentDecode(parameter.substr(eq + 1));
    if (value && !value->empty()) found = std::move(value);
  });
  return found;
}

std::string queryWithoutClientKey(std::string_view query) {
  std::string out;
  out.reserve(query.size());
  bool first = true;
  forEachParameter(query, [&](std::string_view parameter) {
    if (isKeyParameter(parameterName(parameter))) return;
    if (!first) out += '&';
    first = false;
    out += parameter;
  });
  return out;
}

}  // namespace llmux::protocol
