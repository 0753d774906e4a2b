#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace llmux::protocol {

/// One Server-Sent Event: its `event:` name ("" when absent) and its data (several `data:` lines
/// joined with '\n'). Comment-only blocks (keep-alives) produce no event.
struct SseEvent {
  std::string event;
  std::string data;
};

/// Incremental SSE parser (WHATWG rules): events are split on a blank line, whatever the line
/// endings (`\n`, `\r\n` or `\r`); an event may arrive split across any number of `feed` calls and
/// one call may carry many events. The one optional space after a field's colon is dropped.
/// An event (or line) that grows past kMaxEventBytes stops the parser: `overflowed()`.
class SseParser {
 public:
  /// Larger events than any provider sends (a whole answer fits many times over); past it the
  /// stream is broken or hostile, and memory must stay bounded.
  static constexpr std::size_t kMaxEventBytes = 16u << 20;

  /// Consumes `bytes`, appending every event completed by them to `out`.
  void feed(std::string_view bytes, std::vector<SseEvent>& out);
  /// End of stream: an event still open (no blank line after it) is dispatched if it has data.
  void finish(std::vector<SseEvent>& out);
  /// An event outgrew kMaxEventBytes: nothing more is parsed.
  bool overflowed() const { return overflowed_; }

 private:
  void processLine(std::string_view line, std::vector<SseEvent>& out);
  void dispatch(std::vector<SseEvent>& out);

  std::string line_;         ///< the current, incomplete line
  bool after_cr_ = false;    ///< the last byte seen was '\r' (a following '\n' belongs to it)
  SseEvent pending_;
  bool has_data_ = false;
  bool overflowed_ = false;
};

}  // namespace llmux::protocol
