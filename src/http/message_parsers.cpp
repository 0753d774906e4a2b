#include "http/message_parsers.h"

#include <algorithm>

#include <boost/beast/http/error.hpp>

namespace llmux::http {

void RequestParser::on_request_impl(boost::beast::http::verb, View method, View target, int version,
                                    ErrorCode&) {
  out_.method.assign(method.data(), method.size());
  out_.target.assign(target.data(), target.size());
  out_.version = static_cast<unsigned>(version);
  out_.headers.reserve(24, 1024);
}

void RequestParser::on_field_impl(boost::beast::http::field, View name, View value, ErrorCode& ec) {
  if (out_.headers.size() >= max_fields_) {
    ec = boost::beast::http::error::header_limit;
    return;
  }
  out_.headers.add(name, value);
}

void RequestParser::on_body_init_impl(boost::optional<std::uint64_t> const& length, ErrorCode&) {
  // Never the declared length up front (a client may declare 32 MiB and send a byte): the body
  // grows as bytes arrive. Small bodies get their room at once.
  constexpr std::uint64_t kReserveAtMost = 16 * 1024;
  if (length) out_.body.reserve(static_cast<std::size_t>(std::min(*length, kReserveAtMost)));
}

std::size_t RequestParser::on_body_impl(View body, ErrorCode&) {
  out_.body.append(body.data(), body.size());
  return body.size();
}

std::size_t RequestParser::on_chunk_body_impl(std::uint64_t, View body, ErrorCode&) {
  out_.body.append(body.data(), body.size());
  return body.size();
}

}  // namespace llmux::http
