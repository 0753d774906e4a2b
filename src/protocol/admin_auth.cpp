#include "protocol/admin_auth.h"

#include "core/strings.h"

namespace llmux::protocol {
namespace {

/// The token of `Authorization: Bearer <t>`, "" when the value is something else.
std::string_view bearerToken(std::string_view value) {
  value = trimSpaces(value);
  constexpr std::string_view kScheme = "bearer";
  if (value.size() <= kScheme.size() || !equalsIgnoreCase(value.substr(0, kScheme.size()), kScheme)) {
    return {};
  }
  std::string_view rest = value.substr(kScheme.size());
  if (rest.front() != ' ' && rest.front() != '\t') return {};  // "Bearerx"
  return trimSpaces(rest);
}

}  // namespace

AdminAuth checkAdminToken(HeaderList const& headers, std::string_view admin_token) {
  return checkOperatorToken(headers, admin_token, "x-admin-token");
}

AdminAuth checkOperatorToken(HeaderList const& headers, std::string_view admin_token,
                             std::string_view token_header) {
  if (admin_token.empty()) return AdminAuth::Disabled;
  bool presented = false;
  bool matched = false;
  auto consider = [&](std::string_view token) {
    if (token.empty()) return;
    presented = true;
    // Every presented token is compared, so the time does not tell which one matched.
    matched |= secretEquals(token, admin_token);
  };
  for (HeaderField const& field : headers) {
    if (equalsIgnoreCase(field.name, "authorization")) {
      consider(bearerToken(field.value));
    } else if (!token_header.empty() && equalsIgnoreCase(field.name, token_header)) {
      consider(trimSpaces(field.value));
    }
  }
  if (matched) return AdminAuth::Ok;
  return presented ? AdminAuth::Wrong : AdminAuth::Missing;
}

}  // namespace llmux::protocol
