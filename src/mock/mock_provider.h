#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "core/http_headers.h"

namespace llmux::mock {

/// One HTTP request as the mock sees it (the network glue fills it in).
struct MockRequest {
  std::string method;  ///< "GET", "POST", ...
  std::string path;    ///< without the query string
  std::string query;   ///< without the leading '?'
  HeaderList headers;
  std::string body;
};

/// A piece of the response body: wait `delay`, then send and flush `bytes`.
struct MockChunk {
  std::chrono::milliseconds delay{0};
  std::string bytes;
};

/// How the reply ends once every chunk has been played.
enum class MockEnding {
  Complete,  ///< a normal end of the body
  Cut,       ///< close the connection abruptly mid-body
  Stall,     ///< stop sending, keep the connection open for `stall_for`, then close
};

/// A scripted reply for the network glue to play.
struct MockReply {
  int status = 200;
  /// content-type, request id, retry-after, rate-limit headers...; never content-length or
  /// transfer-encoding (the glue frames the body).
  HeaderList headers;
  std::chrono::milliseconds head_delay{0};  ///< delay before the status line (slow first byte)
  /// true: chunked, each chunk flushed on its own; false: one body with content-length (the chunks
  /// concatenated). A non-stream reply that must be cut or stalled mid-body is sent chunked.
  bool streaming = false;
  std::vector<MockChunk> chunks;
  MockEnding ending = MockEnding::Complete;
  std::chrono::milliseconds stall_for{0};

  /// All chunks concatenated (tests, logs).
  std::string body() const;
};

/// Settings of a mock provider instance.
struct MockOptions {
  /// Keys the mock accepts. Empty: any key except the fault keys (containing "invalid",
  /// "forbidden" or "ratelimited").
  std::vector<std::string> accepted_keys;
};

class FaultCounters;
class VideoJobs;
class ModelCatalog;

/// A stand-in for the OpenAI (Chat Completions, Responses and the media endpoints), Anthropic and
/// Gemini APIs. It turns one request into one scripted reply: it validates like the real provider,
/// answers what the request asks for (text, tool calls, thinking, embeddings, images, audio,
/// video jobs), in each provider's exact wire format, and injects the faults a test asks for (see
/// docs/mock-provider.md). Thread-safe; pure (no I/O, no clock): the same request always gets the
/// same bytes, except for the fail-nth and fail-every counters, the video jobs (whose answers
/// follow from the sequence of calls) and the model lists and balances a test set (/mock/*).
class MockProvider {
 public:
  explicit MockProvider(MockOptions options = {});
  ~MockProvider();
  MockProvider(MockProvider const&) = delete;
  MockProvider& operator=(MockProvider const&) = delete;

  MockReply handle(MockRequest const& request);

 private:
  MockOptions options_;
  std::unique_ptr<FaultCounters> counters_;
  std::unique_ptr<VideoJobs> videos_;
  std::unique_ptr<ModelCatalog> catalog_;  ///< model lists and balances (PUT /mock/models)
};

}  // namespace llmux::mock
