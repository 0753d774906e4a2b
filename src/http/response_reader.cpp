#include "http/response_reader.h"

#include <algorithm>
#include <string_view>

#include <boost/beast/core/read_size.hpp>

namespace llmux::http {

namespace {

Error protocolError(std::string message) {
  return makeError(ErrorKind::UpstreamProtocol, std::move(message));
}

}  // namespace

ResponseReader::ResponseReader(boost::beast::flat_buffer& buffer) : buffer_(buffer) {
  got_some_ = buffer_.size() > 0;
  freshParser();
}

void ResponseReader::freshParser() { parser_.emplace(); }

std::optional<std::uint64_t> ResponseReader::contentLength() const {
  if (!final_head_ || parser_->chunked()) return std::nullopt;
  // These have no body whatever their Content-Length says (RFC 9110 §6.4.1); the parser
  // ignores it for them.
  if (status() == 204 || status() == 304) return 0;
  return parser_->contentLength();
}

Result<boost::asio::mutable_buffer> ResponseReader::readSpace() {
  // A body of known size grows the buffer up to its limit so that a large answer takes few
  // reads; streams keep the small initial one (their events are small).
  if (auto length = contentLength(); length && *length > buffer_.capacity()) {
    buffer_.reserve(static_cast<std::size_t>(std::min<std::uint64_t>(*length, buffer_.max_size())));
  }
  std::size_t size = boost::beast::read_size(buffer_, kBufferLimit);
  if (size == 0) {
    return protocolError("the upstream's response head or chunk header does not fit in " +
                         std::to_string(kBufferLimit / 1024) + " KiB");
  }
  return buffer_.prepare(size);
}

void ResponseReader::received(std::size_t n) {
  buffer_.commit(n);
  if (n > 0) got_some_ = true;
}

Result<void> ResponseReader::receivedEof() {
  if (!got_some_) {
    return makeError(ErrorKind::Connect, "the upstream closed the connection without answering");
  }
  if (done()) return {};
  if (!parser_->putEof()) {
    return protocolError("the upstream closed the connection mid-response");
  }
  return {};
}

Result<void> ResponseReader::skipInterimHead() {
  if (status() == 101) {
    return protocolError("the upstream switched protocols (101), which llmux never asks for");
  }
  if (interim_heads_ == kMaxInterimHeads) {
    return protocolError("the upstream sent more than " + std::to_string(kMaxInterimHeads) +
                         " interim (1xx) responses");
  }
  ++interim_heads_;
  head_start_ = parsed_;
  freshParser();
  return {};
}

Result<bool> ResponseReader::step(std::string_view what, std::size_t limit,
                                  std::size_t used_before) {
  if (buffer_.size() == 0) return false;
  auto data = buffer_.data();
  std::size_t room = limit - used_before;
  bool limited = data.size() >= room;
  auto step = parser_->put(
      std::string_view(static_cast<char const*>(data.data()), std::min(data.size(), room)));
  buffer_.consume(step.used);
  parsed_ += step.used;
  if (!step.error.empty()) {
    return protocolError("malformed " + std::string(what) + " from the upstream: " +
                         std::string(step.error));
  }
  if (step.need_more && limited) {
    return protocolError("the upstream's " + std::string(what) + " is larger than " +
                         std::to_string(limit / 1024) + " KiB");
  }
  return step.used > 0;
}

Result<bool> ResponseReader::parseHead() {
  while (!final_head_) {
    auto progressed = step("response head", kMaxHeadBytes, parsed_ - head_start_);
    if (!progressed) return progressed.error();
    if (!*progressed) return false;
    if (!parser_->headerDone()) continue;
    if (status() < 100 || status() > 599) {
      return protocolError("the upstream answered with status " + std::to_string(status()) +
                           ", which HTTP does not have");
    }
    if (status() / 100 == 1) {
      if (auto skipped = skipInterimHead(); !skipped) return skipped.error();
      continue;
    }
    final_head_ = true;
  }
  return true;
}

Result<bool> ResponseReader::parseBody() {
  if (!final_head_) return protocolError("the response body was read before its head");
  auto& body = parser_->body();
  while (body.empty() && !parser_->done()) {
    auto progressed = step("chunk header or trailer", kBufferLimit, 0);
    if (!progressed) return progressed.error();
    if (!*progressed) return false;
  }
  return true;
}

}  // namespace llmux::http
