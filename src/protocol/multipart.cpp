#include "protocol/multipart.h"

#include <cstring>
#include <optional>

#include "core/http_syntax.h"
#include "core/strings.h"

namespace llmux::protocol {
namespace {

constexpr std::size_t kMaxBoundary = 70;  // RFC 2046 section 5.1.1
constexpr std::string_view kCrlf = "\r\n";

Error refuse(std::string message) {
  return makeError(ErrorKind::InvalidRequest, "multipart body: " + std::move(message));
}

bool isTokenChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
         (c != '\0' && std::strchr("!#$%&'*+-.^_`|~", c) != nullptr);
}

/// RFC 2046's bchars: what a boundary may hold (a space, but not at the end).
bool isBoundaryChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
         (c != '\0' && std::strchr("'()+_,-./:=? ", c) != nullptr);
}

std::string_view skipSpaces(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  return s;
}

/// One `name=value` parameter of a header value. The value views the header unless it was a
/// quoted-string that needed unescaping.
struct Param {
  std::string_view name;
  std::string value;
};

/// A quoted-string's content. Only `\"` and `\\` are escapes: browsers write file names without
/// escaping (a Windows name keeps its backslashes) and percent-encode quotes instead.
std::optional<std::string> readQuoted(std::string_view& rest) {
  std::string value;
  for (std::size_t i = 1; i < rest.size(); ++i) {
    char c = rest[i];
    if (c == '"') {
      rest.remove_prefix(i + 1);
      return value;
    }
    if (c == '\\' && i + 1 < rest.size() && (rest[i + 1] == '"' || rest[i + 1] == '\\'))
      c = rest[++i];
    value.push_back(c);
  }
  return std::nullopt;  // no closing quote
}

/// The `; name=value` parameters that follow a header's main value (RFC 9110 section 5.6.6); a
/// value is a quoted-string or runs to the next `;` or space. nullopt on bad syntax.
std::optional<std::vector<Param>> readParams(std::string_view rest) {
  std::vector<Param> params;
  while (true) {
    rest = skipSpaces(rest);
    if (rest.empty()) return params;
    if (rest.front() != ';') return std::nullopt;
    rest = skipSpaces(rest.substr(1));
    if (rest.empty()) return params;  // a trailing ';' is harmless
    std::size_t n = 0;
    while (n < rest.size() && isTokenChar(rest[n])) ++n;
    if (n == 0) return std::nullopt;
    Param param{rest.substr(0, n), {}};
    rest = skipSpaces(rest.substr(n));
    if (rest.empty() || rest.front() != '=') return std::nullopt;
    rest = skipSpaces(rest.substr(1));
    if (!rest.empty() && rest.front() == '"') {
      auto quoted = readQuoted(rest);
      if (!quoted) return std::nullopt;
      param.value = std::move(*quoted);
    } else {
      std::size_t m = 0;
      while (m < rest.size() && rest[m] != ';' && rest[m] != ' ' && rest[m] != '\t') ++m;
      if (m == 0) return std::nullopt;
      param.value = std::string(rest.substr(0, m));
      rest.remove_prefix(m);
    }
    params.push_back(std::move(param));
  }
}

Param const* findParam(std::vector<Param> const& params, std::string_view name) {
  for (auto const& param : params) {
    if (equalsIgnoreCase(param.name, name)) return &param;
  }
  return nullptr;
}

/// Splits a header value into its main value (before the first `;`) and the parameter text.
std::pair<std::string_view, std::string_view> splitMainValue(std::string_view value) {
  std::size_t semicolon = value.find(';');
  if (semicolon == std::string_view::npos) return {trimSpaces(value), {}};
  return {trimSpaces(value.substr(0, semicolon)), value.substr(semicolon)};
}

/// Reads a part's header block (CRLF-separated lines, without the blank line) into `part`.
Result<void> readPartHeaders(std::string_view block, MultipartLimits const& limits,
                             MultipartPart& part) {
  bool has_disposition = false;
  std::size_t count = 0;
  while (!block.empty()) {
    std::size_t end = block.find(kCrlf);
    std::string_view line = block.substr(0, end);
    block = end == std::string_view::npos ? std::string_view() : block.substr(end + 2);
    if (++count > limits.max_part_headers) return refuse("too many header lines in a part");
    if (line.empty() || line.front() == ' ' || line.front() == '\t') {
      return refuse("folded header line in a part");
    }
    auto colon = splitOnce(line, ':');
    if (!colon || !isHeaderName(colon->first)) return refuse("malformed header line in a part");
    std::string_view value = trimSpaces(colon->second);
    if (!isSafeHeaderValue(value)) return refuse("control character in a part header");
    if (equalsIgnoreCase(colon->first, "content-disposition")) {
      if (has_disposition) return refuse("a part with two Content-Disposition headers");
      has_disposition = true;
      auto [type, rest] = splitMainValue(value);
      auto params = readParams(rest);
      if (!equalsIgnoreCase(type, "form-data") || !params) {
        return refuse("a part's Content-Disposition is not form-data with parameters");
      }
      Param const* name = findParam(*params, "name");
      if (name == nullptr) return refuse("a part's Content-Disposition has no name");
      part.name = name->value;
      Param const* filename = findParam(*params, "filename");
      if (filename == nullptr) filename = findParam(*params, "filename*");
      part.is_file = filename != nullptr;
      if (filename != nullptr) part.filename = filename->value;
    } else if (equalsIgnoreCase(colon->first, "content-type") && part.content_type.empty()) {
      part.content_type = value;
    }
  }
  if (!has_disposition) return refuse("a part without Content-Disposition");
  return {};
}

}  // namespace

