#pragma once

#include <atomic>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "net/task.h"
#include "proxy/request_context.h"
#include "routing/breakers.h"
#include "routing/freezes.h"

namespace llmux::racing {
class RacingState;
}

namespace llmux::payloads {
class PayloadWriter;
}

namespace llmux::store {
class RequestLogReader;
}

namespace llmux::routing {
class KeyHealth;
}

namespace llmux::shared_state {
class SharedLimits;
}

namespace llmux::proxy {

class ConsoleSessions;
class InspectionBoard;
class RequestTail;
class InspectionRunner;
class ManagedConfig;
class ProbeBook;

/// The admin API (/admin/*): every route requires an admin token of the pinned configuration
/// (`admin_token`, `admin_tokens:`), never a gateway key, and answers 404 when none is set (the
/// API is off), 401 without a token, 403 with a wrong one, and 403 to a read-only token on a
/// route that changes something. Errors are `{"error":{"message","type"}}` JSON.
///
///   GET    /admin/freezes        → 200 {"freezes":[...]} (freezesJson)
///   DELETE /admin/freezes/{id}   → 204 when lifted, 404 when no such active freeze
///   POST   /admin/route-preview  → the `preview` hook (501 while unset)
///   GET    /admin/breakers       → 200 {"breakers":[...]} (breakersJson)
///   DELETE /admin/breakers/{channel}/{model} → 204 when reset to closed, 404 when unknown
///   GET    /admin/racing         → 200 racingJson
///   PUT    /admin/racing         → 200 racingJson after the change (kept in the state store),
///                                  400 for a body parseRacingChange refuses
///   GET|POST /admin/{section}, GET|PUT|DELETE /admin/{section}/{name}, GET /admin/audit →
///                                  the configuration's objects (proxy/object_admin.h)
///   GET    /admin/latency-penalties      → 200 latencyPenaltiesJson
///   DELETE /admin/latency-penalties/{id} → 204 when cleared, 404 when unknown
///   GET    /admin/inspection     → 200 inspectionJson (model lists and balances last seen)
///   POST   /admin/inspection/run → {"channel"}: inspects it now, 200 channelInspectionJson;
///                                  400 for a bad body, 404 for a channel without inspection
///   GET    /admin/probes         → 200 probeResultsJson (the latest result per channel, key,
///                                  model and scenario)
///   POST   /admin/probes/run     → the `run_probe` hook (501 while unset)
///   GET    /admin/requests       → 200 requestPageJson: the request log searched (query
///                                  parameters: store/request_log_params.h); 400 naming a bad one
///   GET    /admin/requests/{id}  → 200 loggedRequestJson, 404 when no row has this id
///   GET    /admin/usage          → 200 usageJson: aggregates by key / model / channel, minute /
///                                  hour / day
///   GET    /admin/requests/live  → Server-Sent Events, a finished request each (proxy/live_requests.h)
///   POST   /admin/freezes        → an operator's freeze (parseManualFreeze): 201 the freeze
///   GET    /admin/pauses         → 200 pausesJson; GET /admin/limits → 200 limitsJson
///   GET    /admin/config/export, POST /admin/config/import → proxy/object_admin.h
///   GET    /admin/openapi.json   → the admin API in OpenAPI 3.1 (docs/admin-openapi.json)
///   (the request log's routes answer 501 without a reader; they read it off the I/O thread)
///
/// The gateway dispatches admin routes here before client (gateway key) admission. Thread-safe
/// as long as `preview` is set before serving starts.
class AdminHandler {
 public:
  /// Answers POST /admin/route-preview once the token is checked. Set by the gateway (which
  /// knows the planner); while unset the route answers 501.
  using PreviewHook = std::function<net::Task<void>(RequestContext&)>;

  AdminHandler(routing::FreezeTable& freezes, routing::BreakerBoard& breakers,
               racing::RacingState& racing, TimeSource const& clock)
      : freezes_(freezes), breakers_(breakers), racing_(racing), clock_(clock) {}

  /// Serves `ctx.route`, which must be an admin route (protocol::isAdminRoute).
  net::Task<void> serve(RequestContext& ctx);

