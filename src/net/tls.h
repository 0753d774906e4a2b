#pragma once

#include <memory>
#include <string>

#include "core/result.h"

namespace boost::asio::ssl {
class context;
}

namespace llmux::net {

/// A client TLS context: TLS 1.2 or newer, peers verified against the system certificate store,
/// or only against the CA bundle `ca_file` when it is given. Host name verification and SNI are
/// set per connection. Fails when `ca_file` cannot be loaded.
Result<std::unique_ptr<boost::asio::ssl::context>> makeClientTlsContext(std::string const& ca_file = {});

}  // namespace llmux::net
