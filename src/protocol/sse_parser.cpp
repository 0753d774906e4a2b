#include "protocol/sse_parser.h"

#include <algorithm>
#include <cstring>

namespace llmux::protocol {
namespace {

/// Position of `c` in `bytes` at or after `from`, or npos.
std::size_t findByte(std::string_view bytes, std::size_t from, char c) {
  if (from >= bytes.size()) return std::string_view::npos;
  void const* hit = std::memchr(bytes.data() + from, c, bytes.size() - from);
  return hit ? static_cast<std::size_t>(static_cast<char const*>(hit) - bytes.data())
             : std::string_view::npos;
}

}  // namespace

void SseParser::feed(std::string_view bytes, std::vector<SseEvent>& out) {
  if (overflowed_) return;
  std::size_t i = 0;
  if (after_cr_ && !bytes.empty()) {
    after_cr_ = false;
    if (bytes.front() == '\n') i = 1;  // the "\r\n" pair ends one line, not two
  }
  // Line ends are found with memchr, each kind's next position kept until passed, so a piece is
  // scanned once whatever mix of endings it has (this parser reads every streamed byte).
  std::size_t next_lf = findByte(bytes, i, '\n');
  std::size_t next_cr = findByte(bytes, i, '\r');
  while (i < bytes.size()) {
    if (next_lf != std::string_view::npos && next_lf < i) next_lf = findByte(bytes, i, '\n');
    if (next_cr != std::string_view::npos && next_cr < i) next_cr = findByte(bytes, i, '\r');
    std::size_t end = std::min(next_lf, next_cr);
    if (end == std::string_view::npos) {
      line_.append(bytes.substr(i));
      if (line_.size() + pending_.data.size() > kMaxEventBytes) overflowed_ = true;
      return;
    }
    std::string_view piece = bytes.substr(i, end - i);
    if (line_.empty()) {
      processLine(piece, out);
    } else {
      line_.append(piece);
      processLine(line_, out);
      line_.clear();
    }
    if (pending_.data.size() > kMaxEventBytes) {
      overflowed_ = true;
      return;
    }
    i = end + 1;
    if (bytes[end] == '\r') {
      if (i == bytes.size()) {
        after_cr_ = true;  // its '\n' may start the next piece
      } else if (bytes[i] == '\n') {
        ++i;
      }
    }
  }
}

void SseParser::finish(std::vector<SseEvent>& out) {
  if (overflowed_) return;
  if (!line_.empty()) {
    processLine(line_, out);
    line_.clear();
  }
  dispatch(out);
}

void SseParser::processLine(std::string_view line, std::vector<SseEvent>& out) {
  if (line.empty()) {
    dispatch(out);
    return;
  }
  if (line.front() == ':') return;  // comment / keep-alive
  std::string_view field = line;
  std::string_view value;
  if (auto colon = line.find(':'); colon != std::string_view::npos) {
    field = line.substr(0, colon);
    value = line.substr(colon + 1);
    if (!value.empty() && value.front() == ' ') value.remove_prefix(1);
  }
  if (field == "data") {
    if (has_data_) pending_.data.push_back('\n');
    pending_.data.append(value);
    has_data_ = true;
  } else if (field == "event") {
    pending_.event.assign(value);
  }
  // "id", "retry" and unknown fields are not needed by the gateway.
}

void SseParser::dispatch(std::vector<SseEvent>& out) {
  if (has_data_) out.push_back(std::move(pending_));
  pending_ = SseEvent{};
  has_data_ = false;
}

}  // namespace llmux::protocol
