#pragma once

#include <memory>

#include <optional>
#include <string>

#include "http/request_handler.h"
#include "net/asio_types.h"
#include "proxy/admin_handler.h"
#include "proxy/console_handler.h"
#include "proxy/inspection_runner.h"
#include "proxy/forwarder.h"
#include "proxy/running_rows.h"
#include "protocol/routes.h"
#include "proxy/services.h"
#include "routing/planner.h"
#include "routing/rate_limits.h"
#include "routing/rng.h"

namespace llmux::http {
class UpstreamPool;
}

namespace llmux::proxy {

/// The gateway's request pipeline for one worker thread:
/// route → admit (gateway key) → inspect (model, stream) → plan (candidates) → forward → account.
/// Also serves the model lists, health probes and metrics.
class GatewayHandler final : public http::RequestHandler {
 public:
  GatewayHandler(GatewayServices& services, http::UpstreamPool& pool);

  /// Refuses, on the head alone, a request for an unknown route or without a valid credential
  /// (gateway key; admin token on /admin/*): its body is never read.
  bool screenHead(http::ServerRequest& request) override;
  net::Task<void> handle(http::ServerRequest& request, http::ResponseWriter& response) override;
  http::PlainAnswer rejection(int status, std::string_view path, std::string_view message) override;

 private:
  // Every coroutine below that a stream passes through keeps its frame, with the temporaries
  // of all its co_awaits, for the stream's whole life: cold answers (errors, probes) are
  // coroutines of their own so that those frames stay small.
  net::Task<void> serveRoute(RequestContext& ctx);
  /// Health, readiness, metrics and the model lists.
  net::Task<void> serveOperational(RequestContext& ctx);
  /// Inspect, then the gateway key's limits (admitted or a 429), then serveAdmitted.
  net::Task<void> serveModelRequest(RequestContext& ctx);
  /// The model and stream flags from the body into `ctx`; the client's error when malformed.
  std::optional<std::string> inspect(RequestContext& ctx);
  /// Plan and forward; a video job's poll goes to `owner`, the candidate that created it.
  net::Task<void> serveAdmitted(RequestContext& ctx, routing::RouteRequest route_request,
                                std::optional<routing::PlannedCandidate> owner);
  // Media requests (media_requests.cpp, docs/media.md).
  /// inspect() of a media route: its modality, model and billable quantities.
  std::optional<std::string> inspectMedia(RequestContext& ctx);
  /// The channel and key that created the polled video job, with its model into `ctx`; nullopt
  /// with the client's 404 message in `problem` for an unknown job or another gateway key's.
  std::optional<routing::PlannedCandidate> videoJobOwner(RequestContext& ctx, std::string& problem);
  /// After a video job was created: where it lives, for its polls (kept across restarts).
  void rememberVideoJob(RequestContext& ctx);
  /// The answer to a request no candidate can take (unknown model or channel, all paused,
  /// vetoed by the capability gate).
  net::Task<void> answerUnroutable(RequestContext& ctx, routing::RoutePlan const& plan,
                                   std::string const& pinned_channel);
  static std::string tokenCountRefusal(RequestContext const& ctx);
  /// 404 or 405 in the client's shape.
  net::Task<void> answerUnmatched(RequestContext& ctx, protocol::RouteMatch match);
  /// A handler bug: logged, a 500 when no byte was sent, else the connection broken.
  net::Task<void> answerInternalError(RequestContext& ctx, std::string const& failure);
  /// The 429 of a gateway key over one of its limits, with retry-after, in the client's shape.
  net::Task<void> rejectOverLimit(RequestContext& ctx, routing::ClientAdmission const& refusal);
  net::Task<void> serveModelList(RequestContext& ctx);
  net::Task<void> servePreview(RequestContext& ctx);
  net::Task<void> servePlain(RequestContext& ctx, int status, std::string_view content_type,
                             std::string_view body);
  bool admit(RequestContext& ctx);
  /// The operator token of /metrics or /admin/*, with failures counted per address (429 past
  /// the limit); false with the refusal set on `request`.
  bool screenOperatorToken(http::ServerRequest& request,
                           std::vector<std::string_view> const& tokens,
                           std::string_view token_header);
  /// An admin route's caller (token or console session, proxy/admin_identity.h), with failures
  /// counted per address; false with the refusal set on `request`.
  bool screenAdmin(http::ServerRequest& request, std::vector<config::AdminToken> const& tokens);
  /// True, with a 429 refusal set, while `request`'s address has failed too many token checks.
  bool refuseBlockedAddress(http::ServerRequest& request);
  /// The answer to a request refused on its head, in its route's shape.
  net::Task<void> answerRefusal(RequestContext& ctx);
  /// The log sinks' and stores' counts (drops, writes, write failures, queue depth), copied from
  /// memory at scrape time.
  void publishStorageMetrics();
  /// llmux_freezes_active by object and period, as of now (at scrape time).
  void publishFreezeGauges();
  /// Breaker states and the shared limits' Redis figures, as of now (at scrape time).
  void publishResilienceGauges();
  void account(RequestContext& ctx, bool log_it);

  GatewayServices& services_;
  Forwarder forwarder_;
  AdminHandler admin_;
  std::unique_ptr<ConsoleHandler> console_;  ///< none without console sessions
  /// This worker's inspection runner (POST /admin/inspection/run); none without inspection.
  std::unique_ptr<InspectionRunner> inspection_runner_;
  routing::Rng rng_;  ///< this worker's: random strategies and the fast strategy's exploration
  /// This worker's requests whose request-log row opens once they have run a while; none
  /// without a request log.
  std::unique_ptr<RunningRows> running_rows_;
};

}  // namespace llmux::proxy
