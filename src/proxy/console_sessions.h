#pragma once

#include <chrono>
#include <cstddef>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "config/settings.h"
#include "core/clock.h"

namespace llmux::proxy {

/// A signed-in console user: which admin token signed in, and the CSRF token its changes carry.
struct ConsoleSession {
  std::string token_name;    ///< the admin token's name (the audit log's actor)
  std::string token_digest;  ///< SHA-256 of the token's secret: a rotated token ends the session
  std::string csrf;          ///< sent back in `X-CSRF-Token` on every change
  WallTime expires{};
};

/// The console's sessions, in this process's memory (a restart signs everyone out; with several
/// replicas a session is valid on the replica that opened it — docs/console.md). Thread-safe.
/// Sessions are kept by the SHA-256 of their id, so the table never holds a usable cookie; at
/// most kMaxSessions live at once (the oldest goes first).
class ConsoleSessions {
 public:
  static constexpr std::chrono::hours kLifetime{8};
  static constexpr std::size_t kMaxSessions = 1024;

  explicit ConsoleSessions(TimeSource const& clock) : clock_(clock) {}

  struct Opened {
    std::string id;  ///< the cookie's value: 256 random bits
    ConsoleSession session;
  };
  /// Opens a session for `token`.
  Opened open(config::AdminToken const& token);
  /// The session with cookie value `id`, while it has not expired.
  std::optional<ConsoleSession> find(std::string_view id) const;
  /// Ends the session `id`; false when there is none.
  bool close(std::string_view id);

 private:
  TimeSource const& clock_;
  mutable std::mutex mutex_;
  mutable std::map<std::string, ConsoleSession, std::less<>> sessions_;  ///< by sha256Hex(id)
};

/// The digest a session keeps of its token's secret.
std::string tokenDigest(std::string_view secret);

}  // namespace llmux::proxy
