#include "support/response_feed.h"

#include <algorithm>
#include <cstring>

#include <boost/beast/core/flat_buffer.hpp>

#include "http/response_reader.h"

namespace llmux::test_support {

std::string FedResponse::body() const {
  std::string out;
  for (auto const& piece : pieces) out += piece;
  return out;
}

namespace {

/// The peer's side of the connection: `wire` in reads of the given cuts.
class Feed {
 public:
  Feed(std::string_view wire, std::vector<std::size_t> const& cuts) : wire_(wire), cuts_(cuts) {}

  /// One read into the reader, or its end of file once the bytes ran out.
  Result<void> readInto(http::ResponseReader& reader) {
    auto space = reader.readSpace();
    if (!space) return space.error();
    if (wire_.empty()) return reader.receivedEof();
    std::size_t cut = cuts_.empty() ? 0 : cuts_[reads_++ % cuts_.size()];
    std::size_t n = std::min({space->size(), wire_.size(), cut == 0 ? wire_.size() : cut});
    std::memcpy(space->data(), wire_.data(), n);
    wire_.remove_prefix(n);
    reader.received(n);
    return {};
  }

 private:
  std::string_view wire_;
  std::vector<std::size_t> const& cuts_;
  std::size_t reads_ = 0;
};

}  // namespace

FedResponse feedResponse(std::string_view wire, std::vector<std::size_t> const& cuts) {
  FedResponse out;
  boost::beast::flat_buffer buffer(http::ResponseReader::kBufferLimit);
  http::ResponseReader reader(buffer);
  Feed feed(wire, cuts);
  protocol::SseParser sse;
  auto fail = [&](Error error) {
    out.error = std::move(error);
    out.interim_heads = reader.interimHeads();
    return out;
  };
  for (;;) {
    auto head = reader.parseHead();
    if (!head) return fail(head.error());
    if (*head) break;
    if (auto read = feed.readInto(reader); !read) return fail(read.error());
  }
  out.head_done = true;
  out.status = reader.status();
  out.interim_heads = reader.interimHeads();
  for (auto const& field : reader.headers()) {
    out.headers.emplace_back(std::string(field.name), std::string(field.value));
  }
  out.content_length = reader.contentLength();
  for (;;) {
    auto& body = reader.body();
    body.clear();
    auto piece = reader.parseBody();
    if (!piece) return fail(piece.error());
    if (*piece) {
      if (!body.empty()) {
        out.pieces.push_back(body);
        sse.feed(body, out.events);
      }
      if (reader.done()) break;
      continue;
    }
    if (auto read = feed.readInto(reader); !read) return fail(read.error());
  }
  sse.finish(out.events);
  out.done = true;
  out.keep_alive = reader.keepAlive();
  out.left_over = buffer.size();
  return out;
}

}  // namespace llmux::test_support
