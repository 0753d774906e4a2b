#pragma once

// A small blocking HTTP/1.1 client for ClickHouse's HTTP interface, for the payload writer's own
// thread (never an I/O thread): one connection per statement, `Connection: close`, every step
// bounded by a deadline.

#include <cstdint>
#include <string>
#include <string_view>

#include "core/clock.h"
#include "core/result.h"

namespace llmux::payloads {

/// Runs one statement: `query` in the URL, `body` (the rows of an INSERT) as the POST body.
/// Returns the answer's body on 200; an error (without the password) otherwise.
class StatementTransport {
 public:
  virtual ~StatementTransport() = default;
  virtual Result<std::string> run(std::string_view query, std::string_view body, Millis timeout) = 0;
};

struct ClickHouseEndpoint {
  std::string host;
  std::uint16_t port = 8123;
  std::string user = "default";
  std::string password;  ///< sent as HTTP Basic credentials; never in an error
};

class ClickHouseHttp final : public StatementTransport {
 public:
  explicit ClickHouseHttp(ClickHouseEndpoint endpoint) : endpoint_(std::move(endpoint)) {}
  Result<std::string> run(std::string_view query, std::string_view body, Millis timeout) override;

 private:
  ClickHouseEndpoint endpoint_;
};

/// The body of an HTTP/1.1 response read whole (`raw`: head and body up to the close): its status
/// and body (a chunked one decoded). Errors name what is wrong with the response.
struct HttpAnswer {
  int status = 0;
  std::string body;
};
Result<HttpAnswer> parseHttpAnswer(std::string_view raw);

}  // namespace llmux::payloads
