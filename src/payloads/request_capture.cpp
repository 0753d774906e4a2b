#include "payloads/request_capture.h"

#include "payloads/redaction.h"

namespace llmux::payloads {

std::string_view withoutCutSequence(std::string_view cut) {
  // Find the lead byte of the last sequence (at most 3 continuation bytes back) and drop the
  // sequence when it needs more bytes than are left.
  std::size_t lead = cut.size();
  for (int back = 0; back < 4 && lead > 0; ++back) {
    unsigned char const byte = static_cast<unsigned char>(cut[lead - 1]);
    --lead;
    if ((byte & 0xC0) != 0x80) {
      std::size_t const needs = byte >= 0xF0 ? 4 : byte >= 0xE0 ? 3 : byte >= 0xC0 ? 2 : 1;
      return cut.size() - lead < needs ? cut.substr(0, lead) : cut;
    }
  }
  return cut;  // no lead byte where one should be: not UTF-8, kept as it is (stored as base64)
}

std::string_view truncatedBody(std::string_view body, std::size_t limit) {
  if (body.size() <= limit) return body;
  return withoutCutSequence(body.substr(0, limit));
}

void RequestCapture::addBody(std::uint32_t attempt, BodyKind kind, std::string_view body,
                             std::string headers) {
  PayloadRow row;
  row.ts = ts_;
  row.request_id = request_id_;
  row.attempt = attempt;
  row.kind = kind;
  row.headers = std::move(headers);
  row.body = std::string(truncatedBody(body, options_->max_bytes));
  row.body_bytes = body.size();
  row.truncated = row.body.size() < body.size();
  redactJsonFields(row.body, options_->redact);
  rows_.push_back(std::move(row));
}

void RequestCapture::addCopy(std::uint32_t attempt, BodyKind kind, CappedCopy copy) {
  PayloadRow row;
  row.ts = ts_;
  row.request_id = request_id_;
  row.attempt = attempt;
  row.kind = kind;
  row.body_bytes = copy.total;
  row.truncated = copy.truncated();
  // The copy stopped at max_bytes wherever that fell: a cut sequence is dropped.
  if (row.truncated) copy.bytes.resize(withoutCutSequence(copy.bytes).size());
  row.body = std::move(copy.bytes);
  redactJsonFields(row.body, options_->redact);
  rows_.push_back(std::move(row));
}

}  // namespace llmux::payloads
