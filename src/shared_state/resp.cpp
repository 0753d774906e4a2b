#include "shared_state/resp.h"

#include <charconv>

namespace llmux::shared_state {
namespace {

Error protocolError(std::string what) {
  return makeError(ErrorKind::Internal, "redis protocol error: " + std::move(what));
}

/// Outcome of parsing at one position: a reply, "need more bytes" (nullopt) or an Error.
using Parsed = Result<std::optional<RedisReply>>;

/// The line starting at `pos` without its CRLF; nullopt when the CRLF has not arrived yet.
std::optional<std::string_view> lineAt(std::string_view data, std::size_t pos) {
  std::size_t end = data.find("\r\n", pos);
  if (end == std::string_view::npos) return std::nullopt;
  return data.substr(pos, end - pos);
}

std::optional<std::int64_t> parseInteger(std::string_view text) {
  std::int64_t value = 0;
  if (text.empty() || text.front() == '+') return std::nullopt;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

Parsed parseAt(std::string_view data, std::size_t& pos, int depth) {
  if (depth > kMaxReplyDepth) return protocolError("replies nested too deep");
  if (pos >= data.size()) return std::optional<RedisReply>{};
  auto line = lineAt(data, pos + 1);
  if (!line) return std::optional<RedisReply>{};
  char const type = data[pos];
  std::size_t const after_line = pos + 1 + line->size() + 2;
  switch (type) {
    case '+':
      pos = after_line;
      return std::optional{RedisReply::simple(std::string(*line))};
    case '-':
      pos = after_line;
      return std::optional{RedisReply::error(std::string(*line))};
    case ':': {
      auto value = parseInteger(*line);
      if (!value) return protocolError("bad integer '" + std::string(*line) + "'");
      pos = after_line;
      return std::optional{RedisReply::number(*value)};
    }
    case '$': {
      auto length = parseInteger(*line);
      if (!length || *length < -1) return protocolError("bad bulk length '" + std::string(*line) + "'");
      if (*length == -1) {
        pos = after_line;
        return std::optional{RedisReply::nil()};
      }
      auto size = static_cast<std::size_t>(*length);
      if (size > kMaxBulkBytes) return protocolError("bulk string too long");
      if (data.size() < after_line + size + 2) return std::optional<RedisReply>{};
      if (data.substr(after_line + size, 2) != "\r\n") return protocolError("bulk string without CRLF");
      pos = after_line + size + 2;
      return std::optional{RedisReply::bulk(std::string(data.substr(after_line, size)))};
    }
    case '*': {
      auto count = parseInteger(*line);
      if (!count || *count < -1) return protocolError("bad array length '" + std::string(*line) + "'");
      if (*count == -1) {
        pos = after_line;
        return std::optional{RedisReply::nil()};
      }
      if (*count > kMaxArrayElements) return protocolError("array too long");
      std::vector<RedisReply> elements;
      std::size_t cursor = after_line;
      for (std::int64_t i = 0; i < *count; ++i) {
        auto element = parseAt(data, cursor, depth + 1);
        if (!element) return element.takeError();
        if (!*element) return std::optional<RedisReply>{};
        elements.push_back(std::move(**element));
      }
      pos = cursor;
      return std::optional{RedisReply::array(std::move(elements))};
    }
    default:
      return protocolError(std::string("unknown reply type '") + type + "'");
  }
}

}  // namespace

bool RedisReply::isErrorCode(std::string_view code) const {
  if (kind != Kind::Error) return false;
  std::string_view t = text;
  return t.substr(0, t.find(' ')) == code;
}

RedisReply RedisReply::simple(std::string text) {
  RedisReply r;
  r.kind = Kind::SimpleString;
  r.text = std::move(text);
  return r;
}

RedisReply RedisReply::error(std::string text) {
  RedisReply r;
  r.kind = Kind::Error;
  r.text = std::move(text);
  return r;
}

RedisReply RedisReply::number(std::int64_t value) {
  RedisReply r;
  r.kind = Kind::Integer;
  r.integer = value;
  return r;
}

RedisReply RedisReply::bulk(std::string text) {
  RedisReply r;
  r.kind = Kind::Bulk;
  r.text = std::move(text);
  return r;
}

RedisReply RedisReply::nil() { return RedisReply{}; }

RedisReply RedisReply::array(std::vector<RedisReply> elements) {
  RedisReply r;
  r.kind = Kind::Array;
  r.elements = std::move(elements);
  return r;
}

std::string describe(RedisReply const& reply) {
  switch (reply.kind) {
    case RedisReply::Kind::SimpleString: return "+" + reply.text;
    case RedisReply::Kind::Error: return "-" + reply.text;
    case RedisReply::Kind::Integer: return ":" + std::to_string(reply.integer);
    case RedisReply::Kind::Bulk: return "\"" + reply.text + "\"";
    case RedisReply::Kind::Nil: return "nil";
    case RedisReply::Kind::Array: {
      std::string out = "[";
      for (std::size_t i = 0; i < reply.elements.size(); ++i) {
        if (i > 0) out += ", ";
        out += describe(reply.elements[i]);
      }
      return out + "]";
    }
  }
  return "?";
}

std::string encodeCommand(std::span<std::string const> args) {
  std::size_t size = 16;
  for (auto const& arg : args) size += arg.size() + 16;
  std::string out;
  out.reserve(size);
  out += '*';
  out += std::to_string(args.size());
  out += "\r\n";
  for (auto const& arg : args) {
    out += '$';
    out += std::to_string(arg.size());
    out += "\r\n";
    out += arg;
    out += "\r\n";
  }
  return out;
}

void RespParser::feed(std::string_view bytes) {
  // Drop what was returned already before growing, so the buffer holds one reply's worth.
  if (consumed_ > 0 && consumed_ == buffer_.size()) {
    buffer_.clear();
    consumed_ = 0;
  } else if (consumed_ > 4096 && consumed_ * 2 > buffer_.size()) {
    buffer_.erase(0, consumed_);
    consumed_ = 0;
  }
  buffer_.append(bytes);
}

Result<std::optional<RedisReply>> RespParser::next() {
  std::size_t pos = consumed_;
  auto parsed = parseAt(buffer_, pos, 0);
  if (parsed && *parsed) consumed_ = pos;
  return parsed;
}

}  // namespace llmux::shared_state
