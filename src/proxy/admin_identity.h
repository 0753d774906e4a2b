#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "config/settings.h"
#include "core/http_headers.h"
#include "protocol/admin_auth.h"

namespace llmux::proxy {

class ConsoleSessions;

/// The console's session cookie and the header its changes carry.
inline constexpr std::string_view kSessionCookie = "llmux_console";
inline constexpr std::string_view kCsrfHeader = "x-csrf-token";

/// Who calls the admin API: an admin token presented in a header (`Authorization: Bearer`,
/// `x-admin-token`), or else the console's session cookie.
struct AdminIdentity {
  protocol::AdminAuth verdict = protocol::AdminAuth::Missing;
  std::string name;        ///< the admin token's name (Ok only)
  bool read_only = false;  ///< the token's role (Ok only)
  /// Ok through a session cookie on a change whose `X-CSRF-Token` is missing or wrong: refused
  /// (403), since a browser sends the cookie with any site's forged form.
  bool csrf_refused = false;
};

/// Identifies the caller of an admin route. A presented token decides alone (a wrong one is
/// Wrong whatever cookie comes with it). A session counts while its token is still configured
/// with the same secret (a removed or rotated token signs its sessions out) and takes that
/// token's current role. `method` tells a change (anything but GET and HEAD), which through a
/// session needs its CSRF token.
AdminIdentity identifyAdmin(HeaderList const& headers, std::string_view method,
                            std::vector<config::AdminToken> const& tokens,
                            ConsoleSessions const* sessions);

/// The configured token a session was opened with, by name and secret digest; nullptr when it is
/// gone or was rotated.
config::AdminToken const* sessionToken(std::vector<config::AdminToken> const& tokens,
                                       std::string_view name, std::string_view digest);

}  // namespace llmux::proxy
