#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/attempt_outcome.h"
#include "core/clock.h"
#include "core/token_usage.h"

namespace llmux {

/// An attempt's part in a race (docs/racing.md); None when the request did not race.
enum class AttemptRole : unsigned char { None, Primary, Shadow };
inline char const* attemptRoleName(AttemptRole role) {
  switch (role) {
    case AttemptRole::Primary: return "primary";
    case AttemptRole::Shadow: return "shadow";
    case AttemptRole::None: break;
  }
  return "";
}

/// One upstream attempt of a request, as the request log and the access log record it.
struct AttemptRecord {
  std::string channel;        ///< channel name
  std::string key_label;      ///< "<channel>#<index>", never the secret
  std::string upstream_model;
  int status = 0;             ///< upstream HTTP status; 0 when no response head arrived
  AttemptOutcome outcome;     ///< written as "ok", "failover:<reason>", "client_error", ...
  double first_byte_ms = -1;  ///< response head after request sent; -1 when none
  double duration_ms = 0;
  std::string upstream_protocol;  ///< the protocol spoken to the upstream (protocolName())
  bool translated = false;        ///< the upstream speaks another protocol than the client
  /// How the router placed this candidate: the strategy, the score and its factor values
  /// (intelligent / fast; routing::formatFactors: "score=0.512 weight=1 headroom=1 …"), and the
  /// fallback depth (0: the model asked for; n: the n-th fallback hop).
  std::string strategy;
  double score = -1;  ///< -1: the strategy does not score
  std::string factors;
  int depth = 0;
  /// The router's outcome class (routing::outcomeName: "success", "rate_limited", ...); "" when
  /// no request reached the upstream.
  std::string outcome_class;
  /// A stream's first content after the request was sent (the commit point: pings and an
  /// empty preamble do not count); -1 for a non-stream answer or a stream without content.
  double first_token_ms = -1;
  AttemptRole role = AttemptRole::None;
  /// A losing branch's tokens, when it reported them (the winner's are the request's `usage`).
  std::optional<TokenUsage> usage;
};

/// What a media request used, in its modality's billing unit (docs/media.md).
struct MediaUsage {
  std::string modality;  ///< "images", "videos", "speech", "transcriptions", "embeddings"
  std::string unit;      ///< "images", "seconds", "characters" or "tokens"
  double quantity = 0;

  bool operator==(MediaUsage const&) const = default;
};

/// Everything known about one client request when it ends: the row of the request log and the
/// access-log line. Secrets never enter it.
struct RequestRecord {
  std::string request_id;
  WallTime started_at{};
  std::string route;            ///< "/v1/chat/completions", ...
  std::string client_protocol;  ///< protocolName() or "" for non-LLM routes
  std::string gateway_key;      ///< the gateway key's name
  std::string client;           ///< the calling client as detected ("claude-code", "openai-sdk", …)
  std::string model;            ///< as the client asked
  bool stream = false;
  std::string channel;          ///< the channel that answered (last attempt), "" if none
  std::string key_label;
  int status = 0;               ///< HTTP status sent to the client
  std::string error;            ///< short reason when the request failed
  /// Refused by its gateway key's own limits (a 429 before any upstream): the client's doing,
  /// not a failure of the service (docs/operations.md, SLOs).
  bool over_limit = false;
  std::vector<AttemptRecord> attempts;
  double first_byte_ms = -1;    ///< first response byte to the client after the request was read
  double total_ms = 0;
  double overhead_ms = 0;       ///< time spent inside llmux, upstream waits excluded
  std::uint64_t bytes_in = 0;   ///< request body bytes
  std::uint64_t bytes_out = 0;  ///< response body bytes sent to the client
  /// What the answering upstream reported, normalised; nullopt when it reported none (errors,
  /// broken streams before their usage).
  std::optional<TokenUsage> usage;
  /// What the losing branches of a race reported using (racing overhead): charged to the
  /// gateway key's budgets with `usage`, never counted as the answer's.
  std::optional<TokenUsage> racing_overhead;
  /// A media request's usage in its modality's unit; nullopt for other routes and failed ones.
  std::optional<MediaUsage> media;
  /// What the request cost at the `prices:` of its model (tokens and media units, losers of a
  /// race included); nullopt when no price applies.
  std::optional<double> cost_usd;
  /// The request log's handle of this request while it runs (RequestLogSink::opened), naming
  /// its running row; 0 when none was opened. Not a column.
  std::uint64_t log_handle = 0;
};

}  // namespace llmux
