#include "e2e/scenarios/media_support.h"

#include <gtest/gtest.h>

#include <cstdint>

#include <boost/json/parse.hpp>

namespace llmux::e2e::media {

Form& Form::field(std::string_view name, std::string_view value) {
  return part("Content-Disposition: form-data; name=\"" + std::string(name) + "\"", value);
}

Form& Form::file(std::string_view name, std::string_view filename, std::string_view type,
                 std::string_view bytes) {
  return part("Content-Disposition: form-data; name=\"" + std::string(name) + "\"; filename=\"" +
                  std::string(filename) + "\"\r\nContent-Type: " + std::string(type),
              bytes);
}

std::string Form::body() const { return body_ + "--" + std::string(kBoundary) + "--\r\n"; }

Form& Form::part(std::string const& headers, std::string_view value) {
  body_ += "--" + std::string(kBoundary) + "\r\n" + headers + "\r\n\r\n";
  body_.append(value);
  body_ += "\r\n";
  return *this;
}

void WithMockProvider::SetUp() {
  E2eTest::SetUp();
  if (IsSkipped()) return;
  auto mock = startMockProvider();
  ASSERT_TRUE(mock.ok()) << mock.error().message;
  mock_ = mock->port;
}

HeaderList jsonHeaders(std::string_view key) {
  HeaderList headers;
  headers.add("Authorization", "Bearer " + std::string(key));
  headers.add("Content-Type", "application/json");
  return headers;
}

HeaderList formHeaders(std::string_view key) {
  HeaderList headers;
  headers.add("Authorization", "Bearer " + std::string(key));
  headers.add("Content-Type", "multipart/form-data; boundary=" + std::string(kBoundary));
  return headers;
}

boost::json::value parsed(Response const& response) {
  boost::system::error_code ec;
  boost::json::value value = boost::json::parse(response.body, ec);
  EXPECT_FALSE(ec) << response.body.substr(0, 300);
  return value;
}

Result<std::vector<BodyPiece>> readPieces(HttpClient& client) {
  std::vector<BodyPiece> pieces;
  for (;;) {
    auto piece = client.readBodyPiece(Millis(5'000));
    if (!piece) return piece.error();
    if (!*piece) return pieces;
    pieces.push_back(std::move(**piece));
  }
}

std::string upload(std::size_t size) {
  std::string bytes(size, '\0');
  std::uint64_t x = 0x9E3779B97F4A7C15ULL;
  for (char& c : bytes) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    c = static_cast<char>(x);
  }
  return bytes;
}

}  // namespace llmux::e2e::media
