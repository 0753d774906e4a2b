#pragma once

#include <memory>
#include <optional>
#include <string>

#include "core/clock.h"
#include "core/request_record.h"
#include "proxy/running_rows.h"
#include "config/settings.h"
#include "protocol/client_detect.h"
#include "protocol/inspect.h"
#include "protocol/media_request.h"
#include "protocol/routes.h"
#include "routing/catalog.h"
#include "translate/neutral.h"
#include "translate/tool_names.h"

namespace llmux::http {
struct ServerRequest;
class ResponseWriter;
}  // namespace llmux::http

namespace llmux::payloads {
class RequestCapture;
}

namespace llmux::proxy {

class CapturingWriter;

/// What one client request carries through the pipeline besides its client: the pinned
/// configuration, what inspection found, timings, and the record that becomes its log line.
/// Copyable: each branch of a raced request works on a copy of its own (RequestContext below).
struct RequestState {
  std::shared_ptr<const routing::Catalog> catalog;  ///< pinned for the whole request
  protocol::Route route;
  Protocol protocol = Protocol::OpenAiChat;  ///< the client's protocol (error shapes)
  protocol::RequestProfile profile;
  std::string request_id;
  MonoTime started{};
  std::chrono::nanoseconds upstream_wait{0};  ///< spent waiting on upstreams (not overhead)
  /// The client's request in the neutral model, decoded on the first attempt that needs
  /// translation (see translation.h). Never changed once decoded: the branches of a race share it.
  std::shared_ptr<translate::Request const> neutral;
  /// The tool names the latest translated attempt renamed for its target: planned again by every
  /// translatedBody call (failover may change the protocol), restored by the translated relay.
  translate::ToolNameMap tool_names;
  bool dropped_logged = false;  ///< what translation left out was logged (once per request)
  /// The body passthrough attempts send instead of the client's when it carried reasoning llmux
  /// made up (translate/history_cleaner.h), with its own profile; decided on the first
  /// passthrough attempt (`passthrough_checked`).
  struct CleanedBody {
    std::string body;
    protocol::RequestProfile profile;
  };
  std::optional<CleanedBody> cleaned;
  bool passthrough_checked = false;
  /// The calling client as detected (User-Agent, body hint, system prompt): for the logs, the
  /// metrics and routing.
  protocol::ClientKind client = protocol::ClientKind::Unknown;
  /// The admitted gateway key (its strategy), nullptr before admission.
  config::GatewayKey const* gateway_key = nullptr;
  /// The session the request belongs to (protocol/session_key.h), "" when none: affinity.
  std::string session;
  /// The prompt's estimated size in tokens (protocol/request_needs.h): routing and TPM headroom.
  std::int64_t prompt_tokens = 0;
  /// A media request (docs/media.md): its modality, what it asks for, and a created video job's
  /// id once its answer named it. No modality: a chat request.
  std::optional<config::Modality> modality;
  protocol::MediaAsk media_ask;
  std::string video_job_id;
  RequestRecord record;
  /// A sampled request's captured bodies (docs/operations.md, ClickHouse payloads); nullptr when
  /// not sampled. Shared with the branches of a race (same worker thread).
  std::shared_ptr<payloads::RequestCapture> payloads;
};

/// One client request: its state, the request as read and the writer of its answer.
struct RequestContext : RequestState {
  RequestContext(http::ServerRequest& request, http::ResponseWriter& response,
                 std::shared_ptr<const routing::Catalog> pinned = {})
      : request(request), response(&response) {
    catalog = std::move(pinned);
  }
  /// A shadow of a raced request (docs/racing.md): a copy of the request's state as it is now,
  /// answering through `branch_writer`. What the shadow records stays its own until the race
  /// merges the winner's back.
  RequestContext(RequestContext const& parent, http::ResponseWriter& branch_writer)
      : RequestState(parent), request(parent.request), response(&branch_writer) {
    upstream_wait = std::chrono::nanoseconds(0);
  }
  RequestContext(RequestContext const&) = delete;
  RequestContext& operator=(RequestContext const&) = delete;

  http::ServerRequest& request;
  /// Where the answer goes: the client's writer, or while a raced request's primary runs, its
  /// branch writer (the race swaps it in and back: the primary works on the request's own state).
  http::ResponseWriter* response;
  /// A sampled request's answer goes through this copy on its way to the client's writer.
  std::shared_ptr<CapturingWriter> capturing_writer;  // shared_ptr: destroyed where incomplete
  /// Its place among the requests whose request-log row is not open yet (RunningRows).
  RunningRowLink running_row;
};

}  // namespace llmux::proxy
