#include "proxy/admin_handler.h"
#include "proxy/probe_book.h"

#include <chrono>
#include <cstdio>


#include "core/json_text.h"
#include "http/response_writer.h"
#include "http/server_request.h"
#include "net/asio_types.h"
#include "payloads/payload_writer.h"
#include "protocol/admin_auth.h"
#include "protocol/percent_encoding.h"
#include "protocol/routes.h"
#include "proxy/admin_identity.h"
#include "proxy/embedded_files.h"
#include "proxy/inspection_board.h"
#include "proxy/inspection_runner.h"
#include "proxy/live_requests.h"
#include "proxy/object_admin.h"
#include "proxy/off_thread.h"
#include "proxy/racing_admin.h"
#include "proxy/request_log_admin.h"
#include "proxy/runtime_admin.h"
#include "racing/racing_state.h"
#include "shared_state/shared_limits.h"
#include "telemetry/log.h"

namespace llmux::proxy {

using net::Task;
using protocol::RouteKind;

namespace {

void appendField(std::string& out, std::string_view name, std::string_view value) {
  appendJsonString(out, name);
  out += ':';
  appendJsonString(out, value);
}

Task<void> sendError(RequestContext& ctx, int status, std::string_view message,
                     std::string_view type) {
  co_await sendAdminJson(ctx, status, adminErrorJson(message, type), message);
}

/// 204: the thing named by the path is gone (lifted, reset, cleared).
Task<void> sendNoContent(RequestContext& ctx) {
  HeaderList headers;
  headers.add("X-Request-Id", ctx.request_id);
  ctx.record.status = 204;
  co_await ctx.response->send(204, headers, "");
}

}  // namespace

std::string rfc3339Utc(WallTime t) {
  using namespace std::chrono;
  auto secs = floor<seconds>(t);
  auto day = floor<days>(secs);
  year_month_day ymd{day};
  hh_mm_ss hms{secs - day};
  char text[32];
  std::snprintf(text, sizeof text, "%04d-%02u-%02uT%02d:%02d:%02dZ", static_cast<int>(ymd.year()),
                static_cast<unsigned>(ymd.month()), static_cast<unsigned>(ymd.day()),
                static_cast<int>(hms.hours().count()), static_cast<int>(hms.minutes().count()),
                static_cast<int>(hms.seconds().count()));
  return text;
}

namespace {

void appendFreeze(std::string& out, routing::Freeze const& f) {
  out += '{';
  appendField(out, "id", f.id);
  out += ',';
  appendField(out, "object", config::freezeObjectName(f.object));
  out += ',';
  appendField(out, "period", config::freezePeriodName(f.period));
  out += ',';
  appendField(out, "channel", f.channel);
  out += ',';
  appendField(out, "key", f.key_label);  // the label: the secret never leaves the gateway
  out += ',';
  appendField(out, "model", f.model);
  out += ',';
  appendField(out, "created", rfc3339Utc(f.created));
  out += ",\"until\":";
  if (f.until) {
    appendJsonString(out, rfc3339Utc(*f.until));
  } else {
    out += "null";
  }
  out += ',';
  appendField(out, "rule", f.rule);
  out += ',';
  appendField(out, "reason", f.reason);
  out += '}';
}

}  // namespace

std::string freezeJson(routing::Freeze const& freeze) {
  std::string out;
  appendFreeze(out, freeze);
  return out;
}

std::string freezesJson(std::vector<routing::Freeze> const& freezes) {
  std::string out = "{\"freezes\":[";
  bool first = true;
  for (auto const& f : freezes) {
    if (!first) out += ',';
    first = false;
    appendFreeze(out, f);
  }
  out += "]}";
  return out;
}

namespace {

void appendBreakerHalf(std::string& out, routing::BreakerState state,
                       std::optional<MonoTime> opened_at, std::uint64_t opens, MonoTime now) {
  appendField(out, "state", routing::breakerStateName(state));
  out += ",\"opened_at\":";
  if (opened_at && state != routing::BreakerState::Closed) {
    out += std::to_string(std::chrono::duration<double>(now - *opened_at).count());
  } else {
    out += "null";
  }
  out += ",\"opens\":" + std::to_string(opens);
}

}  // namespace

std::string breakersJson(std::vector<routing::BreakerView> const& breakers, MonoTime now) {
  std::string out = "{\"breakers\":[";
  bool first = true;
  for (auto const& b : breakers) {
    if (!first) out += ',';
    first = false;
    out += '{';
    appendField(out, "channel", b.channel);
    out += ',';
    appendField(out, "model", b.model);
    out += ",\"failure\":{";
    appendBreakerHalf(out, b.failure_state, b.failure_opened_at, b.opens, now);
    out += ",\"consecutive_failures\":" + std::to_string(b.consecutive_failures);
    out += "},\"storm\":{";
    appendBreakerHalf(out, b.storm_state, b.storm_opened_at, b.storm_opens, now);
    out += ",\"window_responses\":" + std::to_string(b.window_responses);
    out += ",\"window_429s\":" + std::to_string(b.window_429s);
    out += "}}";
  }
  out += "]}";
  return out;
}

std::string adminErrorJson(std::string_view message, std::string_view type) {
  std::string out = "{\"error\":{";
  appendField(out, "message", message);
  out += ',';
  appendField(out, "type", type);
  out += "}}";
  return out;
}

Task<void> sendAdminJson(RequestContext& ctx, int status, std::string body,
                         std::string_view error_message, HeaderList headers) {
  headers.add("Content-Type", "application/json");
  headers.add("X-Request-Id", ctx.request_id);
  headers.add("Cache-Control", "no-store");
  ctx.record.status = status;
  if (!error_message.empty()) ctx.record.error = std::string(error_message);
  co_await ctx.response->send(status, headers, body);
}

Task<void> AdminHandler::serveProbes(RequestContext& ctx) {
  std::vector<ProbeResult> results;
  if (probe_book != nullptr) results = probe_book->latest();
  std::string body = probeResultsJson(results);
  co_await sendAdminJson(ctx, 200, std::move(body));
}

Task<void> AdminHandler::serve(RequestContext& ctx) {
  static std::vector<config::AdminToken> const kNone;
  auto const& tokens = ctx.catalog ? ctx.catalog->settings().admin_tokens : kNone;
  AdminIdentity const caller =
      identifyAdmin(ctx.request.headers, ctx.request.method, tokens, sessions);
  switch (caller.verdict) {
    case protocol::AdminAuth::Ok:
      break;
    case protocol::AdminAuth::Disabled:
      // Off means absent: answer like any unknown path, revealing nothing.
      co_await sendError(ctx, 404, "not found", "not_found_error");
      co_return;
    case protocol::AdminAuth::Missing:
      co_await sendError(ctx, 401, "the admin API requires the admin token", "authentication_error");
      co_return;
    case protocol::AdminAuth::Wrong:
      co_await sendError(ctx, 403, "wrong admin token", "permission_error");
      co_return;
  }
  if (caller.csrf_refused) {
    co_await sendError(ctx, 403, "missing or wrong X-CSRF-Token for this console session",
                       "permission_error");
    co_return;
  }
  // A read-only token reads; a route preview only computes, so it counts as a read.
  if (caller.read_only && ctx.request.method != "GET" &&
      ctx.route.kind != RouteKind::AdminRoutePreview) {
    co_await sendError(ctx, 403, "the admin token \"" + caller.name + "\" is read-only",
                       "permission_error");
    co_return;
  }
  switch (ctx.route.kind) {
    case RouteKind::AdminFreezes:
      co_await serveFreezes(ctx);
      co_return;
    case RouteKind::AdminFreeze:
      co_await serveLift(ctx);
      co_return;
    case RouteKind::AdminBreakers:
      co_await serveBreakers(ctx);
      co_return;
    case RouteKind::AdminBreaker:
      co_await serveBreakerReset(ctx);
      co_return;
    case RouteKind::AdminRacing:
      co_await serveRacing(ctx);
      co_return;
    case RouteKind::AdminRacingSet:
      co_await serveRacingSet(ctx);
      co_return;
    case RouteKind::AdminLatencyPenalties:
      co_await serveLatencyPenalties(ctx);
      co_return;
    case RouteKind::AdminLatencyPenalty:
      co_await serveLatencyPenaltyClear(ctx);
      co_return;
    case RouteKind::AdminInspection:
      co_await serveInspection(ctx);
      co_return;
    case RouteKind::AdminInspectionRun:
      co_await serveInspectionRun(ctx);
      co_return;
    case RouteKind::AdminRequestPayloads:
      co_await serveRequestPayloads(ctx);
      co_return;
    case RouteKind::AdminRequests:
    case RouteKind::AdminRequest:
    case RouteKind::AdminUsage:
      co_await serveRequestLog(ctx);
      co_return;
    case RouteKind::AdminProbes:
      co_await serveProbes(ctx);
      co_return;
    case RouteKind::AdminProbeRun:
      if (run_probe) {
        co_await run_probe(ctx);
      } else {
        co_await sendError(ctx, 501, "probes are not available", "not_implemented_error");
      }
      co_return;
    case RouteKind::AdminObjects:
    case RouteKind::AdminObject:
    case RouteKind::AdminAudit:
    case RouteKind::AdminConfigExport:
    case RouteKind::AdminConfigImport:
    case RouteKind::AdminChannelKeys:
    case RouteKind::AdminChannelKey:
      co_await serveObjectRoute(ctx, managed, caller.name);
      co_return;
    case RouteKind::AdminFreezeCreate:
      co_await serveFreezeCreate(ctx);
      co_return;
    case RouteKind::AdminPauses:
      co_await servePauses(ctx);
      co_return;
    case RouteKind::AdminLimits:
      co_await serveLimits(ctx);
      co_return;
    case RouteKind::AdminRequestsLive:
      co_await serveLive(ctx);
      co_return;
    case RouteKind::AdminOpenApi:
      co_await serveOpenApi(ctx);
      co_return;
    case RouteKind::AdminRoutePreview:
      if (preview) {
        co_await preview(ctx);
      } else {
        co_await sendError(ctx, 501, "route preview is not available", "not_implemented_error");
      }
      co_return;
    default:
      co_await sendError(ctx, 404, "not found", "not_found_error");
      co_return;
  }
}

namespace {

/// A blocking read (the payload writer's, the request log's), off the I/O thread.
Task<Result<std::string>> offThread(std::function<Result<std::string>()> read) {
  return proxy::offThread<Result<std::string>>(std::move(read), [](std::string why) {
    return Result<std::string>(makeError(ErrorKind::Internal, "cannot start the read: " + why));
  });
}

}  // namespace

Task<void> AdminHandler::serveRequestPayloads(RequestContext& ctx) {
  if (payloads == nullptr) {
    co_await sendError(ctx, 404, "payload capture is off (no payloads: section)", "not_found_error");
    co_return;
  }
  auto answer = co_await offThread(payloads->readBack(ctx.route.admin_id));
  if (!answer) {
    co_await sendError(ctx, 502, answer.error().message, "api_error");
    co_return;
  }
  co_await sendAdminJson(ctx, 200, std::move(*answer));
}

Task<void> AdminHandler::serveRequestLog(RequestContext& ctx) {
  if (request_log == nullptr) {
    co_await sendError(ctx, 501, "the request log is not available", "not_implemented_error");
    co_return;
  }
  auto params = splitQuery(ctx.request.query());
  if (!params) {
    co_await sendError(ctx, 400, "the query string is not percent-encoded correctly",
                       "invalid_request_error");
    co_return;
  }
  // The parameters are checked here; the store is read on a thread of its own.
  std::function<Result<std::string>()> read;
  store::RequestLogReader* reader = request_log;
  if (ctx.route.kind == RouteKind::AdminRequests) {
    auto parsed = store::parseRequestSearch(*params);
    if (!parsed) {
      co_await sendError(ctx, 400, parsed.error().message, "invalid_request_error");
      co_return;
    }
    read = [reader, wanted = std::move(*parsed)]() -> Result<std::string> {
      auto page = reader->search(wanted);
      if (!page) return page.takeError();
      return requestPageJson(*page);
    };
  } else if (ctx.route.kind == RouteKind::AdminUsage) {
    auto parsed = store::parseUsageQuery(*params, clock_.wallNow());
    if (!parsed) {
      co_await sendError(ctx, 400, parsed.error().message, "invalid_request_error");
      co_return;
    }
    read = [reader, wanted = *parsed]() -> Result<std::string> {
      auto report = reader->usage(wanted);
      if (!report) return report.takeError();
      return usageJson(*report);
    };
  } else {
    read = [reader, id = ctx.route.admin_id]() -> Result<std::string> {
      auto found = reader->get(id);
      if (!found) return found.takeError();
      if (!*found) return makeError(ErrorKind::NotFound, "no request with this id in the request log");
      return loggedRequestJson(**found);
    };
  }
  auto answer = co_await offThread(std::move(read));
  if (!answer) {
    if (answer.error().kind == ErrorKind::NotFound) {
      co_await sendError(ctx, 404, answer.error().message, "not_found_error");
    } else {
      co_await sendError(ctx, 503, "the request log cannot be read: " + answer.error().message,
                         "api_error");
    }
    co_return;
  }
  co_await sendAdminJson(ctx, 200, std::move(*answer));
}

Task<void> AdminHandler::serveFreezes(RequestContext& ctx) {
  co_await sendAdminJson(ctx, 200, freezesJson(freezes_.list()));
}

Task<void> AdminHandler::serveLift(RequestContext& ctx) {
  // The lift holds at once; its removal from the database is queued for the freezes' writer
  // thread, so this I/O thread never waits for SQLite.
  if (!freezes_.lift(ctx.route.admin_id)) {
    co_await sendError(ctx, 404, "no active freeze with this id", "not_found_error");
    co_return;
  }
  co_await sendNoContent(ctx);
}

Task<void> AdminHandler::serveFreezeCreate(RequestContext& ctx) {
  auto asked = parseManualFreeze(ctx.request.body, ctx.catalog->settings());
  if (!asked) {
    co_await sendError(ctx, 400, asked.error().message, "invalid_request_error");
    co_return;
  }
  // Like a rule's freeze: in force at once, its write queued for the freezes' writer thread.
  routing::Freeze made = freezes_.apply(asked->rule, asked->target, std::nullopt, asked->reason);
  telemetry::logInfo("freeze {} made through the admin API: {} {} {}", made.id, made.channel,
                     made.key_label, made.model);
  co_await sendAdminJson(ctx, 201, freezeJson(made));
}

Task<void> AdminHandler::servePauses(RequestContext& ctx) {
  std::vector<routing::PauseView> pauses;
  if (key_health != nullptr) pauses = key_health->list();
  co_await sendAdminJson(ctx, 200, pausesJson(pauses, ctx.catalog->settings()));
}

Task<void> AdminHandler::serveLimits(RequestContext& ctx) {
  if (limits == nullptr) {
    co_await sendError(ctx, 501, "limits are not available", "not_implemented_error");
    co_return;
  }
  co_await sendAdminJson(ctx, 200, limitsJson(ctx.catalog->settings(), *limits, limits->usesRedis(),
                                              clock_.wallNow(), clock_.now()));
}

Task<void> AdminHandler::serveLive(RequestContext& ctx) {
  if (tail == nullptr || draining == nullptr) {
    co_await sendError(ctx, 501, "the live tail is not available", "not_implemented_error");
    co_return;
  }
  co_await serveLiveRequests(ctx, *tail, request_log, *draining);
}

Task<void> AdminHandler::serveOpenApi(RequestContext& ctx) {
  auto files = adminOpenApiFiles();
  if (files.empty()) {
    co_await sendError(ctx, 404, "this build has no OpenAPI description", "not_found_error");
    co_return;
  }
  co_await sendAdminJson(ctx, 200, std::string(files.front().text()));
}

Task<void> AdminHandler::serveBreakers(RequestContext& ctx) {
  MonoTime now = clock_.now();
  co_await sendAdminJson(ctx, 200, breakersJson(breakers_.list(now), now));
}

Task<void> AdminHandler::serveBreakerReset(RequestContext& ctx) {
  std::string_view pair = ctx.route.admin_id;
  auto slash = pair.find('/');
  auto model = protocol::percentDecode(pair.substr(slash + 1));
  if (!model || !breakers_.reset(pair.substr(0, slash), *model)) {
    co_await sendError(ctx, 404, "no breaker for this channel and model", "not_found_error");
    co_return;
  }
  co_await sendNoContent(ctx);
}

Task<void> AdminHandler::serveRacing(RequestContext& ctx) {
  co_await sendAdminJson(ctx, 200,
                         racingJson(racing_, ctx.catalog->settings().racing, clock_.now()));
}

Task<void> AdminHandler::serveRacingSet(RequestContext& ctx) {
  auto change = parseRacingChange(ctx.request.body);
  if (!change.ok()) {
    co_await sendError(ctx, 400, change.error().message, "invalid_request_error");
    co_return;
  }
  // Holds at once; the state store's write is queued for the racing writer's thread.
  applyRacingChange(racing_, *change);
  config::RacingSettings const& settings = ctx.catalog->settings().racing;
  if (change->enabled || change->cost_preference) {
    telemetry::logInfo("racing set through the admin API: enabled {} ({}), cost preference {} ({})",
                       racing_.enabled(settings) ? "true" : "false",
                       racing_.enabledOverride() ? "admin" : "config",
                       config::costPreferenceName(racing_.preference(settings)),
                       racing_.preferenceOverride() ? "admin" : "config");
  }
  co_await sendAdminJson(ctx, 200, racingJson(racing_, settings, clock_.now()));
}

Task<void> AdminHandler::serveLatencyPenalties(RequestContext& ctx) {
  co_await sendAdminJson(
      ctx, 200, latencyPenaltiesJson(racing_.latency.list(clock_.wallNow()), ctx.catalog->settings()));
}

Task<void> AdminHandler::serveLatencyPenaltyClear(RequestContext& ctx) {
  if (!racing_.latency.clear(ctx.route.admin_id)) {
    co_await sendError(ctx, 404, "no latency penalty with this id", "not_found_error");
    co_return;
  }
  co_await sendNoContent(ctx);
}

Task<void> AdminHandler::serveInspection(RequestContext& ctx) {
  if (inspection_board == nullptr) {
    co_await sendError(ctx, 501, "inspection is not available", "not_implemented_error");
    co_return;
  }
  co_await sendAdminJson(ctx, 200, inspectionJson(inspection_board->all()));
}

Task<void> AdminHandler::serveInspectionRun(RequestContext& ctx) {
  if (inspection_board == nullptr || inspection_runner == nullptr) {
    co_await sendError(ctx, 501, "inspection is not available", "not_implemented_error");
    co_return;
  }
  auto name = parseInspectionRun(ctx.request.body);
  if (!name) {
    co_await sendError(ctx, 400, name.error().message, "invalid_request_error");
    co_return;
  }
  config::Channel const* channel = nullptr;
  for (auto const& c : ctx.catalog->settings().channels) {
    if (c.name == *name) channel = &c;
  }
  if (channel == nullptr || !channel->inspection) {
    co_await sendError(ctx, 404, "no channel of this name has inspection: configured",
                       "not_found_error");
    co_return;
  }
  bool const balance = channel->inspection->balance.has_value();
  // The client leaving, or a drain running out, ends the run's request at once.
  http::Cancellation& client = ctx.response->cancellation();
  InspectionRunner* runner = inspection_runner;
  std::size_t const watch = client.add([runner](http::CancelReason reason) { runner->cancel(reason); });
  // Both checks, whatever their intervals: an operator asking wants to know now.
  co_await runner->refreshModels(*name);
  if (balance && !client.cancelled()) co_await runner->probeBalances(*name);
  client.remove(watch);
  if (client.cancelled()) runner->resume();  // the next run on this worker may go out again
  co_await sendAdminJson(ctx, 200, channelInspectionJson(inspection_board->get(*name)));
}

}  // namespace llmux::proxy
