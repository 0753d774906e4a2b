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

namespace {

/// Compares presented tokens with every configured one, so the time tells neither which one
/// matched nor how many there are.
class TokenMatcher {
 public:
  explicit TokenMatcher(std::vector<std::string_view> const& tokens) : tokens_(tokens) {}

  void consider(std::string_view token) {
    if (token.empty()) return;
    presented_ = true;
    for (std::size_t i = 0; i < tokens_.size(); ++i) {
      bool const same = !tokens_[i].empty() && secretEquals(token, tokens_[i]);
      if (same && !matched_) index_ = i;
      matched_ |= same;
    }
  }

  TokenCheck verdict() const {
    if (tokens_.empty()) return {AdminAuth::Disabled, 0};
    if (matched_) return {AdminAuth::Ok, index_};
    return {presented_ ? AdminAuth::Wrong : AdminAuth::Missing, 0};
  }

 private:
  std::vector<std::string_view> const& tokens_;
  bool presented_ = false;
  bool matched_ = false;
  std::size_t index_ = 0;
};

}  // namespace

TokenCheck checkOperatorTokens(HeaderList const& headers, std::vector<std::string_view> const& tokens,
                               std::string_view token_header) {
  TokenMatcher matcher(tokens);
  if (tokens.empty()) return matcher.verdict();
  for (HeaderField const& field : headers) {
    if (equalsIgnoreCase(field.name, "authorization")) {
      matcher.consider(bearerToken(field.value));
    } else if (!token_header.empty() && equalsIgnoreCase(field.name, token_header)) {
      matcher.consider(trimSpaces(field.value));
    }
  }
  return matcher.verdict();
}

TokenCheck matchToken(std::string_view presented, std::vector<std::string_view> const& tokens) {
  TokenMatcher matcher(tokens);
  matcher.consider(presented);
  return matcher.verdict();
}

}  // namespace llmux::protocol
