#pragma once

// Rows as ClickHouse's JSONEachRow input: one JSON object per line.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "payloads/payload_row.h"

namespace llmux::payloads {

/// Whether `bytes` are well-formed UTF-8 (no overlongs, no surrogates, nothing past U+10FFFF).
bool isValidUtf8(std::string_view bytes);

/// Appends `row` as one line. A text body is a JSON string (`encoding` ""); a body that is not
/// UTF-8 (an image, audio, a gzip) is stored as base64 (`encoding` "base64"), since a JSON string
/// cannot carry arbitrary bytes.
void appendJsonEachRow(std::string& out, PayloadRow const& row);

/// The columns of the table, in the order of `CREATE TABLE` (docs/operations.md).
std::string createTableStatement(std::string_view database, std::string_view table);
std::string insertStatement(std::string_view database, std::string_view table);
/// Deletes the rows older than `before` (unix seconds): a mutation, which ClickHouse (18.16
/// included) accepts at once and applies in the background.
std::string deleteOlderStatement(std::string_view database, std::string_view table,
                                 std::int64_t before);
/// One request's bodies, in ClickHouse's JSON format (`data`: one object per row).
std::string selectRequestStatement(std::string_view database, std::string_view table,
                                   std::string_view request_id);

}  // namespace llmux::payloads
