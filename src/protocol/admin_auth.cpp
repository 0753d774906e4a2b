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

TokenCheck checkAdminTokens(HeaderList const& headers, std::vector<std::string_view> const& tokens) {
  return checkOperatorTokens(headers, tokens, "x-admin-token");
}

AdminAuth checkOperatorToken(HeaderList const& headers, std::string_view admin_token,
                             std::string_view token_header) {
  if (admin_token.empty()) return AdminAuth::Disabled;
  return checkOperatorTokens(headers, {admin_token}, token_header).verdict;
}

TokenCheck checkOperatorTokens(HeaderList const& headers, std::vector<std::string_view> const& tokens,
                               std::string_view token_header) {
  if (tokens.empty()) return {AdminAuth::Disabled, 0};
  bool presented = false;
  bool matched = false;
  std::size_t index = 0;
  auto consider = [&](std::string_view token) {
    if (token.empty()) return;
    presented = true;
    // Every presented token is compared with every configured one, so the time does not tell
    // which one matched.
    for (std::size_t i = 0; i < tokens.size(); ++i) {
      bool const same = !tokens[i].empty() && secretEquals(token, tokens[i]);
      if (same && !matched) index = i;
      matched |= same;
    }
  };
  for (HeaderField const& field : headers) {
    if (equalsIgnoreCase(field.name, "authorization")) {
      consider(bearerToken(field.value));
    } else if (!token_header.empty() && equalsIgnoreCase(field.name, token_header)) {
      consider(trimSpaces(field.value));
    }
  }
  if (matched) return {AdminAuth::Ok, index};
  return {presented ? AdminAuth::Wrong : AdminAuth::Missing, 0};
}

}  // namespace llmux::protocol
