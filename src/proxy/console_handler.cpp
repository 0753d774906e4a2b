#include "proxy/console_handler.h"

#include <boost/json.hpp>
#include <fstream>
#include <sstream>

#include "http/response_writer.h"
#include "http/server_request.h"
#include "protocol/admin_auth.h"
#include "protocol/cookies.h"
#include "proxy/admin_handler.h"
#include "proxy/admin_identity.h"
#include "proxy/auth_failures.h"
#include "proxy/console_sessions.h"
#include "proxy/embedded_files.h"
#include "core/strings.h"

namespace llmux::proxy {
namespace json = boost::json;
using net::Task;

namespace {

/// What every console answer carries: no framing by other sites, no sniffing, no inline script.
void addPageHeaders(HeaderList& headers) {
  headers.add("Content-Security-Policy",
              "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; "
              "frame-ancestors 'none'; base-uri 'none'; form-action 'self'");
  headers.add("X-Content-Type-Options", "nosniff");
  headers.add("X-Frame-Options", "DENY");
  headers.add("Referrer-Policy", "no-referrer");
  headers.add("Cache-Control", "no-cache");
}

Task<void> sendError(RequestContext& ctx, int status, std::string_view message, std::string_view type,
                     HeaderList headers = {}) {
  co_await sendAdminJson(ctx, status, adminErrorJson(message, type), message, std::move(headers));
}

std::string sessionJson(ConsoleSession const& session, bool read_only) {
  return json::serialize(json::object{{"name", session.token_name},
                                      {"role", read_only ? "read_only" : "admin"},
                                      {"csrf", session.csrf},
                                      {"expires", rfc3339Utc(session.expires)}});
}

std::string sessionCookie(std::string_view id, long max_age) {
  return std::string(kSessionCookie) + "=" + std::string(id) +
         "; Path=/; HttpOnly; SameSite=Strict; Max-Age=" + std::to_string(max_age);
}

/// A file of `dir`, nullopt when it cannot be read.
std::optional<std::string> readFile(std::string const& dir, std::string_view path) {
  std::ifstream in(dir + "/" + std::string(path), std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream text;
  text << in.rdbuf();
  return std::move(text).str();
}

}  // namespace

std::string_view consoleContentType(std::string_view path) {
  auto dot = path.rfind('.');
  std::string_view ext = dot == std::string_view::npos ? std::string_view() : path.substr(dot + 1);
  if (ext == "html") return "text/html; charset=utf-8";
  if (ext == "js" || ext == "mjs") return "text/javascript; charset=utf-8";
  if (ext == "css") return "text/css; charset=utf-8";
  if (ext == "json" || ext == "map") return "application/json";
  if (ext == "svg") return "image/svg+xml";
  if (ext == "png") return "image/png";
  if (ext == "ico") return "image/x-icon";
  return "application/octet-stream";
}

bool isConsolePath(std::string_view path) {
  if (path.empty() || path.size() > 200) return false;
  std::size_t start = 0;
  while (start <= path.size()) {
    auto slash = path.find('/', start);
    std::string_view segment = path.substr(start, slash == std::string_view::npos ? slash : slash - start);
    if (segment.empty() || segment.front() == '.') return false;
    for (char c : segment) {
      bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                c == '.' || c == '_' || c == '-';
      if (!ok) return false;
    }
    if (slash == std::string_view::npos) break;
    start = slash + 1;
  }
  return true;
}

Task<void> ConsoleHandler::serve(RequestContext& ctx) {
  if (ctx.route.kind == protocol::RouteKind::ConsoleSession) {
    co_await serveSession(ctx);
  } else {
    co_await serveFile(ctx);
  }
}

Task<void> ConsoleHandler::serveFile(RequestContext& ctx) {
  if (ctx.request.path() == "/console") {
    HeaderList headers;
    headers.add("Location", "/console/");
    headers.add("X-Request-Id", ctx.request_id);
    ctx.record.status = 308;
    co_await ctx.response->send(308, headers, "");
    co_return;
  }
  std::string path = ctx.route.admin_id.empty() ? "index.html" : ctx.route.admin_id;
  if (!isConsolePath(path)) {
    co_await sendError(ctx, 404, "no such console file", "not_found_error");
    co_return;
  }
  std::string loaded;
  std::string_view body;
  if (!files_dir_.empty()) {
    // Development: read on each request, so an edited file shows on the next reload.
    auto text = readFile(files_dir_, path);
    if (!text) {
      co_await sendError(ctx, 404, "no such console file", "not_found_error");
      co_return;
    }
    loaded = std::move(*text);
    body = loaded;
  } else if (EmbeddedFile const* file = findEmbedded(consoleFiles(), path)) {
    body = file->text();
  } else {
    co_await sendError(ctx, 404,
                       consoleFiles().empty() ? "this build has no console (console/web was absent)"
                                              : "no such console file",
                       "not_found_error");
    co_return;
  }
  HeaderList headers;
  headers.add("Content-Type", consoleContentType(path));
  headers.add("X-Request-Id", ctx.request_id);
  addPageHeaders(headers);
  ctx.record.status = 200;
  co_await ctx.response->send(200, headers, body);
}

Task<void> ConsoleHandler::serveSession(RequestContext& ctx) {
  auto const& tokens = ctx.catalog->settings().admin_tokens;
  HeaderList headers;
  addPageHeaders(headers);
  if (ctx.request.method == "POST") {
    json::error_code ec;
    json::value body = json::parse(ctx.request.body, ec);
    json::string const* token = nullptr;
    if (!ec && body.is_object()) {
      if (auto const* member = body.as_object().if_contains("token"); member && member->is_string()) {
        token = &member->as_string();
      }
    }
    if (token == nullptr) {
      co_await sendError(ctx, 400, R"(the body must be {"token": "<admin token>"})",
                         "invalid_request_error", std::move(headers));
      co_return;
    }
    std::vector<std::string_view> secrets;
    for (auto const& t : tokens) secrets.push_back(t.secret);
    protocol::TokenCheck check = protocol::matchToken(std::string_view(*token), secrets);
    if (check.verdict != protocol::AdminAuth::Ok) {
      failures_.recordFailure(ctx.request.peer);
      co_await sendError(ctx, 401, "wrong admin token", "authentication_error", std::move(headers));
      co_return;
    }
    config::AdminToken const& signed_in = tokens[check.index];
    auto opened = sessions_.open(signed_in);
    headers.add("Set-Cookie", sessionCookie(opened.id, std::chrono::seconds(ConsoleSessions::kLifetime).count()));
    co_await sendAdminJson(ctx, 200, sessionJson(opened.session, signed_in.read_only), {},
                           std::move(headers));
    co_return;
  }
  // GET and DELETE: the cookie's session, while its token is still configured as it was.
  auto cookie = protocol::cookieValue(ctx.request.headers, kSessionCookie);
  std::optional<ConsoleSession> session;
  if (cookie) session = sessions_.find(*cookie);
  config::AdminToken const* token =
      session ? sessionToken(tokens, session->token_name, session->token_digest) : nullptr;
  if (token == nullptr) {
    co_await sendError(ctx, 401, "not signed in", "authentication_error", std::move(headers));
    co_return;
  }
  if (ctx.request.method == "GET") {
    co_await sendAdminJson(ctx, 200, sessionJson(*session, token->read_only), {}, std::move(headers));
    co_return;
  }
  std::string_view csrf = ctx.request.headers.get(kCsrfHeader);
  if (csrf.empty() || !secretEquals(csrf, session->csrf)) {
    co_await sendError(ctx, 403, "missing or wrong X-CSRF-Token for this console session",
                       "permission_error", std::move(headers));
    co_return;
  }
  sessions_.close(*cookie);
  headers.add("Set-Cookie", sessionCookie("", 0));
  headers.add("X-Request-Id", ctx.request_id);
  ctx.record.status = 204;
  co_await ctx.response->send(204, headers, "");
}

}  // namespace llmux::proxy
