#include "proxy/admin_identity.h"

#include "core/strings.h"
#include "protocol/cookies.h"
#include "proxy/console_sessions.h"

namespace llmux::proxy {

config::AdminToken const* sessionToken(std::vector<config::AdminToken> const& tokens,
                                       std::string_view name, std::string_view digest) {
  for (auto const& token : tokens) {
    if (token.name == name && secretEquals(tokenDigest(token.secret), digest)) return &token;
  }
  return nullptr;
}

AdminIdentity identifyAdmin(HeaderList const& headers, std::string_view method,
                            std::vector<config::AdminToken> const& tokens,
                            ConsoleSessions const* sessions) {
  AdminIdentity identity;
  std::vector<std::string_view> secrets;
  secrets.reserve(tokens.size());
  for (auto const& token : tokens) secrets.push_back(token.secret);
  protocol::TokenCheck const check = protocol::checkAdminTokens(headers, secrets);
  identity.verdict = check.verdict;
  if (check.verdict == protocol::AdminAuth::Ok) {
    identity.name = tokens[check.index].name;
    identity.read_only = tokens[check.index].read_only;
    return identity;
  }
  if (check.verdict != protocol::AdminAuth::Missing || sessions == nullptr) return identity;
  auto cookie = protocol::cookieValue(headers, kSessionCookie);
  if (!cookie) return identity;
  auto session = sessions->find(*cookie);
  if (!session) return identity;  // expired, signed out, or from before a restart: sign in again
  config::AdminToken const* token = sessionToken(tokens, session->token_name, session->token_digest);
  if (token == nullptr) return identity;
  identity.verdict = protocol::AdminAuth::Ok;
  identity.name = token->name;
  identity.read_only = token->read_only;
  if (method != "GET" && method != "HEAD") {
    std::string_view presented = headers.get(kCsrfHeader);
    identity.csrf_refused = presented.empty() || !secretEquals(presented, session->csrf);
  }
  return identity;
}

}  // namespace llmux::proxy
