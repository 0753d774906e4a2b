// POST …/v1/embeddings: one unit-length vector per input, derived from a hash of the model and the
// input alone, so the same text always gets the same vector (in any request, at any position)
// and a shortened vector (`dimensions`) is the start of the full one, renormalised, as OpenAI's is.
#include <boost/json/value.hpp>
#include <cmath>
#include <cstring>
#include <vector>

#include "core/digest.h"
#include "mock/answer_plan.h"
#include "mock/json_writer.h"
#include "mock/media_endpoints.h"
#include "mock/mock_errors.h"

namespace llmux::mock::embeddings {
namespace {

namespace json = boost::json;

constexpr std::size_t kMaxInputs = 2048;        // the API's limit on inputs per request
constexpr std::int64_t kMaxInputTokens = 8192;  // every embedding model's context
constexpr std::size_t kMaxValues = 1u << 20;    // the mock's own bound on one answer (~30 MB)

/// text-embedding-3-large returns 3072 values; text-embedding-3-small, ada-002 and any other
/// model 1536.
std::int64_t nativeDimensions(std::string_view model) {
  return model.starts_with("text-embedding-3-large") ? 3072 : 1536;
}

/// One input to embed: what seeds its vector, and its token count.
struct Input {
  std::uint64_t seed = 0;
  std::int64_t tokens = 0;
};

bool isTokenArray(json::value const& value) {
  if (!value.is_array() || value.get_array().empty()) return false;
  for (auto const& token : value.get_array()) {
    if (!(token.is_int64() && token.get_int64() >= 0) && !token.is_uint64()) return false;
  }
  return true;
}

Input tokenInput(json::array const& tokens, std::uint64_t seed) {
  for (auto const& token : tokens) {
    std::uint64_t id =
        token.is_uint64() ? token.get_uint64() : static_cast<std::uint64_t>(token.get_int64());
    char bytes[8];
    std::memcpy(bytes, &id, sizeof(bytes));
    seed = hashBytes(std::string_view(bytes, sizeof(bytes)), seed);
  }
  return {seed, static_cast<std::int64_t>(tokens.size())};
}

/// The inputs of `input`: a non-empty string, an array of them, one token array or an array of
/// token arrays. nullopt for anything else (OpenAI's "'$.input' is invalid").
std::optional<std::vector<Input>> readInputs(json::value const& input, std::uint64_t seed) {
  std::vector<Input> inputs;
  auto addText = [&](json::string const& text) {
    if (text.empty()) return false;
    inputs.push_back({hashBytes(std::string_view(text), seed), estimateTokens(text.size())});
    return true;
  };
  if (input.is_string()) {
    if (!addText(input.get_string())) return std::nullopt;
    return inputs;
  }
  if (isTokenArray(input)) {
    inputs.push_back(tokenInput(input.get_array(), seed));
    return inputs;
  }
  if (!input.is_array() || input.get_array().empty()) return std::nullopt;
  for (auto const& element : input.get_array()) {
    if (element.is_string()) {
      if (!addText(element.get_string())) return std::nullopt;
    } else if (isTokenArray(element)) {
      inputs.push_back(tokenInput(element.get_array(), seed));
    } else {
      return std::nullopt;
    }
  }
  return inputs;
}

/// `dimensions` values in [-1, 1), scaled to unit length, as float32 (what the API computes in).
std::vector<float> vectorFor(std::uint64_t seed, std::int64_t dimensions) {
  IdSource source(seed);
  std::vector<double> values(static_cast<std::size_t>(dimensions));
  double norm = 0;
  for (double& value : values) {
    value = static_cast<double>(source.next() >> 11) * 0x1p-52 - 1.0;
    norm += value * value;
  }
  double scale = norm > 0 ? 1.0 / std::sqrt(norm) : 0.0;
  std::vector<float> out;
  out.reserve(values.size());
  for (double value : values) out.push_back(static_cast<float>(value * scale));
  return out;
}

/// The float32 values little-endian, base64-encoded: `encoding_format: "base64"`.
std::string base64Floats(std::vector<float> const& values) {
  std::string bytes;
  bytes.reserve(values.size() * 4);
  for (float value : values) {
    std::uint32_t bits;
    std::memcpy(&bits, &value, sizeof(bits));
    for (int shift = 0; shift < 32; shift += 8) bytes.push_back(static_cast<char>(bits >> shift));
  }
  return base64(bytes);
}

}  // namespace

MediaOutcome answer(MediaCall const& call) {
  MediaForm const& form = call.form;
  std::string_view model;
  if (auto refusal = readRequiredText(form, "model", model, call.ids)) {
    return MediaOutcome::refused(std::move(*refusal));
  }
  json::value const* input = form.fields.if_contains("input");
  if (input == nullptr) {
    return MediaOutcome::refused(missingFieldError(Vendor::OpenAi, call.ids, "input"));
  }
  std::string_view encoding = "float";
  if (auto refusal = readChoice(form, "encoding_format", {"float", "base64"}, encoding, call.ids)) {
    return MediaOutcome::refused(std::move(*refusal));
  }
  std::int64_t native = nativeDimensions(model);
  std::int64_t dimensions = native;
  if (auto refusal = readInteger(form, "dimensions", 1, native, dimensions, call.ids)) {
    return MediaOutcome::refused(std::move(*refusal));
  }
  if (form.fields.contains("dimensions") && model.find("ada-002") != std::string_view::npos) {
    return MediaOutcome::refused(openAiError(call.ids, 400,
                                             "This model does not support specifying dimensions.",
                                             "invalid_request_error"));
  }
  auto inputs = readInputs(*input, hashBytes(model));
  if (!inputs) {
    return MediaOutcome::refused(
        openAiError(call.ids, 400,
                    "'$.input' is invalid. Please check the API reference: "
                    "https://platform.openai.com/docs/api-reference.",
                    "invalid_request_error"));
  }
  if (inputs->size() > kMaxInputs) {
    return MediaOutcome::refused(
        openai::arrayTooLong(call.ids, "input", kMaxInputs, inputs->size()));
  }
  std::int64_t prompt_tokens = 0;
  bool too_long = call.faults.find(FaultKind::ContextOverflow) != nullptr;
  for (auto const& item : *inputs) {
    prompt_tokens += item.tokens;
    too_long |= item.tokens > kMaxInputTokens;
  }
  if (too_long) {
    return MediaOutcome::refused(
        openAiError(call.ids, 400, "Invalid 'input': maximum context length is 8192 tokens.",
                    "invalid_request_error"));
  }
  if (inputs->size() * static_cast<std::size_t>(dimensions) > kMaxValues) {
    return MediaOutcome::refused(openAiError(
        call.ids, 400,
        "The mock provider answers at most 1048576 embedding values per request (inputs x "
        "dimensions).",
        "invalid_request_error"));
  }

  std::string body;
  JsonWriter w(body, JsonStyle::Indent2);
  w.beginObject().str("object", "list").beginArray("data");
  for (std::size_t i = 0; i < inputs->size(); ++i) {
    std::vector<float> values = vectorFor((*inputs)[i].seed, dimensions);
    w.beginObject().str("object", "embedding").num("index", static_cast<std::int64_t>(i));
    if (encoding == "base64") {
      w.str("embedding", base64Floats(values));
    } else {
      w.beginArray("embedding");
      for (float value : values) w.num(static_cast<double>(value));
      w.endArray();
    }
    w.endObject();
  }
  w.endArray().str("model", model).beginObject("usage");
  w.num("prompt_tokens", prompt_tokens).num("total_tokens", prompt_tokens).endObject().endObject();
  body.push_back('\n');
  Rendered out;
  setJsonBody(out.reply, 200, std::move(body), "application/json");
  addOpenAiAnswerHeaders(out.reply, call.ids);
  return MediaOutcome::answered(std::move(out));
}

}  // namespace llmux::mock::embeddings
