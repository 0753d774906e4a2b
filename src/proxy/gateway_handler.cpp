#include "proxy/gateway_handler.h"

#include <array>
#include <iterator>
#include <random>

#include "core/ids.h"
#include "http/response_writer.h"
#include "http/server_request.h"
#include "http/upstream_connection.h"
#include "payloads/payload_writer.h"
#include "protocol/admin_auth.h"
#include "protocol/client_auth.h"
#include "protocol/client_detect.h"
#include "protocol/error_shapes.h"
#include "protocol/model_list.h"
#include "protocol/routes.h"
#include "proxy/admin_identity.h"
#include "proxy/console_handler.h"
#include "proxy/error_reply.h"
#include "proxy/payload_capture.h"
#include "proxy/probe_admin.h"
#include "proxy/request_cost.h"
#include "proxy/request_log_admin.h"
#include "proxy/request_tail.h"
#include "proxy/route_preview.h"
#include "proxy/route_request.h"
#include "racing/racing_state.h"
#include "routing/candidates.h"
#include "routing/freezes.h"
#include "routing/planner.h"
#include "routing/router_state.h"
#include "shared_state/shared_limits.h"
#include "store/request_log.h"
#include "telemetry/access_log.h"
#include "telemetry/log.h"
#include "telemetry/metrics.h"
#include "telemetry/request_metrics.h"

namespace llmux::proxy {

using net::Task;
using protocol::RouteKind;

namespace {

/// How long an admitted request runs before its request-log row opens (RunningRows): about the
/// writer's batching delay, so a running row still shows within tens of milliseconds.
constexpr std::chrono::milliseconds kOpenRowsAfter{10};

std::string requestIdFor(http::ServerRequest const& request) {
  std::string_view given = request.headers.get("x-request-id");
  return isAcceptableRequestId(given) ? std::string(given) : newRequestId();
}

/// The protocol whose error shape a client of this route understands.
Protocol errorProtocolFor(protocol::Route const& route, HeaderList const& headers) {
  if (route.protocol) return *route.protocol;
  if (route.kind == RouteKind::GeminiListModels) return Protocol::Gemini;
  if (protocol::modelListShapeFor(headers) == protocol::ModelListShape::Anthropic) {
    return Protocol::Anthropic;
  }
  return Protocol::OpenAiChat;
}

bool isTokenCount(RouteKind kind) {
  return kind == RouteKind::CountTokens || kind == RouteKind::GeminiCountTokens;
}

/// The breaker gauge's value of a state.
double gaugeValue(routing::BreakerState state) {
  switch (state) {
    case routing::BreakerState::Closed: return 0;
    case routing::BreakerState::Open: return 1;
    case routing::BreakerState::HalfOpen: return 2;
  }
  return 0;
}

bool isProbe(RouteKind kind) {
  return kind == RouteKind::Healthz || kind == RouteKind::Readyz || kind == RouteKind::Metrics;
}

/// Routes answered by the gateway itself: the probes and the model lists.
bool isOperationalRoute(RouteKind kind) {
  return isProbe(kind) || kind == RouteKind::ListModels || kind == RouteKind::GeminiListModels;
}

/// The in-flight gauge of one request, brought down on every path out.
class InFlightGauge {
 public:
  InFlightGauge(telemetry::RequestMetrics& metrics, bool counted) : metrics_(metrics), counted_(counted) {
    if (counted_) metrics_.inFlight().inc();
  }
  ~InFlightGauge() { end(); }
  InFlightGauge(InFlightGauge const&) = delete;
  InFlightGauge& operator=(InFlightGauge const&) = delete;
  void end() {
    if (counted_) metrics_.inFlight().dec();
    counted_ = false;
  }

 private:
  telemetry::RequestMetrics& metrics_;
  bool counted_;
};

/// An admitted gateway-key request's slot (concurrency, windows), given back on every path:
/// finishClient settles what `take` hands it; a request that never gets there (an exception, a
/// coroutine destroyed at shutdown) releases it at once.
class ClientSlot {
 public:
  ClientSlot(shared_state::SharedLimits& limits, std::string key, routing::ClientLimits const& client_limits,
             shared_state::ClientTicket ticket, std::int64_t estimate)
      : limits_(limits), key_(std::move(key)), client_limits_(client_limits),
        ticket_(std::move(ticket)), estimate_(estimate) {}
  ~ClientSlot() {
    if (ticket_) limits_.abandonClient(key_, client_limits_, std::move(*ticket_), estimate_);
  }
  ClientSlot(ClientSlot const&) = delete;
  ClientSlot& operator=(ClientSlot const&) = delete;

