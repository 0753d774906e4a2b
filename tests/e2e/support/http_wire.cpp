#include "e2e/support/http_wire.h"

#include <charconv>

#include "core/strings.h"

namespace llmux::e2e {
namespace {

constexpr std::size_t kMaxChunkLine = 4096;
constexpr std::size_t kMaxChunkSize = std::size_t{1} << 40;

Error protocolError(std::string message) {
  return makeError(ErrorKind::UpstreamProtocol, std::move(message));
}

/// Parses "name: value" lines (CRLF separated, no final empty line) into `out`.
Result<void> parseFields(std::string_view lines, HeaderList& out) {
  while (!lines.empty()) {
    auto end = lines.find("\r\n");
    std::string_view line = lines.substr(0, end);
    lines = end == std::string_view::npos ? std::string_view() : lines.substr(end + 2);
    auto colon = line.find(':');
    if (colon == std::string_view::npos || colon == 0) {
      return protocolError("malformed header line: " + std::string(line));
    }
    std::string_view name = line.substr(0, colon);
    if (name.find_first_of(" \t") != std::string_view::npos) {
      return protocolError("whitespace in header name: " + std::string(line));
    }
    out.add(name, trimSpaces(line.substr(colon + 1)));
  }
  return {};
}

bool hasChunkedLast(std::string_view transfer_encoding) {
  auto last = transfer_encoding.rfind(',');
  auto coding = trimSpaces(last == std::string_view::npos ? transfer_encoding
                                                          : transfer_encoding.substr(last + 1));
  return equalsIgnoreCase(coding, "chunked");
}

}  // namespace

Result<ResponseHead> parseResponseHead(std::string_view raw) {
  if (raw.size() < 4 || raw.substr(raw.size() - 4) != "\r\n\r\n") {
    return protocolError("response head does not end with an empty CRLF line");
  }
  if (raw.find('\n') != raw.find("\r\n") + 1) return protocolError("bare LF in status line");
  ResponseHead head;
  head.raw.assign(raw);
  std::string_view rest = raw.substr(0, raw.size() - 2);  // keep the last field's CRLF
  auto eol = rest.find("\r\n");
  std::string_view status_line = rest.substr(0, eol);
  rest = rest.substr(eol + 2);

  // "HTTP/1.1 200 OK": version, three digits, a space, then a reason that may be empty.
  if (status_line.size() < 12 || status_line.substr(0, 5) != "HTTP/" || status_line[8] != ' ' ||
      (status_line.size() > 12 && status_line[12] != ' ')) {
    return protocolError("malformed status line: " + std::string(status_line));
  }
  head.version.assign(status_line.substr(0, 8));
  auto digits = status_line.substr(9, 3);
  auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + 3, head.status);
  if (ec != std::errc() || ptr != digits.data() + 3 || head.status < 100) {
    return protocolError("malformed status code: " + std::string(status_line));
  }
  if (status_line.size() > 13) head.reason.assign(status_line.substr(13));

  if (!rest.empty()) {
    // Every field line ends with CRLF; drop the last one so splitting sees no empty tail.
    auto fields = parseFields(rest.substr(0, rest.size() - 2), head.headers);
    if (!fields) return fields.error();
  }
  for (auto const& f : head.headers) {
    if (f.value.find_first_of("\r\n") != std::string::npos) {
      return protocolError("bare CR or LF inside header " + std::string(f.name));
    }
  }
  return head;
}

Result<Framing> framingOf(ResponseHead const& head, bool answers_head_request) {
  if (answers_head_request || head.isInterim() || head.status == 204 || head.status == 304) {
    return Framing{BodyFraming::None, 0};
  }
  if (auto te = head.headers.find("transfer-encoding")) {
    if (hasChunkedLast(*te)) return Framing{BodyFraming::Chunked, 0};
    return Framing{BodyFraming::UntilClose, 0};
  }
  if (auto cl = head.headers.find("content-length")) {
    auto n = parseNonNegative(*cl);
    if (!n) return protocolError("invalid Content-Length: " + std::string(*cl));
    for (auto const& f : head.headers) {
      if (equalsIgnoreCase(f.name, "content-length") && f.value != *cl) {
        return protocolError("conflicting Content-Length headers");
      }
    }
    return Framing{BodyFraming::ContentLength, static_cast<std::size_t>(*n)};
  }
  return Framing{BodyFraming::UntilClose, 0};
}

Result<ChunkStep> ChunkedDecoder::next(std::string_view buffer) {
  if (done_) return ChunkStep{ChunkStep::Kind::End, {}, 0};
  auto eol = buffer.find("\r\n");
  if (eol == std::string::npos) {
    if (buffer.size() > kMaxChunkLine) return protocolError("chunk size line too long");
    return ChunkStep{};
  }
  std::string_view line = buffer.substr(0, eol);
  std::string_view size_text = line.substr(0, line.find(';'));  // chunk extensions are ignored
  size_text = trimSpaces(size_text);
  std::size_t size = 0;
  auto [ptr, ec] = std::from_chars(size_text.data(), size_text.data() + size_text.size(), size, 16);
  if (size_text.empty() || ec != std::errc() || ptr != size_text.data() + size_text.size()) {
    return protocolError("malformed chunk size line: " + std::string(line));
  }
  if (size > kMaxChunkSize) return protocolError("chunk size too large: " + std::string(line));
  std::size_t data_start = eol + 2;

  if (size == 0) {
    // Last chunk: trailer fields, then an empty line.
    auto end = buffer.find("\r\n\r\n", eol);
    std::size_t consumed;
    std::string_view trailer_lines;
    if (buffer.compare(data_start, 2, "\r\n") == 0) {
      consumed = data_start + 2;
    } else if (end != std::string::npos) {
      trailer_lines = buffer.substr(data_start, end + 2 - data_start);
      consumed = end + 4;
    } else {
      return ChunkStep{};
    }
    if (!trailer_lines.empty()) {
      auto fields = parseFields(trailer_lines.substr(0, trailer_lines.size() - 2), trailers_);
      if (!fields) return fields.error();
    }
    done_ = true;
    return ChunkStep{ChunkStep::Kind::End, {}, consumed};
  }

  if (buffer.size() < data_start + size + 2) return ChunkStep{};
  if (buffer.compare(data_start + size, 2, "\r\n") != 0) {
    return protocolError("chunk data not followed by CRLF (size " + std::to_string(size) + ")");
  }
  return ChunkStep{ChunkStep::Kind::Chunk, std::string(buffer.substr(data_start, size)),
                   data_start + size + 2};
}

}  // namespace llmux::e2e
