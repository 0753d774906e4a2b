#include "media_test_support.h"

#include <gtest/gtest.h>

#include <boost/json/parse.hpp>

#include "conformance_support.h"
#include "mock/checksums.h"
#include "protocol/multipart.h"
#include "support/base64_decode.h"

namespace llmux::mock::testing {

MockRequest jsonPost(std::string path, std::string body) {
  return makeRequest(Protocol::OpenAiChat, std::move(path), std::move(body));
}

MockRequest getRequest(std::string path, std::string query) {
  MockRequest request;
  request.method = "GET";
  request.path = std::move(path);
  request.query = std::move(query);
  request.headers.add("authorization", "Bearer sk-test");
  return request;
}

MockRequest formPost(std::string path, std::vector<FormField> const& fields) {
  MockRequest request = getRequest(std::move(path));
  request.method = "POST";
  for (auto const& field : fields) {
    protocol::appendMultipartPart(request.body, kFormBoundary, field.name, field.value,
                                  !field.filename.empty(), field.filename, field.content_type);
  }
  protocol::closeMultipart(request.body, kFormBoundary);
  request.headers.add("content-type",
                      "multipart/form-data; boundary=" + std::string(kFormBoundary));
  return request;
}

boost::json::value jsonOf(MockReply const& reply) {
  boost::system::error_code ec;
  boost::json::value value = boost::json::parse(reply.body(), ec);
  EXPECT_FALSE(ec) << reply.body();
  return value;
}

boost::json::object errorOf(MockReply const& reply) {
  boost::json::value value = jsonOf(reply);
  if (!value.is_object() || !value.as_object().contains("error") ||
      !value.at("error").is_object()) {
    ADD_FAILURE() << "not an OpenAI error: " << reply.body();
    return {};
  }
  return value.at("error").as_object();
}

std::string decodeBase64(std::string_view text) {
  auto bytes = test_support::decodeBase64(text);
  EXPECT_TRUE(bytes.has_value()) << "not base64: " << text.substr(0, 80);
  return bytes.value_or("");
}

std::uint64_t readLe(std::string_view bytes, std::size_t at, int count) {
  std::uint64_t value = 0;
  for (int i = count - 1; i >= 0; --i) {
    value = (value << 8) | static_cast<unsigned char>(bytes.at(at + static_cast<std::size_t>(i)));
  }
  return value;
}

std::uint64_t readBe(std::string_view bytes, std::size_t at, int count) {
  std::uint64_t value = 0;
  for (int i = 0; i < count; ++i) {
    value = (value << 8) | static_cast<unsigned char>(bytes.at(at + static_cast<std::size_t>(i)));
  }
  return value;
}

std::pair<std::uint32_t, std::uint32_t> pngSize(std::string_view png) {
  if (!png.starts_with(std::string_view("\x89PNG\r\n\x1a\n", 8))) {
    ADD_FAILURE() << "no PNG signature";
    return {0, 0};
  }
  std::pair<std::uint32_t, std::uint32_t> size{0, 0};
  std::string_view last;
  for (std::size_t at = 8; at < png.size();) {
    if (at + 12 > png.size()) {
      ADD_FAILURE() << "truncated chunk";
      return {0, 0};
    }
    std::size_t length = readBe(png, at, 4);
    std::string_view typed = png.substr(at + 4, 4 + length);
    if (readBe(png, at + 8 + length, 4) != crc32(typed)) {
      ADD_FAILURE() << "bad CRC in " << typed.substr(0, 4);
      return {0, 0};
    }
    last = typed.substr(0, 4);
    if (at == 8) {
      EXPECT_EQ(last, "IHDR");
      size = {static_cast<std::uint32_t>(readBe(png, at + 8, 4)),
              static_cast<std::uint32_t>(readBe(png, at + 12, 4))};
    }
    at += 12 + length;
  }
  EXPECT_EQ(last, "IEND");
  // The IEND chunk of every PNG, CRC included: checks crc32() against a constant.
  EXPECT_TRUE(png.ends_with(std::string_view("\0\0\0\0IEND\xAE\x42\x60\x82", 12)));
  return size;
}

}  // namespace llmux::mock::testing
