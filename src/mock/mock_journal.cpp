#include "mock/mock_journal.h"

#include <fmt/format.h>

#include "core/json_text.h"

namespace llmux::mock {

void MockJournal::add(Entry entry) {
  std::lock_guard lock(mutex_);
  entry.seq = next_seq_++;
  entries_.push_back(std::move(entry));
  while (entries_.size() > capacity_) entries_.pop_front();
}

void MockJournal::clear() {
  std::lock_guard lock(mutex_);
  entries_.clear();
}

std::string MockJournal::toJson() const {
  std::lock_guard lock(mutex_);
  std::string out = "{\"entries\":[";
  bool first = true;
  for (auto const& e : entries_) {
    if (!first) out += ',';
    first = false;
    out += fmt::format("{{\"seq\":{},\"method\":", e.seq);
    appendJsonString(out, e.method);
    out += ",\"path\":";
    appendJsonString(out, e.path);
    out += ",\"query\":";
    appendJsonString(out, e.query);
    out += ",\"headers\":[";
    bool first_header = true;
    for (auto const& h : e.headers) {
      if (!first_header) out += ',';
      first_header = false;
      out += '[';
      appendJsonString(out, h.name);
      out += ',';
      appendJsonString(out, h.value);
      out += ']';
    }
    out += "],\"body\":";
    appendJsonString(out, e.body);
    out += fmt::format(",\"status\":{},\"response_body\":", e.status);
    appendJsonString(out, e.response_body);
    out += ",\"outcome\":";
    appendJsonString(out, e.outcome);
    out += fmt::format(",\"started_at_ms\":{:.3f},\"finished_at_ms\":{:.3f},\"client_gone_at_ms\":",
                       e.started_at_ms, e.finished_at_ms);
    out += e.client_gone_at_ms ? fmt::format("{:.3f}", *e.client_gone_at_ms) : "null";
    out += '}';
  }
  out += "]}";
  return out;
}

}  // namespace llmux::mock
