#pragma once

#include <string>
#include <string_view>

namespace llmux {

/// How one upstream attempt ended, typed. The request log, the access log and the metrics name it
/// with `text()`: "in_progress" (a running attempt's row), "ok", "client_error", "cancelled",
/// "failover:<reason>" (another candidate was tried after it), "failed:<reason>" (it was the last one), "racing_won", "racing_lost". Reasons are the failure policy's
/// ("rate_limited", "timeout_first_token", "mid_stream", ...).
class AttemptOutcome {
 public:
  enum class Kind : unsigned char {
    Pending,      ///< not ended yet (its request log row says "in_progress")
    Ok,           ///< the answer was relayed (or a success reported)
    ClientError,  ///< the client's own error (a bad request, a context overflow): no retry
    Cancelled,    ///< the client left or the gateway shut down
    Failover,     ///< failed, and another candidate followed
    Failed,       ///< failed, and no candidate followed
    RacingWon,    ///< a raced branch that answered the client (docs/racing.md)
    RacingLost,   ///< a raced branch cancelled because another answered first
  };

  AttemptOutcome() = default;
  static AttemptOutcome ok() { return AttemptOutcome(Kind::Ok); }
  static AttemptOutcome clientError() { return AttemptOutcome(Kind::ClientError); }
  static AttemptOutcome cancelled() { return AttemptOutcome(Kind::Cancelled); }
  static AttemptOutcome racingWon() { return AttemptOutcome(Kind::RacingWon); }
  static AttemptOutcome racingLost() { return AttemptOutcome(Kind::RacingLost); }
  static AttemptOutcome failover(std::string_view reason) { return {Kind::Failover, reason}; }
  static AttemptOutcome failed(std::string_view reason) { return {Kind::Failed, reason}; }
  /// A failure: `failover:` when another candidate follows, `failed:` for the last one.
  static AttemptOutcome failure(bool last, std::string_view reason) {
    return last ? failed(reason) : failover(reason);
  }
  /// The outcome `text()` names; an unknown text is a `failed` one with that text as its reason
  /// (rows written by another version stay readable).
  static AttemptOutcome parse(std::string_view text);

  Kind kind() const { return kind_; }
  std::string const& reason() const { return reason_; }
  bool pending() const { return kind_ == Kind::Pending; }
  bool is(Kind kind) const { return kind_ == kind; }
  /// Failover or Failed.
  bool failedAttempt() const { return kind_ == Kind::Failover || kind_ == Kind::Failed; }
  std::string text() const;

  bool operator==(AttemptOutcome const&) const = default;

 private:
  explicit AttemptOutcome(Kind kind) : kind_(kind) {}
  AttemptOutcome(Kind kind, std::string_view reason) : kind_(kind), reason_(reason) {}

  Kind kind_ = Kind::Pending;
  std::string reason_;
};

}  // namespace llmux
