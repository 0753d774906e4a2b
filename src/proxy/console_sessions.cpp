#include "proxy/console_sessions.h"

#include <algorithm>

#include "core/digest.h"
#include "core/ids.h"

namespace llmux::proxy {

std::string tokenDigest(std::string_view secret) { return sha256Hex(secret); }

ConsoleSessions::Opened ConsoleSessions::open(config::AdminToken const& token) {
  Opened opened;
  opened.id = randomHex(32);
  opened.session.token_name = token.name;
  opened.session.token_digest = tokenDigest(token.secret);
  opened.session.csrf = randomHex(16);
  WallTime const now = clock_.wallNow();
  opened.session.expires = now + std::chrono::duration_cast<WallClock::duration>(kLifetime);
  std::lock_guard lock(mutex_);
  std::erase_if(sessions_, [&](auto const& entry) { return entry.second.expires <= now; });
  if (sessions_.size() >= kMaxSessions) {
    auto oldest = std::min_element(sessions_.begin(), sessions_.end(), [](auto const& a, auto const& b) {
      return a.second.expires < b.second.expires;
    });
    sessions_.erase(oldest);
  }
  sessions_.emplace(sha256Hex(opened.id), opened.session);
  return opened;
}

std::optional<ConsoleSession> ConsoleSessions::find(std::string_view id) const {
  if (id.empty()) return std::nullopt;
  std::string const key = sha256Hex(id);
  std::lock_guard lock(mutex_);
  auto it = sessions_.find(key);
  if (it == sessions_.end()) return std::nullopt;
  if (it->second.expires <= clock_.wallNow()) {
    sessions_.erase(it);
    return std::nullopt;
  }
  return it->second;
}

bool ConsoleSessions::close(std::string_view id) {
  std::string const key = sha256Hex(id);
  std::lock_guard lock(mutex_);
  return sessions_.erase(key) > 0;
}

}  // namespace llmux::proxy
