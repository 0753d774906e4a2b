#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>

#include "translate/neutral.h"

namespace llmux::translate {

/// Follows the neutral events of one stream and keeps what accounting needs: the last usage
/// snapshot (snapshots are cumulative, the last one wins), how many content bytes were produced
/// (text, reasoning, tool-call arguments) for the zero-completion fallback, and whether content
/// has started (the commit point: before it, an attempt can still be failed over).
class UsageTally {
 public:
  void observe(Event const& event);

  /// Applies the zero-completion fallback (usage.h) to a UsageUpdate event about to be sent to a
  /// client: an output of 0 after content was produced is replaced by the estimate.
  void fixUp(Event& event) const;

  /// The usage of the stream so far, the fallback applied; nullopt when none was reported.
  std::optional<Usage> usage() const;
  /// The same, or when none was reported the estimate from the content produced so far
  /// (usage.h: estimatedUsage; nullopt when there was none).
  std::optional<Usage> usageOrEstimate(std::int64_t prompt_tokens) const;

  bool contentStarted() const { return content_started_; }
  std::size_t contentBytes() const { return content_bytes_; }

 private:
  Usage withFallback(Usage usage) const;

  std::optional<Usage> usage_;
  std::size_t content_bytes_ = 0;
  bool content_started_ = false;
};

/// Whether an event is content: up to the first one, a stream can still be failed over.
bool isContentEvent(Event const& event);

}  // namespace llmux::translate
