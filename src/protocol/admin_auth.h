#pragma once

#include <cstddef>
#include <string_view>
#include <vector>

#include "core/http_headers.h"

namespace llmux::protocol {

/// The verdict on an /admin/* request's credentials.
enum class AdminAuth {
  Ok,        ///< a presented token is the admin token
  Missing,   ///< no token presented (401)
  Wrong,     ///< tokens presented, none is the admin token (403)
  Disabled,  ///< no admin token is configured: the admin API is off (404)
};

/// The verdict, and for Ok which of the tokens was presented.
struct TokenCheck {
  AdminAuth verdict = AdminAuth::Missing;
  std::size_t index = 0;  ///< into the tokens checked (Ok only)
};

/// Checks an /admin/* request against every admin token (`admin_token`, `admin_tokens:`), as
/// checkAdminToken does against one. Every presented token is compared with every configured
/// one, so the time tells neither which matched nor how many there are. None configured:
/// Disabled.
TokenCheck checkAdminTokens(HeaderList const& headers, std::vector<std::string_view> const& tokens);

/// Checks the admin token of an /admin/* request: `Authorization: Bearer <t>` (scheme
/// case-insensitive) or `x-admin-token: <t>`; either may carry it (a client may also send a
/// gateway key as its bearer). Compared in constant time. Gateway keys are never accepted.
AdminAuth checkAdminToken(HeaderList const& headers, std::string_view admin_token);

/// The same check for any operator token (`metrics_token`: `token_header` ""): `Authorization:
/// Bearer <t>`, or the header `token_header` when not empty.
AdminAuth checkOperatorToken(HeaderList const& headers, std::string_view token,
                             std::string_view token_header);
/// The same against several tokens.
TokenCheck checkOperatorTokens(HeaderList const& headers, std::vector<std::string_view> const& tokens,
                               std::string_view token_header);

/// Which of `tokens` one presented token is (the console's sign-in form sends it in a body),
/// compared in constant time with every one: Ok with its index, Wrong, Missing when `presented`
/// is empty, Disabled when none is configured.
TokenCheck matchToken(std::string_view presented, std::vector<std::string_view> const& tokens);

}  // namespace llmux::protocol
