#pragma once

// Requests to the mock's media endpoints and readers of what they answer, for the media tests.

#include <boost/json/value.hpp>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "mock/mock_provider.h"

namespace llmux::mock::testing {

inline constexpr std::string_view kFormBoundary = "----mockFormBoundary7MA4YWxkTrZu0gW";

/// POST `path` with a JSON body and a valid OpenAI key.
MockRequest jsonPost(std::string path, std::string body);

/// One field of a form: text, or a file when `filename` is set.
struct FormField {
  std::string name;
  std::string value;
  std::string filename;  ///< "" for a text field
  std::string content_type;
};

/// POST `path` with `fields` as multipart/form-data and a valid OpenAI key.
MockRequest formPost(std::string path, std::vector<FormField> const& fields);

/// GET `path` (with `query`) with a valid OpenAI key.
MockRequest getRequest(std::string path, std::string query = {});

/// The body parsed as JSON (the test fails on invalid JSON).
boost::json::value jsonOf(MockReply const& reply);

/// The `error` object of an OpenAI error body.
boost::json::object errorOf(MockReply const& reply);

/// Standard base64 decoded (the test fails on invalid input).
std::string decodeBase64(std::string_view text);

/// Reads a little- or big-endian unsigned integer of `count` bytes at `at`.
std::uint64_t readLe(std::string_view bytes, std::size_t at, int count);
std::uint64_t readBe(std::string_view bytes, std::size_t at, int count);

/// Checks a PNG's structure (signature, chunk CRCs, an IHDR first and an IEND last) and returns
/// its width and height; {0, 0} (and a test failure) when it is not a valid PNG.
std::pair<std::uint32_t, std::uint32_t> pngSize(std::string_view png);

}  // namespace llmux::mock::testing
