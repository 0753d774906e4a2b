#include "protocol/sse_parser.h"

namespace llmux::protocol {

void SseParser::feed(std::string_view bytes, std::vector<SseEvent>& out) {
  for (char c : bytes) {
    if (after_cr_) {
      after_cr_ = false;
      if (c == '\n') continue;  // the "\r\n" pair ends one line, not two
    }
    if (c == '\r' || c == '\n') {
      after_cr_ = (c == '\r');
      processLine(line_, out);
      line_.clear();
    } else {
      line_.push_back(c);
    }
  }
}

void SseParser::finish(std::vector<SseEvent>& out) {
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
