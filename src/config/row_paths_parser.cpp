#include "config/row_paths_parser.h"

#include <array>

namespace llmux::config::detail {
namespace {

/// A path a protocol row may set instead of its protocol's standard one. Adding one: a member
/// of UpstreamPaths, a row here, its key in the allowed keys of a channel and of a `protocols:`
/// row (channel_parser.cpp), and the function of protocol/upstream_path.h that uses it.
struct RowPathField {
  std::string_view key;                ///< the YAML key
  std::string UpstreamPaths::*member;  ///< where it is kept
  bool gemini_model_placeholder;       ///< on a gemini row, the path ends with {model}
};

constexpr std::array<RowPathField, 2> kRowPathFields = {{
    {"chat_path", &UpstreamPaths::chat, true},
    {"models_path", &UpstreamPaths::models, false},
}};

bool isHexDigit(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/// RFC 3986 `pchar` and '/', '%' aside: unreserved, sub-delims, ':' and '@'.
bool isPathChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
         std::string_view("-._~!$&'()*+,;=:@/").find(c) != std::string_view::npos;
}

/// What is wrong with the characters of `path` ("" when nothing), the first problem found.
std::string pathCharactersProblem(std::string_view path) {
  for (std::size_t i = 0; i < path.size(); ++i) {
    char c = path[i];
    auto byte = static_cast<unsigned char>(c);
    if (byte < 0x20 || byte == 0x7f) {
      return "must not contain control characters (CR, LF, NUL, ...)";
    }
    if (byte >= 0x80) return "must be ASCII (percent-encode other bytes as %XX)";
    if (c == ' ') return "must not contain spaces (percent-encode them as %20)";
    if (c == '?' || c == '#') {
      return "must not contain '?' or '#': the query string is the gateway's (client query, "
             "query auth)";
    }
    if (c == '%') {
      if (i + 2 >= path.size() || !isHexDigit(path[i + 1]) || !isHexDigit(path[i + 2])) {
        return "'%' must start a percent-encoded byte (%XX)";
      }
      continue;
    }
    if (!isPathChar(c)) {
      return std::string("character '") + c + "' is not allowed in a URL path (percent-encode it)";
    }
  }
  return {};
}

}  // namespace

std::string upstreamPathProblem(std::string_view path, bool needs_model_placeholder) {
  if (!path.starts_with('/')) {
    return "must start with '/' (an absolute path on the base URL's host)";
  }
  std::string_view rest = path;
  if (needs_model_placeholder) {
    if (!rest.ends_with(kModelPlaceholder)) {
      return "a gemini row's chat_path must end with {model} (the gateway puts the model there "
             "and appends :generateContent or :streamGenerateContent)";
    }
    rest.remove_suffix(kModelPlaceholder.size());
    if (rest.find(kModelPlaceholder) != std::string_view::npos) {
      return "{model} may appear only once, at the end";
    }
  } else if (rest.find(kModelPlaceholder) != std::string_view::npos) {
    return "{model} is only allowed in the chat_path of a gemini row";
  }
  return pathCharactersProblem(rest);
}

void readRowPaths(YamlReader& reader, Fields const& fields, Protocol protocol,
                  UpstreamPaths& paths) {
  for (RowPathField const& field : kRowPathFields) {
    YAML::Node const* node = fields.find(field.key);
    if (node == nullptr) continue;
    std::string const path = fields.path(field.key);
    auto text = reader.string(*node, path);
    if (!text) continue;
    bool needs_model = field.gemini_model_placeholder && protocol == Protocol::Gemini;
    if (std::string problem = upstreamPathProblem(*text, needs_model); !problem.empty()) {
      reader.fail(path, std::move(problem));
      continue;
    }
    paths.*field.member = std::move(*text);
  }
}

void rejectRowPaths(YamlReader& reader, Fields const& fields, std::string_view why) {
  for (RowPathField const& field : kRowPathFields) {
    if (fields.find(field.key) != nullptr) reader.fail(fields.path(field.key), std::string(why));
  }
}

}  // namespace llmux::config::detail
