#include "net/tls.h"

#include <boost/asio/ssl/context.hpp>

namespace llmux::net {

std::unique_ptr<boost::asio::ssl::context> makeClientTlsContext() {
  namespace ssl = boost::asio::ssl;
  auto ctx = std::make_unique<ssl::context>(ssl::context::tls_client);
  ctx->set_options(ssl::context::default_workarounds | ssl::context::no_sslv2 |
                   ssl::context::no_sslv3 | ssl::context::no_tlsv1 | ssl::context::no_tlsv1_1);
  ctx->set_default_verify_paths();
  ctx->set_verify_mode(ssl::verify_peer);
  return ctx;
}

}  // namespace llmux::net
