#include "proxy/payload_capture.h"

#include "http/server_request.h"
#include "http/upstream_exchange.h"
#include "payloads/payload_writer.h"
#include "payloads/redaction.h"
#include "payloads/request_capture.h"
#include "proxy/request_context.h"

namespace llmux::proxy {

using payloads::BodyKind;

net::Task<bool> CapturingWriter::send(int status, HeaderList const& headers, std::string_view body) {
  copy_.append(body);
  co_return co_await inner_.send(status, headers, body);
}

net::Task<bool> CapturingWriter::beginBody(int status, HeaderList const& headers,
                                           std::optional<std::uint64_t> content_length,
                                           std::string_view first_piece) {
  copy_.append(first_piece);
  co_return co_await inner_.beginBody(status, headers, content_length, first_piece);
}

net::Task<bool> CapturingWriter::writeBody(std::string_view piece) {
  copy_.append(piece);
  co_return co_await inner_.writeBody(piece);
}

net::Task<bool> CapturingWriter::endBody(std::string_view last_piece) {
  copy_.append(last_piece);
  co_return co_await inner_.endBody(last_piece);
}

void startPayloadCapture(RequestContext& ctx, payloads::PayloadWriter& writer) {
  auto started = std::chrono::duration_cast<std::chrono::seconds>(
      ctx.record.started_at.time_since_epoch());
  ctx.payloads = writer.startCapture(ctx.request_id, started.count());
  auto const& options = ctx.payloads->options();
  ctx.payloads->addBody(0, BodyKind::Request, ctx.request.body,
                        payloads::redactedHeadersJson(ctx.request.headers, options.redact));
  ctx.capturing_writer = std::make_shared<CapturingWriter>(*ctx.response, options.max_bytes);
  ctx.response = ctx.capturing_writer.get();
}

void finishPayloadCapture(RequestContext& ctx, payloads::PayloadWriter& writer) {
  ctx.payloads->addCopy(0, BodyKind::Response, std::move(ctx.capturing_writer->copy()));
  writer.submit(ctx.payloads->take());
}

AttemptCapture::AttemptCapture(payloads::RequestCapture& capture, std::string_view key_secret,
                               std::initializer_list<std::string_view> sent)
    : capture_(capture), redactor_(key_secret), attempt_(capture.nextAttempt()) {
  CappedCopy request = capture.newCopy();
  for (std::string_view piece : sent) request.append(piece);
  redactor_.redact(request.bytes);
  capture_.addCopy(attempt_, BodyKind::Request, std::move(request));
  answer_ = capture.newCopy();
}

AttemptCapture::~AttemptCapture() {
  // An upstream's error document may quote the key it was sent.
  redactor_.redact(answer_.bytes);
  capture_.addCopy(attempt_, BodyKind::Response, std::move(answer_));
}

void AttemptCapture::tap(http::UpstreamExchange& exchange) { exchange.tapBody(&answer_); }

}  // namespace llmux::proxy