Result<std::string> multipartBoundary(std::string_view content_type) {
  auto [type, rest] = splitMainValue(content_type);
  if (!equalsIgnoreCase(type, "multipart/form-data")) {
    return makeError(ErrorKind::InvalidRequest, "the Content-Type is not multipart/form-data");
  }
  auto params = readParams(rest);
  if (!params) return makeError(ErrorKind::InvalidRequest, "malformed Content-Type parameters");
  Param const* boundary = findParam(*params, "boundary");
  if (boundary == nullptr) {
    return makeError(ErrorKind::InvalidRequest, "the multipart Content-Type has no boundary");
  }
  std::string_view value = boundary->value;
  bool valid = !value.empty() && value.size() <= kMaxBoundary && value.back() != ' ';
  for (char c : value) valid = valid && isBoundaryChar(c);
  if (!valid) return makeError(ErrorKind::InvalidRequest, "invalid multipart boundary");
  return std::string(value);
}

Result<std::vector<MultipartPart>> parseMultipart(std::string_view body, std::string_view boundary,
                                                  MultipartLimits const& limits) {
  if (boundary.empty()) return refuse("empty boundary");
  std::string delimiter = "\r\n--";  // what ends a part: CRLF, then the boundary line
  delimiter.append(boundary);
  std::string_view dash_boundary = std::string_view(delimiter).substr(2);

  // The first boundary line opens the body or follows the preamble's last CRLF.
  std::size_t pos = 0;
  if (!body.starts_with(dash_boundary)) {
    pos = body.find(delimiter);
    if (pos == std::string_view::npos) return refuse("no boundary line");
    pos += 2;
  }
  std::vector<MultipartPart> parts;
  while (true) {
    std::size_t after = pos + dash_boundary.size();
    if (body.substr(after, 2) == "--") return parts;  // the close delimiter
    while (after < body.size() && (body[after] == ' ' || body[after] == '\t')) ++after;
    if (body.substr(after, 2) != kCrlf) {
      return refuse(after >= body.size() ? "the body ends without a closing boundary"
                                         : "malformed boundary line");
    }
    if (parts.size() == limits.max_parts) return refuse("too many parts");
    std::size_t head = after + 2;
    // The header block ends with a blank line; look for it within the bound only.
    std::string_view window = body.substr(head, limits.max_part_head_bytes);
    std::size_t blank = window.starts_with(kCrlf) ? 0 : window.find("\r\n\r\n");
    if (blank == std::string_view::npos) {
      return refuse(window.size() == limits.max_part_head_bytes ? "a part's headers are too large"
                                                                : "a part's headers never end");
    }
    MultipartPart part;
    auto headers = readPartHeaders(window.substr(0, blank), limits, part);
    if (!headers) return headers.error();
    std::size_t content = head + blank + (blank == 0 ? 2 : 4);
    std::size_t end = body.find(delimiter, content);
    if (end == std::string_view::npos) return refuse("a part is not closed by a boundary line");
    part.body = body.substr(content, end - content);
    parts.push_back(std::move(part));
    pos = end + 2;
  }
}

void appendMultipartPart(std::string& out, std::string_view boundary, std::string_view name,
                         std::string_view body, bool is_file, std::string_view filename,
                         std::string_view content_type) {
  auto quoted = [&out](std::string_view text) {
    out.push_back('"');
    for (char c : text) {
      if (c == '"' || c == '\\') out.push_back('\\');
      out.push_back(c);
    }
    out.push_back('"');
  };
  out += "--";
  out.append(boundary);
  out += "\r\nContent-Disposition: form-data; name=";
  quoted(name);
  if (is_file || !filename.empty()) {
    out += "; filename=";
    quoted(filename);
  }
  if (!content_type.empty()) {
    out += "\r\nContent-Type: ";
    out.append(content_type);
  }
  out += "\r\n\r\n";
  out.append(body);
  out += kCrlf;
}

void closeMultipart(std::string& out, std::string_view boundary) {
  out += "--";
  out.append(boundary);
  out += "--\r\n";
}

}  // namespace llmux::protocol
