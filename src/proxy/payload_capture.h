#pragma once

// Where the proxy hands bodies to a sampled request's payload capture (docs/operations.md,
// ClickHouse payloads). An unsampled request has no capture and pays one pointer test.

#include <cstdint>
#include <initializer_list>
#include <memory>

#include "core/capped_copy.h"
#include "http/response_writer.h"
#include "proxy/secret_redactor.h"

namespace llmux::payloads {
class PayloadWriter;
class RequestCapture;
}  // namespace llmux::payloads

namespace llmux::http {
class UpstreamExchange;
}

namespace llmux::proxy {

struct RequestContext;

/// A client's writer that keeps a copy of the answer's body (up to max_bytes) as it goes out.
class CapturingWriter final : public http::ResponseWriter {
 public:
  CapturingWriter(http::ResponseWriter& inner, std::size_t max_bytes) : inner_(inner) {
    copy_.limit = max_bytes;
  }

  net::Task<bool> send(int status, HeaderList const& headers, std::string_view body) override;
  net::Task<bool> beginBody(int status, HeaderList const& headers,
                            std::optional<std::uint64_t> content_length,
                            std::string_view first_piece) override;
  net::Task<bool> writeBody(std::string_view piece) override;
  net::Task<bool> endBody(std::string_view last_piece) override;
  void breakConnection() override { inner_.breakConnection(); }
  bool headSent() const override { return inner_.headSent(); }
  std::uint64_t bodyBytesSent() const override { return inner_.bodyBytesSent(); }
  MonoTime firstByteAt() const override { return inner_.firstByteAt(); }
  http::Cancellation& cancellation() override { return inner_.cancellation(); }

  CappedCopy& copy() { return copy_; }

 private:
  http::ResponseWriter& inner_;
  CappedCopy copy_;
};

/// Starts capturing a sampled request: the client's body and headers (attempt 0), and its
/// answer through a CapturingWriter put in front of the client's writer.
void startPayloadCapture(RequestContext& ctx, payloads::PayloadWriter& writer);
/// Hands the request's captured bodies to the writer (the client's answer as it went out).
void finishPayloadCapture(RequestContext& ctx, payloads::PayloadWriter& writer);

/// One upstream attempt's bodies: the request as sent, and the answer as the exchange read it
/// (its channel key blanked). Recorded when the attempt ends.
class AttemptCapture {
 public:
  /// `sent` is the request body as written, in its pieces.
  AttemptCapture(payloads::RequestCapture& capture, std::string_view key_secret,
                 std::initializer_list<std::string_view> sent);
  ~AttemptCapture();
  AttemptCapture(AttemptCapture const&) = delete;
  AttemptCapture& operator=(AttemptCapture const&) = delete;

  /// Copies what `exchange` reads of the answer's body.
  void tap(http::UpstreamExchange& exchange);

 private:
  payloads::RequestCapture& capture_;
  SecretRedactor redactor_;
  std::uint32_t attempt_;
  CappedCopy answer_;
};

}  // namespace llmux::proxy
