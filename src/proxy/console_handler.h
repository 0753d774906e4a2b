#pragma once

#include <cstddef>
#include <string>

#include "net/task.h"
#include "proxy/request_context.h"

namespace llmux::proxy {

class AuthFailureLimiter;
class ConsoleSessions;

/// The largest body a console route reads (a sign-in's token), before anyone is authenticated.
inline constexpr std::size_t kConsoleBodyLimit = 4096;

/// The web console (docs/console.md): its files and its session.
///
///   GET    /console              → 308 to /console/
///   GET    /console/{file}       → the file ("" is index.html): built into the binary, or read
///                                  from `files_dir` when set (LLMUX_CONSOLE_DIR, for working on
///                                  the console without a rebuild); 404 when there is none
///   POST   /console/session      → {"token"}: 200 the session, with its cookie (HttpOnly,
///                                  SameSite=Strict); 401 for a wrong token (counted per address)
///   GET    /console/session      → 200 the cookie's session, 401 without one
///   DELETE /console/session      → 204, the session ended (needs its X-CSRF-Token)
///
/// A session is `{"name","role","csrf","expires"}`: with its cookie the admin API takes the
/// token's place, and every change carries `X-CSRF-Token: <csrf>`.
class ConsoleHandler {
 public:
  ConsoleHandler(ConsoleSessions& sessions, AuthFailureLimiter& failures, std::string files_dir)
      : sessions_(sessions), failures_(failures), files_dir_(std::move(files_dir)) {}

  /// Serves a console route (protocol::isConsoleRoute).
  net::Task<void> serve(RequestContext& ctx);

 private:
  net::Task<void> serveFile(RequestContext& ctx);
  net::Task<void> serveSession(RequestContext& ctx);

  ConsoleSessions& sessions_;
  AuthFailureLimiter& failures_;
  std::string files_dir_;
};

/// The Content-Type of a console file by its extension.
std::string_view consoleContentType(std::string_view path);
/// Whether a requested file path is one the console may serve: segments of [A-Za-z0-9._-], none
/// empty or starting with '.', so it never leaves its folder.
bool isConsolePath(std::string_view path);

}  // namespace llmux::proxy
