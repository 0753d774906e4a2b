#pragma once

// multipart/form-data (RFC 7578 on RFC 2046's framing) without I/O: the upload format of OpenAI's
// image edits, transcriptions and video jobs. The mock provider reads it; the gateway can route
// and rewrite such bodies with the same code. Every input is hostile: the parser is linear in the
// body, bounded in what it keeps, and refuses instead of guessing.

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"

namespace llmux::protocol {

/// Bounds on a multipart body; past any of them the body is refused.
struct MultipartLimits {
  std::size_t max_parts = 1000;
  std::size_t max_part_head_bytes = 16u << 10;  ///< one part's header block, blank line included
  std::size_t max_part_headers = 32;            ///< header lines in one part
};

/// One part of a form. `content_type` and `body` view the parsed body (valid while it lives).
struct MultipartPart {
  std::string name;      ///< the field name (Content-Disposition `name`, quoting removed)
  std::string filename;  ///< `filename` (else the raw `filename*`); "" when none
  bool is_file = false;  ///< Content-Disposition named a file (even an empty name): an upload
  std::string_view content_type;  ///< the part's Content-Type, "" when absent
  std::string_view body;          ///< the part's bytes exactly as sent
};

/// The boundary of a `multipart/form-data; boundary=...` Content-Type value (quoted or not,
/// quotes removed). Refused: another media type, no boundary, or one that is not 1 to 70 of
/// RFC 2046's boundary characters.
Result<std::string> multipartBoundary(std::string_view content_type);

/// Every part of `body`, in order. The framing is RFC 2046's with CRLF line ends (a bare LF
/// does not end a line): an optional preamble, `--boundary` lines (transport padding allowed),
/// each part's headers and a blank line, its bytes up to the CRLF before the next boundary line,
/// and `--boundary--` (whatever follows is ignored). Each part needs `Content-Disposition:
/// form-data; name=...`. Errors (InvalidRequest) say what is wrong without quoting the body.
Result<std::vector<MultipartPart>> parseMultipart(std::string_view body, std::string_view boundary,
                                                  MultipartLimits const& limits = {});

/// Appends one part to a body being written (the name and file name quoted and escaped);
/// `filename` empty and `is_file` false writes a plain field. Finish with closeMultipart().
void appendMultipartPart(std::string& out, std::string_view boundary, std::string_view name,
                         std::string_view body, bool is_file = false,
                         std::string_view filename = {}, std::string_view content_type = {});

/// Appends the closing boundary line.
void closeMultipart(std::string& out, std::string_view boundary);

}  // namespace llmux::protocol