  shared_state::ClientTicket take() {
    shared_state::ClientTicket ticket = std::move(*ticket_);
    ticket_.reset();
    return ticket;
  }

 private:
  shared_state::SharedLimits& limits_;
  std::string key_;
  routing::ClientLimits client_limits_;
  std::optional<shared_state::ClientTicket> ticket_;
  std::int64_t estimate_;
};

/// The capability gate's reasons of a plan, "claude-x (chan): no tools; ...": the first few
/// (a long chain over many channels would drown the message), then how many more.
std::string gateReasons(routing::RoutePlan const& plan) {
  constexpr std::size_t kNamed = 8;
  std::string out;
  for (std::size_t i = 0; i < plan.gate_skipped.size() && i < kNamed; ++i) {
    out += (i == 0 ? "" : "; ") + plan.gate_skipped[i];
  }
  if (plan.gate_skipped.size() > kNamed) {
    out += "; and " + std::to_string(plan.gate_skipped.size() - kNamed) + " more";
  }
  return out;
}

}  // namespace

GatewayHandler::GatewayHandler(GatewayServices& services, http::UpstreamPool& pool)
    : services_(services), forwarder_(services, pool),
      admin_(services.freezes, services.breakers, services.racing, services.clock),
      rng_(std::random_device{}()) {
  admin_.preview = [this](RequestContext& ctx) { return servePreview(ctx); };
  if (services.inspection != nullptr) {
    inspection_runner_ = std::make_unique<InspectionRunner>(*services.inspection, pool, services.config);
    admin_.inspection_board = &services.inspection->board;
    admin_.inspection_runner = inspection_runner_.get();
  }
  admin_.payloads = services.payloads;
  admin_.run_probe = [this, &pool](RequestContext& ctx) { return serveProbeRun(services_, pool, ctx); };
  admin_.probe_book = services.probes;
  admin_.managed = services.managed;
  admin_.request_log = services.request_log_reader;
  admin_.sessions = services.console_sessions;
  admin_.key_health = &services.key_health;
  admin_.limits = &services.limits;
  admin_.tail = services.request_tail;
  admin_.draining = &services.draining;
  if (services.request_log != nullptr) {
    running_rows_ = std::make_unique<RunningRows>(pool.io(), *services.request_log, kOpenRowsAfter);
  }
  if (services.console_sessions != nullptr) {
    console_ = std::make_unique<ConsoleHandler>(*services.console_sessions, services.auth_failures,
                                                services.console_dir);
  }
}

Task<void> GatewayHandler::servePreview(RequestContext& ctx) {
  AdminAnswer answer = previewRoute(services_, *ctx.catalog, ctx.request.body);
  std::string error = answer.status == 200 ? std::string() : "route preview: bad request";
  co_await sendAdminJson(ctx, answer.status, std::move(answer.body), error);
}

http::PlainAnswer GatewayHandler::rejection(int status, std::string_view path,
                                            std::string_view message) {
  auto lookup = protocol::matchRoute("POST", path);
  Protocol p = lookup.match == protocol::RouteMatch::Found && lookup.route.protocol
                   ? *lookup.route.protocol
                   : Protocol::OpenAiChat;
  return http::PlainAnswer{std::string(protocol::errorContentType()),
                           protocol::renderErrorBody(p, status, message)};
}

Task<void> GatewayHandler::handle(http::ServerRequest& request, http::ResponseWriter& response) {
  RequestContext ctx{request, response, services_.config.current()};
  ctx.request_id = requestIdFor(request);
  ctx.started = request.head_received;
  ctx.record.request_id = ctx.request_id;
  ctx.record.started_at = services_.clock.wallNow() -
                          std::chrono::duration_cast<WallClock::duration>(MonoClock::now() - ctx.started);
  ctx.record.bytes_in = request.body.size();

  auto lookup = protocol::matchRoute(request.method, request.path());
  ctx.route = lookup.route;
  ctx.protocol = errorProtocolFor(lookup.route, request.headers);
  if (lookup.route.protocol) ctx.record.client_protocol = std::string(protocolName(*lookup.route.protocol));
  bool log_it = lookup.match != protocol::RouteMatch::Found || !isProbe(lookup.route.kind);
  InFlightGauge in_flight(services_.metrics, log_it);
  // The catch is here, not in a wrapper coroutine: a wrapper's frame would stay allocated for the
  // whole life of every stream. (The same reason keeps cold answers in coroutines of their own:
  // the temporaries of every co_await live in its coroutine's frame.)
  std::string failure;
  try {
    if (lookup.match == protocol::RouteMatch::Found) {
      ctx.record.route = std::string(protocol::routeLabel(ctx.route));
      co_await serveRoute(ctx);
    } else {
      co_await answerUnmatched(ctx, lookup.match);
    }
  } catch (std::exception const& e) {
    failure = std::string(e.what()).empty() ? "an exception" : e.what();
  }
  if (!failure.empty()) co_await answerInternalError(ctx, failure);
  in_flight.end();
  account(ctx, log_it);
}

Task<void> GatewayHandler::answerInternalError(RequestContext& ctx, std::string const& failure) {
  // A bug, not the client's doing: logged, answered 500 in the client's shape, accounted.
  telemetry::logError("request {}: {} failed: {}", ctx.request_id, ctx.record.route, failure);
  ctx.record.error = "internal error";
  if (!ctx.response->headSent()) {
    co_await replyError(ctx, 500, "internal error in the gateway (request " + ctx.request_id + ")");
  } else {
    ctx.record.status = 500;
    ctx.response->breakConnection();
  }
}

Task<void> GatewayHandler::answerUnmatched(RequestContext& ctx, protocol::RouteMatch match) {
  http::ServerRequest const& request = ctx.request;
  if (match == protocol::RouteMatch::MethodNotAllowed) {
    ctx.record.route = std::string(protocol::routeLabel(ctx.route));
    HeaderList allow;
    allow.add("Allow", protocol::routeMethod(ctx.route.kind));
    co_await replyError(ctx, 405,
                        "method " + request.method + " is not allowed on " + std::string(request.path()),
                        std::move(allow));
    co_return;
  }
  ctx.record.route = "unknown";
  co_await replyError(ctx, 404, "no route for " + request.method + " " + std::string(request.path()));
}

Task<void> GatewayHandler::serveRoute(RequestContext& ctx) {
  if (ctx.request.refused_status != 0) {
    // Refused on its head (no body was read): that verdict, whatever a reload changed since.
    co_await answerRefusal(ctx);
    co_return;
  }
  if (protocol::isAdminRoute(ctx.route.kind)) {
    co_await admin_.serve(ctx);  // the admin token, never a gateway key
    co_return;
  }
  if (protocol::isConsoleRoute(ctx.route.kind)) {
    if (console_) {
      co_await console_->serve(ctx);
    } else {
      co_await sendAdminJson(ctx, 404, adminErrorJson("not found", "not_found_error"), "not found");
    }
    co_return;
  }
  if (isOperationalRoute(ctx.route.kind)) {
    co_await serveOperational(ctx);
    co_return;
  }
  if (!admit(ctx)) {
    co_await replyError(ctx, 401, ctx.record.error);
    co_return;
  }
  // Payload capture: decided once, here; an unsampled request pays this test and no more.
  if (services_.payloads != nullptr && services_.payloads->sampled()) {
    startPayloadCapture(ctx, *services_.payloads);
  }
  co_await serveModelRequest(ctx);
}

Task<void> GatewayHandler::serveOperational(RequestContext& ctx) {
  switch (ctx.route.kind) {
    case RouteKind::Healthz:
      co_await servePlain(ctx, 200, "application/json", "{\"status\":\"ok\"}");
      co_return;
    case RouteKind::Readyz:
      if (services_.draining.load()) {
        co_await servePlain(ctx, 503, "application/json", "{\"status\":\"draining\"}");
      } else {
        co_await servePlain(ctx, 200, "application/json", "{\"status\":\"ready\"}");
      }
      co_return;
    case RouteKind::Metrics: {
      // Everything is copied from counts kept in memory: a scrape never waits for the disk.
      publishStorageMetrics();
      // The router's state as of now.
      publishFreezeGauges();
      publishResilienceGauges();
      services_.metrics_registry.gauge(telemetry::MetricId::CooldownsActive)
          .get()
          .set(static_cast<double>(services_.router_state.cooldownsActive()));
      co_await servePlain(ctx, 200, "text/plain; version=0.0.4; charset=utf-8",
                          services_.metrics_registry.renderPrometheus());
      co_return;
    }
    case RouteKind::ListModels:
    case RouteKind::GeminiListModels:
      if (admit(ctx)) {
        co_await serveModelList(ctx);
      } else {
        co_await replyError(ctx, 401, ctx.record.error);
      }
      co_return;
    default:
      co_return;
  }
}

Task<void> GatewayHandler::answerRefusal(RequestContext& ctx) {
  http::ServerRequest const& request = ctx.request;
  HeaderList extra;
  if (request.refused_retry_after > 0) {
    extra.add("retry-after", std::to_string(request.refused_retry_after));
  }
  if (protocol::isAdminRoute(ctx.route.kind) || protocol::isConsoleRoute(ctx.route.kind) ||
      ctx.route.kind == RouteKind::Metrics) {
    std::string_view type = request.refused_status == 404   ? "not_found_error"
                            : request.refused_status == 401 ? "authentication_error"
                            : request.refused_status == 403 ? "permission_error"
                                                            : "rate_limit_error";
    if (!extra.empty()) ctx.record.error = request.refused_message;
    co_await sendAdminJson(ctx, request.refused_status,
                           adminErrorJson(request.refused_message, type), request.refused_message,
                           std::move(extra));
    co_return;
  }
  ctx.record.error = request.refused_message;
  co_await replyError(ctx, request.refused_status, request.refused_message, std::move(extra));
}

void GatewayHandler::publishFreezeGauges() {
  constexpr config::FreezeObject kObjects[] = {config::FreezeObject::Key, config::FreezeObject::KeyModel,
                                               config::FreezeObject::Channel,
                                               config::FreezeObject::ChannelModel};
  constexpr config::FreezePeriod kPeriods[] = {config::FreezePeriod::Fixed, config::FreezePeriod::Today,
                                               config::FreezePeriod::Week, config::FreezePeriod::Month,
                                               config::FreezePeriod::Forever,
                                               config::FreezePeriod::UpstreamReset};
  std::array<std::array<int, std::size(kPeriods)>, std::size(kObjects)> counts{};
  for (auto const& freeze : services_.freezes.list()) {
    ++counts[static_cast<std::size_t>(freeze.object)][static_cast<std::size_t>(freeze.period)];
  }
  auto& gauge = services_.metrics_registry.gauge(telemetry::MetricId::FreezesActive);
  for (auto object : kObjects) {
    for (auto period : kPeriods) {
      gauge.labels({config::freezeObjectName(object), config::freezePeriodName(period)})
          .set(counts[static_cast<std::size_t>(object)][static_cast<std::size_t>(period)]);
    }
  }
}

void GatewayHandler::publishStorageMetrics() {
  // The sinks and stores count in memory; copy the counts into the registry at scrape time.
  auto& registry = services_.metrics_registry;
  auto& dropped = registry.counter(telemetry::MetricId::LogRecordsDroppedTotal);
  dropped.labels({"access_log"}).advanceTo(services_.access_log.droppedLines());
  auto& failures = registry.counter(telemetry::MetricId::StoreWriteFailuresTotal);
  failures.labels({"freezes"}).advanceTo(services_.freezes.persistenceFailures());
  failures.labels({"video_jobs"}).advanceTo(services_.video_jobs.persistenceFailures());
  failures.labels({"racing"}).advanceTo(services_.racing.persistenceFailures());
  if (services_.payloads != nullptr) {
    payloads::PayloadStats const payload_stats = services_.payloads->stats();
    registry.counter(telemetry::MetricId::PayloadsWrittenTotal).get().advanceTo(payload_stats.written);
    registry.counter(telemetry::MetricId::PayloadsDroppedTotal).get().advanceTo(payload_stats.dropped);
    registry.counter(telemetry::MetricId::PayloadBatchesDroppedTotal)
        .get()
        .advanceTo(payload_stats.batches_dropped);
    registry.counter(telemetry::MetricId::PayloadExpiryFailuresTotal)
        .get()
        .advanceTo(payload_stats.expiry_failures);
  }
  if (services_.request_log == nullptr) return;
  store::RequestLogStats stats = services_.request_log->stats();
  dropped.labels({"request_log"}).advanceTo(stats.dropped);
  failures.labels({"request_log"}).advanceTo(stats.failed_batches);
  registry.gauge(telemetry::MetricId::RequestLogQueueDepth)
      .get()
      .set(static_cast<double>(stats.queued));
  registry.counter(telemetry::MetricId::RequestLogRecordsWrittenTotal)
      .get()
      .advanceTo(stats.written);
  registry.counter(telemetry::MetricId::RequestLogRecordsExpiredTotal)
      .get()
      .advanceTo(stats.expired);
  registry.counter(telemetry::MetricId::RequestLogInterruptedTotal)
      .get()
      .advanceTo(stats.interrupted);
  registry.gauge(telemetry::MetricId::DatabaseConnected).get().set(stats.connected ? 1 : 0);
}

void GatewayHandler::publishResilienceGauges() {
  auto& states = services_.metrics_registry.gauge(telemetry::MetricId::BreakerState);
  for (auto const& view : services_.breakers.list(services_.clock.now())) {
    states.labels({view.channel, view.model, "failure"}).set(gaugeValue(view.failure_state));
    states.labels({view.channel, view.model, "storm"}).set(gaugeValue(view.storm_state));
  }
  auto stats = services_.limits.stats();
  services_.metrics_registry.counter(telemetry::MetricId::RedisFallbacksTotal).get().advanceTo(stats.redis_fallbacks);
  services_.metrics_registry.gauge(telemetry::MetricId::RedisActive).get().set(stats.redis_active ? 1 : 0);
  auto& buckets = services_.metrics_registry.counter(telemetry::MetricId::BucketEventsTotal);
  buckets.labels({"wait"}).advanceTo(stats.bucket_waits);
  buckets.labels({"overflow"}).advanceTo(stats.bucket_overflows);
}

namespace {

/// The gateway key a request presents, or why it cannot be admitted.
struct KeyCheck {
  config::GatewayKey const* key = nullptr;
  std::string_view problem;  ///< set when `key` is null
};

KeyCheck checkGatewayKey(routing::Catalog const& catalog, http::ServerRequest const& request) {
  auto secret = protocol::findClientKey(request.headers, request.query());
  if (!secret) {
    return {nullptr,
            "missing API key: send the gateway key as 'Authorization: Bearer <key>', "
            "'x-api-key', 'x-goog-api-key' or '?key='"};
  }
  auto const* key = catalog.findGatewayKey(*secret);
  if (!key) return {nullptr, "invalid API key"};
  return {key, {}};
}

}  // namespace

bool GatewayHandler::screenHead(http::ServerRequest& request) {
  auto lookup = protocol::matchRoute(request.method, request.path());
  switch (lookup.match) {
    case protocol::RouteMatch::NotFound: request.refused_status = 404; return false;
    case protocol::RouteMatch::MethodNotAllowed: request.refused_status = 405; return false;
    case protocol::RouteMatch::Found: break;
  }
  RouteKind kind = lookup.route.kind;
  if (!listenerServes(static_cast<Listener>(request.listener), kind, services_.listeners)) {
    request.refused_status = 404;  // as if the route did not exist on this address
    request.refused_message = "no route for " + request.method + " " + std::string(request.path());
    return false;
  }
  if (kind == RouteKind::Healthz || kind == RouteKind::Readyz) return true;
  auto catalog = services_.config.current();
  if (kind == RouteKind::Metrics) {
    if (catalog->settings().metrics_token.empty()) return true;  // open to whoever reaches it
    return screenOperatorToken(request, {catalog->settings().metrics_token}, "");
  }
  if (protocol::isAdminRoute(kind)) {
    auto const& admin_tokens = catalog->settings().admin_tokens;
    if (admin_tokens.empty()) {
      request.refused_status = 404;  // the admin API is off: nothing to reveal
      request.refused_message = "not found";
      return false;
    }
    return screenAdmin(request, admin_tokens);
  }
  if (protocol::isConsoleRoute(kind)) {
    if (catalog->settings().admin_tokens.empty()) {
      request.refused_status = 404;  // no admin token, no console
      request.refused_message = "not found";
      return false;
    }
    // Its files are public; signing in is a token check, limited per address like the others.
    if (kind == RouteKind::ConsoleSession && refuseBlockedAddress(request)) return false;
    request.body_limit = kConsoleBodyLimit;
    return true;
  }
  KeyCheck check = checkGatewayKey(*catalog, request);
  if (check.key) {
    request.body_limit = catalog->settings().server.bodyLimitFor(protocol::routeLabel(lookup.route),
                                                                 protocol::isUploadRoute(kind));
    return true;
  }
  request.refused_status = 401;
  request.refused_message = std::string(check.problem);
  return false;
}

bool GatewayHandler::refuseBlockedAddress(http::ServerRequest& request) {
  auto wait = services_.auth_failures.blockedFor(request.peer);
  if (!wait) return false;
  request.refused_status = 429;
  request.refused_retry_after =
      static_cast<unsigned>(std::chrono::ceil<std::chrono::seconds>(*wait).count());
  request.refused_message = "too many failed authentications from this address; retry after " +
                            std::to_string(request.refused_retry_after) + " s";
  return true;
}

bool GatewayHandler::screenAdmin(http::ServerRequest& request,
                                 std::vector<config::AdminToken> const& tokens) {
  if (refuseBlockedAddress(request)) return false;
  AdminIdentity const caller =
      identifyAdmin(request.headers, request.method, tokens, services_.console_sessions);
  if (caller.verdict == protocol::AdminAuth::Ok) {
    if (!caller.csrf_refused) return true;
    request.refused_status = 403;
    request.refused_message = "missing or wrong X-CSRF-Token for this console session";
    return false;
  }
  services_.auth_failures.recordFailure(request.peer);
  bool missing = caller.verdict == protocol::AdminAuth::Missing;
  request.refused_status = missing ? 401 : 403;
  request.refused_message = missing ? "this route requires its token" : "wrong token";
  return false;
}

bool GatewayHandler::screenOperatorToken(http::ServerRequest& request,
                                         std::vector<std::string_view> const& tokens,
                                         std::string_view token_header) {
  if (refuseBlockedAddress(request)) return false;
  auto verdict = protocol::checkOperatorTokens(request.headers, tokens, token_header).verdict;
  if (verdict == protocol::AdminAuth::Ok) return true;
  services_.auth_failures.recordFailure(request.peer);
  bool missing = verdict == protocol::AdminAuth::Missing;
  request.refused_status = missing ? 401 : 403;
  request.refused_message = missing ? "this route requires its token" : "wrong token";
  return false;
}

bool GatewayHandler::admit(RequestContext& ctx) {
  KeyCheck check = checkGatewayKey(*ctx.catalog, ctx.request);
  if (!check.key) {
    ctx.record.error = std::string(check.problem);
    return false;
  }
  ctx.record.gateway_key = check.key->name;
  ctx.gateway_key = check.key;
  return true;
}

std::optional<std::string> GatewayHandler::inspect(RequestContext& ctx) {
  if (protocol::isMediaRoute(ctx.route.kind)) return inspectMedia(ctx);
  auto profile = protocol::inspectRequest(ctx.route, ctx.request.body);
  if (!profile) return std::move(profile.error().message);
  ctx.profile = std::move(*profile);
  ctx.client = protocol::detectClient(ctx.request.headers, ctx.profile.client_hint, ctx.request.body);
  ctx.record.client = std::string(protocol::clientKindName(ctx.client));
  ctx.record.model = ctx.profile.model;
  ctx.record.stream = ctx.profile.stream;
  return std::nullopt;
}

Task<void> GatewayHandler::serveModelRequest(RequestContext& ctx) {
  if (auto problem = inspect(ctx)) {
    co_await replyError(ctx, 400, std::move(*problem));
    co_return;
  }
  // Admitted: its request-log row shows it running if it is still running a moment from now.
  if (running_rows_) running_rows_->admitted(ctx, MonoClock::now());
  std::optional<routing::PlannedCandidate> owner;
  if (ctx.route.kind == RouteKind::VideoRetrieve || ctx.route.kind == RouteKind::VideoContent) {
    std::string problem;
    owner = videoJobOwner(ctx, problem);
    if (!owner) {
      co_await replyError(ctx, 404, std::move(problem));
      co_return;
    }
  }
  routing::RouteRequest route_request = routeRequestFor(ctx);

  // The gateway key's own limits come first: a key over them touches no upstream.
  auto const& limits = ctx.gateway_key->limits;
  if (!limits.any()) {
    co_await serveAdmitted(ctx, std::move(route_request), std::move(owner));
    co_return;
  }
  std::int64_t const estimate = ctx.prompt_tokens + ctx.catalog->settings().buckets.expected_output_tokens;
  shared_state::ClientTicket ticket =
      co_await services_.limits.admitClient(ctx.gateway_key->name, limits, estimate);
  if (!ticket.admission.admitted) {
    co_await rejectOverLimit(ctx, ticket.admission);
    co_return;
  }
  ClientSlot slot(services_.limits, ctx.gateway_key->name, limits, std::move(ticket), estimate);
  co_await serveAdmitted(ctx, std::move(route_request), std::move(owner));
  // What the request used, its race's losers included (racing overhead is the key's too).
  std::int64_t used = (ctx.record.usage ? ctx.record.usage->total() : 0) +
                      (ctx.record.racing_overhead ? ctx.record.racing_overhead->total() : 0);
  double cost = requestCostOf(ctx.catalog->settings().prices, ctx.record);
  co_await services_.limits.finishClient(ctx.gateway_key->name, limits, slot.take(), estimate,
                                         used, cost);
}

Task<void> GatewayHandler::rejectOverLimit(RequestContext& ctx, routing::ClientAdmission const& refusal) {
  services_.metrics_registry.counter(telemetry::MetricId::LimitRejectionsTotal)
      .labels({ctx.gateway_key->name, refusal.limit})
      .inc();
  ctx.record.over_limit = true;
  auto seconds = std::max<long long>(1, std::chrono::ceil<std::chrono::seconds>(refusal.retry_after).count());
  HeaderList extra;
  extra.add("retry-after", std::to_string(seconds));
  co_await replyError(ctx, 429,
                      "gateway key '" + ctx.gateway_key->name + "' is over its " +
                          std::string(refusal.limit) + " limit; retry after " + std::to_string(seconds) + " s",
                      std::move(extra));
}

Task<void> GatewayHandler::serveAdmitted(RequestContext& ctx, routing::RouteRequest route_request,
                                         std::optional<routing::PlannedCandidate> owner) {
  if (owner) {
    co_await forwarder_.forward(ctx, std::vector<routing::PlannedCandidate>(1, *owner));
    co_return;
  }
  auto plan = routing::planRoute(*ctx.catalog, services_.router_state, services_.key_health,
                                 services_.freezes, route_request, rng_, &services_.rotation);
  warnUnknownCapabilities(plan);
  if (plan.status != routing::RouteStatus::Ready) {
    co_await answerUnroutable(ctx, plan, route_request.pinned_channel);
    co_return;
  }
  if (isTokenCount(ctx.route.kind)) {
    // Token counts are answered by the upstream's own tokenizer: never translated.
    auto const& channels = ctx.catalog->settings().channels;
    std::erase_if(plan.candidates, [&](routing::PlannedCandidate const& c) {
      return channels[c.channel].rows[c.row].protocol != ctx.protocol;
    });
    if (plan.candidates.empty()) {
      co_await replyError(ctx, 400, tokenCountRefusal(ctx));
      co_return;
    }
  }
  co_await forwarder_.forward(ctx, std::move(plan.candidates));
  rememberVideoJob(ctx);
}

std::string GatewayHandler::tokenCountRefusal(RequestContext const& ctx) {
  return "token counting for model '" + ctx.profile.model + "' needs a channel speaking " +
         std::string(protocolName(ctx.protocol));
}

Task<void> GatewayHandler::answerUnroutable(RequestContext& ctx, routing::RoutePlan const& plan,
                                            std::string const& pinned_channel) {
  switch (plan.status) {
    case routing::RouteStatus::UnknownModel:
      if (ctx.modality) {
        co_await replyError(ctx, 404,
                            "model '" + ctx.profile.model + "' is not served for " +
                                std::string(config::modalityName(*ctx.modality)) +
                                " by this gateway (no channel enables it in media:)");
        co_return;
      }
      co_await replyError(ctx, 404, "model '" + ctx.profile.model + "' is not served by this gateway");
      co_return;
    case routing::RouteStatus::UnknownChannel:
      co_await replyError(ctx, 400,
                          "X-Channel '" + pinned_channel +
                              "' names no enabled channel serving model '" + ctx.profile.model + "'");
      co_return;
    case routing::RouteStatus::AllPaused: {
      // Fallbacks the gate ruled out are named too: they would not serve once the pause ends.
      std::string gated = plan.gate_skipped.empty()
                              ? std::string()
                              : " (fallbacks ruled out by the capability gate: " +
                                    gateReasons(plan) + ")";
      if (!plan.resume_at) {
        co_await replyError(ctx, 503,
                            "every upstream for model '" + ctx.profile.model +
                                "' is frozen or out of quota (see GET /admin/freezes)" + gated);
        co_return;
      }
      auto wait = std::chrono::ceil<std::chrono::seconds>(*plan.resume_at - services_.clock.now());
      HeaderList extra;
      extra.add("retry-after", std::to_string(std::max<long long>(1, wait.count())));
      co_await replyError(ctx, 429,
                          "every upstream key for model '" + ctx.profile.model +
                              "' is rate limited or rejected; retry after " +
                              std::to_string(std::max<long long>(1, wait.count())) + " s" + gated,
                          std::move(extra));
      co_return;
    }
    case routing::RouteStatus::CapabilityVetoed: {
      // The request needs what no model left in the chain can do: the client's to change (drop
      // the tools or the image, shorten the prompt), or the operator's (the chain's models).
      std::string reasons = gateReasons(plan);
      telemetry::logWarn("request {}: the capability gate ruled out every candidate for model "
                         "'{}': {}",
                         ctx.request_id, ctx.profile.model, reasons);
      co_await replyError(ctx, 400,
                          "no model that can serve this request is left for model '" +
                              ctx.profile.model + "': the capability gate ruled out " + reasons);
      co_return;
    }
    case routing::RouteStatus::Ready: break;
  }
}

Task<void> GatewayHandler::serveModelList(RequestContext& ctx) {
  std::vector<protocol::ModelEntry> models;
  for (auto const& name : ctx.catalog->modelNames()) models.push_back({name, "llmux", 0});
  std::string body;
  if (ctx.route.kind == RouteKind::GeminiListModels) {
    body = protocol::renderGeminiModelList(models);
  } else if (ctx.protocol == Protocol::Anthropic) {
    body = protocol::renderAnthropicModelList(models);
  } else {
    body = protocol::renderOpenAiModelList(models);
  }
  co_await servePlain(ctx, 200, "application/json", body);
}

Task<void> GatewayHandler::servePlain(RequestContext& ctx, int status, std::string_view content_type,
                                      std::string_view body) {
  HeaderList headers;
  headers.add("Content-Type", content_type);
  headers.add("X-Request-Id", ctx.request_id);
  ctx.record.status = status;
  co_await ctx.response->send(status, headers, body);
}

void GatewayHandler::account(RequestContext& ctx, bool log_it) {
  ctx.running_row.unlink();  // ended: its row is written whole below, never opened now
  auto& record = ctx.record;
  MonoTime now = MonoClock::now();
  record.total_ms = millisBetween(ctx.started, now);
  if (ctx.response->firstByteAt() != MonoTime{}) {
    record.first_byte_ms = millisBetween(ctx.request.body_received, ctx.response->firstByteAt());
  }
  // Overhead: from the complete request to the end of the answer, minus the upstream waits (the
  // client's upload time and the upstream's think time are not the gateway's).
  double handled_ms = millisBetween(ctx.request.body_received, now);
  double upstream_ms = std::chrono::duration<double, std::milli>(ctx.upstream_wait).count();
  record.overhead_ms = std::max(0.0, handled_ms - upstream_ms);
  record.bytes_out = ctx.response->bodyBytesSent();
  if (ctx.payloads) finishPayloadCapture(ctx, *services_.payloads);
  if (!log_it) return;
  if (record.usage || record.media) record.cost_usd = loggedCostOf(ctx.catalog->settings().prices, record);
  services_.metrics.observe(record);
  services_.access_log.write(record);
  // The request log and its live tail are the clients' requests: the operators' own calls (the
  // admin API, the console) are in the access log and the metrics only.
  if (protocol::isAdminRoute(ctx.route.kind) || protocol::isConsoleRoute(ctx.route.kind)) return;
  if (services_.request_tail != nullptr && services_.request_tail->watched()) {
    auto const& database = ctx.catalog->settings().database;
    services_.request_tail->publish(record.request_id,
                                    requestJson(record, 0, "done", database ? database->replica : ""));
  }
  if (services_.request_log) services_.request_log->record(std::move(record));
}

}  // namespace llmux::proxy
