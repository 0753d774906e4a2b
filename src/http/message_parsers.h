#pragma once

#include <cstdint>
#include <string>

#include <boost/beast/http/basic_parser.hpp>

#include "core/http_headers.h"
#include "http/server_request.h"

namespace llmux::http {

/// Parses a client request straight into a ServerRequest: method, target, version and header
/// fields into its HeaderList, body bytes appended to its body string. Beast's own message type
/// would keep every field in a separately allocated node and need copying out again.
class RequestParser final : public boost::beast::http::basic_parser<true> {
 public:
  /// More than `max_fields` header fields fail the head with `header_limit` (a flood of tiny
  /// fields must not make every later pass over the headers expensive).
  RequestParser(ServerRequest& out, std::size_t max_fields) : out_(out), max_fields_(max_fields) {}

 private:
  using ErrorCode = boost::beast::error_code;
  using View = boost::beast::string_view;

  void on_request_impl(boost::beast::http::verb, View method, View target, int version,
                       ErrorCode&) override;
  void on_response_impl(int, View, int, ErrorCode&) override {}
  void on_field_impl(boost::beast::http::field, View name, View value, ErrorCode&) override;
  void on_header_impl(ErrorCode&) override {}
  void on_body_init_impl(boost::optional<std::uint64_t> const& length, ErrorCode&) override;
  std::size_t on_body_impl(View body, ErrorCode&) override;
  void on_chunk_header_impl(std::uint64_t, View, ErrorCode&) override {}
  std::size_t on_chunk_body_impl(std::uint64_t, View body, ErrorCode&) override;
  void on_finish_impl(ErrorCode&) override {}

  ServerRequest& out_;
  std::size_t max_fields_;
};

}  // namespace llmux::http
