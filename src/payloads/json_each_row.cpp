#include "payloads/json_each_row.h"

#include "core/digest.h"
#include "core/json_text.h"

namespace llmux::payloads {

bool isValidUtf8(std::string_view bytes) {
  std::size_t i = 0;
  while (i < bytes.size()) {
    unsigned char const c = static_cast<unsigned char>(bytes[i]);
    if (c < 0x80) {
      ++i;
      continue;
    }
    std::size_t length = 0;
    std::uint32_t code = 0;
    if ((c & 0xE0) == 0xC0) {
      length = 2;
      code = c & 0x1F;
    } else if ((c & 0xF0) == 0xE0) {
      length = 3;
      code = c & 0x0F;
    } else if ((c & 0xF8) == 0xF0) {
      length = 4;
      code = c & 0x07;
    } else {
      return false;
    }
    if (i + length > bytes.size()) return false;
    for (std::size_t k = 1; k < length; ++k) {
      unsigned char const next = static_cast<unsigned char>(bytes[i + k]);
      if ((next & 0xC0) != 0x80) return false;
      code = (code << 6) | (next & 0x3F);
    }
    static constexpr std::uint32_t kMinimum[] = {0, 0, 0x80, 0x800, 0x10000};
    if (code < kMinimum[length] || code > 0x10FFFF || (code >= 0xD800 && code <= 0xDFFF)) return false;
    i += length;
  }
  return true;
}

void appendJsonEachRow(std::string& out, PayloadRow const& row) {
  bool const text = isValidUtf8(row.body);
  out += "{\"ts\":";
  out += std::to_string(row.ts);
  out += ",\"request_id\":";
  appendJsonString(out, row.request_id);
  out += ",\"attempt\":";
  out += std::to_string(row.attempt);
  out += ",\"kind\":";
  out += row.kind == BodyKind::Request ? "\"request\"" : "\"response\"";
  out += ",\"headers\":";
  appendJsonString(out, row.headers);
  out += ",\"body\":";
  appendJsonString(out, text ? row.body : base64(row.body));
  out += ",\"body_bytes\":";
  out += std::to_string(row.body_bytes);
  out += ",\"truncated\":";
  out += row.truncated ? '1' : '0';
  out += ",\"encoding\":";
  out += text ? "\"\"" : "\"base64\"";
  out += "}\n";
}

std::string createTableStatement(std::string_view database, std::string_view table) {
  // Plain types and the MergeTree syntax ClickHouse has accepted since 2017 (18.16 included):
  // DateTime64 and codecs would need newer servers.
  return "CREATE TABLE IF NOT EXISTS " + std::string(database) + "." + std::string(table) +
         " (ts DateTime, request_id String, attempt UInt32, kind String, headers String, "
         "body String, body_bytes UInt64, truncated UInt8, encoding String) "
         "ENGINE = MergeTree ORDER BY (ts, request_id)";
}

std::string insertStatement(std::string_view database, std::string_view table) {
  return "INSERT INTO " + std::string(database) + "." + std::string(table) + " FORMAT JSONEachRow";
}

std::string deleteOlderStatement(std::string_view database, std::string_view table,
                                 std::int64_t before) {
  return "ALTER TABLE " + std::string(database) + "." + std::string(table) +
         " DELETE WHERE ts < toDateTime(" + std::to_string(before) + ")";
}

std::string selectRequestStatement(std::string_view database, std::string_view table,
                                   std::string_view request_id) {
  std::string literal = "'";
  for (char c : request_id) {
    if (c == '\\' || c == '\'') literal += '\\';
    literal += c;
  }
  literal += "'";
  return "SELECT attempt, kind, headers, body, body_bytes, truncated, encoding FROM " +
         std::string(database) + "." + std::string(table) + " WHERE request_id = " + literal +
         " ORDER BY attempt, kind FORMAT JSON";
}

}  // namespace llmux::payloads
