// An upstream's response as arbitrary bytes, read the way the upstream exchange reads a socket:
// the same http::ResponseReader (interim 1xx heads, the final head, Content-Length, chunked or
// close-delimited bodies) driven by test_support::feedResponse, with the body's pieces through the
// SSE parser. Input: a 4-byte cut header, then the bytes the upstream sends; read i takes at most
// `header[i % 4]` bytes (0: as much as the buffer has room for). No crash, no hang, bounded memory,
// and the same answer however the bytes are cut (compared with one read of everything).
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "http/response_reader.h"
#include "support/response_feed.h"

namespace {

using llmux::http::ResponseReader;
using llmux::test_support::FedResponse;

constexpr std::size_t kCutHeader = 4;

void check(bool ok, char const* what, std::string const& detail = {}) {
  if (ok) return;
  std::fprintf(stderr, "fuzz check failed: %s %s\n", what, detail.c_str());
  std::abort();
}

void checkAlone(FedResponse const& r, std::size_t wire_size) {
  check(r.interim_heads <= ResponseReader::kMaxInterimHeads, "more interim heads than the cap");
  if (r.head_done) {
    check(r.status >= 200 && r.status <= 599, "a final status outside 200..599");
  }
  std::size_t total = 0;
  for (auto const& piece : r.pieces) {
    check(!piece.empty(), "an empty body piece was handed over");
    check(piece.size() <= ResponseReader::kBufferLimit, "a body piece larger than the buffer");
    total += piece.size();
  }
  check(total <= wire_size, "more body bytes than the upstream sent");
  if (r.done && r.content_length) {
    check(total == *r.content_length, "a done body that is not its Content-Length");
  }
}

void checkSame(FedResponse const& cut, FedResponse const& whole) {
  // Which fault is named may depend on the cuts (a limit met before a malformed line is whole),
  // not whether the answer fails, nor how.
  auto errors = "(cut: " + (cut.error ? cut.error->message : "none") +
                "; whole: " + (whole.error ? whole.error->message : "none") + ")";
  check(cut.error.has_value() == whole.error.has_value(), "an error depends on the cuts", errors);
  if (cut.error && whole.error) {
    check(cut.error->kind == whole.error->kind, "the error kind depends on the cuts", errors);
  }
  check(cut.head_done == whole.head_done, "the head depends on the cuts");
  check(cut.status == whole.status, "the status depends on the cuts");
  check(cut.interim_heads == whole.interim_heads, "interim heads depend on the cuts");
  check(cut.headers == whole.headers, "the header fields depend on the cuts");
  check(cut.body() == whole.body(), "the body depends on the cuts");
  check(cut.done == whole.done, "the end of the response depends on the cuts");
  if (cut.done) check(cut.keep_alive == whole.keep_alive, "keep-alive depends on the cuts");
  check(cut.events.size() == whole.events.size(), "the SSE events depend on the cuts");
  for (std::size_t i = 0; i < cut.events.size(); ++i) {
    check(cut.events[i].event == whole.events[i].event, "an SSE event name depends on the cuts");
    check(cut.events[i].data == whole.events[i].data, "an SSE event's data depends on the cuts");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(std::uint8_t const* data, std::size_t size) {
  if (size < kCutHeader) return 0;
  std::vector<std::size_t> cuts(data, data + kCutHeader);
  std::string_view wire(reinterpret_cast<char const*>(data) + kCutHeader, size - kCutHeader);
  FedResponse cut = llmux::test_support::feedResponse(wire, cuts);
  FedResponse whole = llmux::test_support::feedResponse(wire);
  checkAlone(cut, wire.size());
  checkAlone(whole, wire.size());
  checkSame(cut, whole);
  return 0;
}
