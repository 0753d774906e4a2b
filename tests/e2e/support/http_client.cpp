#include "e2e/support/http_client.h"

#include <algorithm>

#include "core/strings.h"

namespace llmux::e2e {
namespace {

constexpr std::size_t kMaxResponseHead = 1 << 20;

bool methodExpectsBody(std::string_view method) {
  return method == "POST" || method == "PUT" || method == "PATCH";
}

Error closedError(std::string_view where) {
  return makeError(ErrorKind::Cancelled, "connection closed by the server " + std::string(where));
}

}  // namespace

std::string formatRequest(std::string_view method, std::string_view target,
                          HeaderList const& headers, std::string_view body, std::uint16_t port) {
  std::string out;
  out.append(method).append(" ").append(target).append(" HTTP/1.1\r\n");
  if (!headers.has("host"))
    out.append("Host: 127.0.0.1:").append(std::to_string(port)).append("\r\n");
  for (auto const& f : headers) out.append(f.name).append(": ").append(f.value).append("\r\n");
  bool framed = headers.has("content-length") || headers.has("transfer-encoding");
  if (!framed && (!body.empty() || methodExpectsBody(method))) {
    out.append("Content-Length: ").append(std::to_string(body.size())).append("\r\n");
  }
  out.append("\r\n").append(body);
  return out;
}

Result<HttpClient> HttpClient::connect(std::uint16_t port, Millis timeout) {
  auto fd = connectLoopback(port, timeout);
  if (!fd) return fd.takeError();
  return HttpClient(std::move(*fd), port);
}

Result<void> HttpClient::sendRaw(std::string_view bytes, Millis timeout) {
  if (!fd_.valid()) return makeError(ErrorKind::Cancelled, "the connection was closed by the test");
  return sendAll(fd_.get(), bytes, MonoClock::now() + timeout);
}

Result<void> HttpClient::sendRequest(std::string_view method, std::string_view target,
                                     HeaderList const& headers, std::string_view body,
                                     Millis timeout) {
  return sendRaw(formatRequest(method, target, headers, body, port_), timeout);
}

Result<std::size_t> HttpClient::fill(MonoTime deadline) {
  if (!fd_.valid()) return makeError(ErrorKind::Cancelled, "the connection was closed by the test");
  if (peer_closed_) return std::size_t{0};
  std::size_t before = buffer_.size();
  auto n = receiveSome(fd_.get(), buffer_, deadline);
  if (!n) {
    if (n.error().kind == ErrorKind::Cancelled) peer_closed_ = true;  // reset
    return n;
  }
  if (*n == 0) {
    peer_closed_ = true;
    return n;
  }
  received_.append(buffer_, before, *n);
  arrivals_.emplace_back(consumed_total_ + buffer_.size(), MonoClock::now());
  return n;
}

MonoTime HttpClient::consume(std::size_t n) {
  std::size_t end = consumed_total_ + n;
  MonoTime arrived = arrivals_.empty() ? MonoClock::now() : arrivals_.back().second;
  for (auto const& [offset, when] : arrivals_) {
    if (offset >= end) {
      arrived = when;
      break;
    }
  }
  buffer_.erase(0, n);
  consumed_total_ = end;
  while (!arrivals_.empty() && arrivals_.front().first <= consumed_total_) arrivals_.pop_front();
  return arrived;
}

Result<ResponseHead> HttpClient::readHead(Millis timeout, bool answers_head_request) {
  if (body_active_) {
    return makeError(ErrorKind::Internal, "readHead called before the previous body was read");
  }
  auto deadline = MonoClock::now() + timeout;
  for (;;) {
    auto end = buffer_.find("\r\n\r\n");
    if (end != std::string::npos) {
      auto head = parseResponseHead(std::string_view(buffer_).substr(0, end + 4));
      if (!head) return head;
      consume(end + 4);
      if (!head->isInterim()) {
        auto framing = framingOf(*head, answers_head_request);
        if (!framing) return framing.takeError();
        framing_ = *framing;
        body_left_ = framing_.length;
        body_active_ = framing_.kind != BodyFraming::None &&
                       !(framing_.kind == BodyFraming::ContentLength && body_left_ == 0);
        chunked_ = ChunkedDecoder{};
      }
      return head;
    }
    if (buffer_.size() > kMaxResponseHead) {
      return makeError(ErrorKind::UpstreamProtocol, "response head larger than 1 MiB");
    }
    if (peer_closed_) {
      return closedError(buffer_.empty() ? "before a response" : "inside a response head");
    }
    auto n = fill(deadline);
    if (!n) return n.takeError();
  }
}

Result<std::optional<BodyPiece>> HttpClient::readBodyPiece(Millis timeout) {
  auto deadline = MonoClock::now() + timeout;
  for (;;) {
    if (!body_active_) return std::optional<BodyPiece>();
    switch (framing_.kind) {
      case BodyFraming::ContentLength:
        if (!buffer_.empty()) {
          std::size_t n = std::min(buffer_.size(), body_left_);
          BodyPiece piece{buffer_.substr(0, n), consume(n)};
          body_left_ -= n;
          body_active_ = body_left_ > 0;
          return std::optional<BodyPiece>(std::move(piece));
        }
        if (peer_closed_) {
          return closedError("with " + std::to_string(body_left_) +
                             " bytes of a Content-Length body missing");
        }
        break;
      case BodyFraming::UntilClose:
        if (!buffer_.empty()) {
          std::size_t n = buffer_.size();
          BodyPiece piece{buffer_, consume(n)};
          return std::optional<BodyPiece>(std::move(piece));
        }
        if (peer_closed_) {
          body_active_ = false;
          return std::optional<BodyPiece>();
        }
        break;
      case BodyFraming::Chunked: {
        auto step = chunked_.next(buffer_);
        if (!step) return step.takeError();
        if (step->kind == ChunkStep::Kind::Chunk) {
          BodyPiece piece{std::move(step->data), consume(step->consumed)};
          return std::optional<BodyPiece>(std::move(piece));
        }
        if (step->kind == ChunkStep::Kind::End) {
          consume(step->consumed);
          body_active_ = false;
          return std::optional<BodyPiece>();
        }
        if (peer_closed_) return closedError("inside a chunked body");
        break;
      }
      case BodyFraming::None:
        body_active_ = false;
        continue;
    }
    auto n = fill(deadline);
    if (!n) return n.takeError();
  }
}

Result<std::string> HttpClient::readBody(Millis timeout) {
  auto deadline = MonoClock::now() + timeout;
  std::string body;
  for (;;) {
    auto piece = readBodyPiece(timeLeft(deadline));
    if (!piece) return piece.takeError();
    if (!*piece) return body;
    body.append((*piece)->data);
  }
}

Result<Response> HttpClient::readResponse(Millis timeout, bool answers_head_request) {
  auto deadline = MonoClock::now() + timeout;
  Response response;
  for (;;) {
    auto head = readHead(timeLeft(deadline), answers_head_request);
    if (!head) return head.takeError();
    if (head->isInterim() && head->status != 101) {
      response.interim.push_back(std::move(*head));
      continue;
    }
    response.head = std::move(*head);
    break;
  }
  for (;;) {
    auto piece = readBodyPiece(timeLeft(deadline));
    if (!piece) return piece.takeError();
    if (!*piece) break;
    response.body.append((*piece)->data);
    response.pieces.push_back(std::move(**piece));
  }
  response.trailers = chunked_.trailers();
  return response;
}

Result<Response> HttpClient::request(std::string_view method, std::string_view target,
                                     HeaderList const& headers, std::string_view body,
                                     Millis timeout) {
  auto sent = sendRequest(method, target, headers, body, timeout);
  if (!sent) return sent.error();
  return readResponse(timeout, method == "HEAD");
}

Result<void> HttpClient::waitForClose(Millis timeout) {
  auto deadline = MonoClock::now() + timeout;
  for (;;) {
    if (!buffer_.empty()) {
      return makeError(ErrorKind::UpstreamProtocol,
                       "expected the connection to close, received: " + buffer_.substr(0, 200));
    }
    if (peer_closed_) return {};
    auto n = fill(deadline);
    if (!n) {
      if (n.error().kind == ErrorKind::Cancelled && peer_closed_) return {};  // reset counts
      return n.error();
    }
  }
}

void HttpClient::closeNow(CloseMode mode) {
  closeSocket(fd_, mode);
}

}  // namespace llmux::e2e