  PreviewHook preview;
  /// The inspection's results and this worker's runner (docs/operations.md, "Model lists and
  /// balances"); set before serving starts.
  InspectionBoard* inspection_board = nullptr;
  InspectionRunner* inspection_runner = nullptr;
  /// The payload writer (reads captured bodies back); nullptr without `payloads:`.
  payloads::PayloadWriter const* payloads = nullptr;
  /// Answers POST /admin/probes/run (the gateway's: it runs on the worker's connection pool).
  PreviewHook run_probe;
  /// The probes' results for GET /admin/probes (nullptr: an empty list).
  ProbeBook const* probe_book = nullptr;
  /// The configuration's objects (proxy/object_admin.h); nullptr without a configuration file.
  ManagedConfig* managed = nullptr;
  /// The request log read back (the configured store's); nullptr: its routes answer 501.
  store::RequestLogReader* request_log = nullptr;
  /// The console's sessions: their cookie stands for the token that opened them (nullptr: tokens
  /// only).
  ConsoleSessions const* sessions = nullptr;
  /// Runtime state the read routes show (GET /admin/pauses, /admin/limits); set before serving.
  routing::KeyHealth const* key_health = nullptr;
  shared_state::SharedLimits const* limits = nullptr;
  /// GET /admin/requests/live (nullptr: 501), ended when `draining` is set.
  RequestTail* tail = nullptr;
  std::atomic<bool> const* draining = nullptr;

 private:
  net::Task<void> serveInspection(RequestContext& ctx);
  net::Task<void> serveInspectionRun(RequestContext& ctx);
  net::Task<void> serveFreezes(RequestContext& ctx);
  net::Task<void> serveLift(RequestContext& ctx);
  net::Task<void> serveBreakers(RequestContext& ctx);
  net::Task<void> serveBreakerReset(RequestContext& ctx);
  net::Task<void> serveRacing(RequestContext& ctx);
  net::Task<void> serveRacingSet(RequestContext& ctx);
  net::Task<void> serveLatencyPenalties(RequestContext& ctx);
  net::Task<void> serveLatencyPenaltyClear(RequestContext& ctx);
  net::Task<void> serveRequestPayloads(RequestContext& ctx);
  net::Task<void> serveRequestLog(RequestContext& ctx);
  net::Task<void> serveProbes(RequestContext& ctx);
  net::Task<void> serveFreezeCreate(RequestContext& ctx);
  net::Task<void> servePauses(RequestContext& ctx);
  net::Task<void> serveLimits(RequestContext& ctx);
  net::Task<void> serveLive(RequestContext& ctx);
  net::Task<void> serveOpenApi(RequestContext& ctx);

  routing::FreezeTable& freezes_;
  routing::BreakerBoard& breakers_;
  racing::RacingState& racing_;
  TimeSource const& clock_;
};

/// `{"freezes":[{"id","object","period","channel","key","model","created","until","rule",
/// "reason"}]}`: "key" is the key's label (never its secret), times are RFC 3339 UTC, "until" is
/// null for a freeze that lasts until lifted.
std::string freezesJson(std::vector<routing::Freeze> const& freezes);
/// One element of that list.
std::string freezeJson(routing::Freeze const& freeze);

/// `{"breakers":[{"channel","model","failure":{"state","consecutive_failures","opened_at",
/// "opens"},"storm":{"state","window_responses","window_429s","opened_at","opens"}}]}`;
/// "opened_at" is seconds ago (null when not open).
std::string breakersJson(std::vector<routing::BreakerView> const& breakers, MonoTime now);

/// `{"error":{"message":...,"type":...}}`.
std::string adminErrorJson(std::string_view message, std::string_view type);

/// A wall-clock instant as RFC 3339 UTC with seconds ("2023-11-14T22:13:20Z").
std::string rfc3339Utc(WallTime t);

/// Sends a JSON answer of the admin API (Content-Type, X-Request-Id) and notes its status (and,
/// for errors, `error_message`) in the request record. Also the way the preview hook answers.
net::Task<void> sendAdminJson(RequestContext& ctx, int status, std::string body,
                              std::string_view error_message = {}, HeaderList headers = {});

}  // namespace llmux::proxy
