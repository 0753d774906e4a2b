#pragma once

#include <string>

#include "config/settings.h"
#include "core/error.h"
#include "protocol/model_splice.h"
#include "proxy/request_context.h"
#include "proxy/upstream_request.h"

namespace llmux::proxy {

/// The bytes of one attempt's upstream request: the head, and the body as pieces for a
/// scatter/gather write (passthrough: the client's bytes around a spliced model; otherwise one
/// owned body).
struct AttemptRequest {
  enum class Problem {
    None,
    ClientRequest,   ///< the client's request cannot be sent (a body translation cannot read,
                     ///< a value that would break the upstream head): a 400, no retry
    Untranslatable,  ///< this channel's protocol cannot carry the request: try another
    Misconfigured,   ///< the channel's settings would write an unsafe head: try another channel
  };
  Problem problem = Problem::None;
  Error error;  ///< when `problem` is not None

  bool translated = false;  ///< the row speaks another protocol than the client
  std::string owned_body;   ///< a translated or preset-filled body; `body` points into it
  protocol::SplicedBody body;
  UpstreamTarget target;  ///< where it goes
  std::string head;

  AttemptRequest() = default;
  AttemptRequest(AttemptRequest const&) = delete;  // `body` points into `owned_body`
  AttemptRequest& operator=(AttemptRequest const&) = delete;
};

/// Builds, into `out`, the request for `channel` spoken in `row` with `key`: passthrough (the
/// client's bytes, cleaned of reasoning an earlier translation made up, model spliced) or
/// translation (the neutral request encoded for the row's protocol); then a client preset's
/// headers, query and default fields; then the head (upstream_request.h).
void buildAttemptRequest(RequestContext& ctx, config::Channel const& channel,
                         config::ProtocolRow const& row, config::ChannelKey const& key,
                         std::string const& upstream_model, AttemptRequest& out);

}  // namespace llmux::proxy
