#pragma once

#include <memory>

namespace boost::asio::ssl {
class context;
}

namespace llmux::net {

/// A client TLS context: TLS 1.2 or newer, peers verified against the system certificate store.
/// Host name verification and SNI are set per connection.
std::unique_ptr<boost::asio::ssl::context> makeClientTlsContext();

}  // namespace llmux::net
