#include "mock/mock_journal.h"

#include <fmt/format.h>

#include "core/digest.h"
#include "core/json_text.h"

namespace llmux::mock {
namespace {

/// Whether `bytes` is well-formed UTF-8 (RFC 3629: no overlong forms, no surrogates, at most
/// U+10FFFF), which a JSON string must be.
bool isUtf8(std::string_view bytes) {
  constexpr std::uint32_t kSmallest[] = {0, 0x80, 0x800, 0x10000};  // by continuation bytes
  for (std::size_t i = 0; i < bytes.size();) {
    auto lead = static_cast<unsigned char>(bytes[i]);
    std::size_t more = lead < 0x80             ? 0
                       : (lead & 0xE0) == 0xC0 ? 1
                       : (lead & 0xF0) == 0xE0 ? 2
                       : (lead & 0xF8) == 0xF0 ? 3
                                               : 4;
    if (more == 4 || bytes.size() - i <= more) return false;
    std::uint32_t point = lead & (0x7Fu >> more);
    for (std::size_t k = 1; k <= more; ++k) {
      auto next = static_cast<unsigned char>(bytes[i + k]);
      if ((next & 0xC0) != 0x80) return false;
      point = (point << 6) | (next & 0x3Fu);
    }
    if (point < kSmallest[more] || point > 0x10FFFF || (point >= 0xD800 && point <= 0xDFFF)) {
      return false;
    }
    i += more + 1;
  }
  return true;
}

/// `"key":"<bytes>"`, or for bytes that are not UTF-8 (images, audio, video, uploads)
/// `"key":null,"key_base64":"<base64>"`: the journal stays valid JSON.
void appendBytes(std::string& out, std::string_view key, std::string_view bytes) {
  out += '"';
  out.append(key);
  if (isUtf8(bytes)) {
    out += "\":";
    appendJsonString(out, bytes);
    return;
  }
  out += "\":null,\"";
  out.append(key);
  out += "_base64\":";
  appendJsonString(out, base64(bytes));
}

}  // namespace

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
    out += "],";
    appendBytes(out, "body", e.body);
    out += fmt::format(",\"status\":{},", e.status);
    appendBytes(out, "response_body", e.response_body);
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
