#pragma once

// What the media scenarios share: multipart forms written by hand (the harness shares no code
// with what it tests), upload bytes, and JSON answers parsed.

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include <boost/json/value.hpp>

#include "core/http_headers.h"
#include "e2e/support/e2e_test.h"
#include "e2e/support/http_client.h"

namespace llmux::e2e::media {

inline constexpr std::string_view kBoundary = "e2eMediaBoundary0123";

/// A multipart/form-data body with kBoundary.
class Form {
 public:
  Form& field(std::string_view name, std::string_view value);
  Form& file(std::string_view name, std::string_view filename, std::string_view type,
             std::string_view bytes);
  std::string body() const;

 private:
  Form& part(std::string const& headers, std::string_view value);
  std::string body_;
};

/// A scenario with `llmux mock-provider` running: its port in `mock_`.
class WithMockProvider : public E2eTest {
 protected:
  void SetUp() override;
  std::uint16_t mock_ = 0;
};

/// Authorization with `key`, and a JSON or a kBoundary form Content-Type.
HeaderList jsonHeaders(std::string_view key);
HeaderList formHeaders(std::string_view key);

/// The answer's body as JSON (a test failure when it is not).
boost::json::value parsed(Response const& response);

/// Every piece of a response body as it arrived (the head already read), up to its end.
Result<std::vector<BodyPiece>> readPieces(HttpClient& client);

/// Bytes that do not compress and hold no CRLF-dash line: an upload as a client sends one.
std::string upload(std::size_t size);

}  // namespace llmux::e2e::media
