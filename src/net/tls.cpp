#include "net/tls.h"

#include <boost/asio/ssl/context.hpp>

namespace llmux::net {

Result<std::unique_ptr<boost::asio::ssl::context>> makeClientTlsContext(std::string const& ca_file) {
  namespace ssl = boost::asio::ssl;
  auto ctx = std::make_unique<ssl::context>(ssl::context::tls_client);
  ctx->set_options(ssl::context::default_workarounds | ssl::context::no_sslv2 |
                   ssl::context::no_sslv3 | ssl::context::no_tlsv1 | ssl::context::no_tlsv1_1);
  boost::system::error_code ec;
  if (ca_file.empty()) {
    ctx->set_default_verify_paths(ec);
  } else {
    ctx->load_verify_file(ca_file, ec);
  }
  if (ec) {
    return makeError(ErrorKind::Connect, "cannot load TLS trust anchors" +
                                             (ca_file.empty() ? std::string() : " from " + ca_file) +
                                             ": " + ec.message());
  }
  ctx->set_verify_mode(ssl::verify_peer);
  return ctx;
}

}  // namespace llmux::net
