// POST …/v1/images/generations (JSON) and …/v1/images/edits (a form with `image` files): the
// same checks and the same answer. GPT image models (gpt-image-*, chatgpt-image-*) answer base64
// with usage and the settings used; DALL·E-style models (the default, as in the API) a URL or
// base64 without usage. Every image is the same tiny PNG pattern in colours derived from the
// prompt (png_image.h), whatever size or format was asked for.
#include <string>

#include "core/digest.h"
#include "core/strings.h"
#include "mock/answer_plan.h"
#include "mock/json_writer.h"
#include "mock/media_endpoints.h"
#include "mock/mock_errors.h"
#include "mock/png_image.h"

namespace llmux::mock::images {
namespace {

constexpr std::size_t kMaxPromptChars = 32000;
constexpr std::size_t kMaxInputImages = 16;
constexpr std::int64_t kTokensPerInputImage = 194;  // a round figure; the API's varies by image

/// What the request asks for, defaults filled in as the API fills them.
struct ImageAsk {
  std::string_view model = "dall-e-2";
  std::string_view prompt;
  std::string_view size = "auto";
  std::string_view quality = "auto";
  std::string_view background = "auto";
  std::string_view response_format = "url";
  std::string_view output_format = "png";
  std::int64_t n = 1;
  std::int64_t partial_images = 0;
  bool stream = false;
  std::size_t input_images = 0;
};

bool isGptImage(std::string_view model) {
  return model.starts_with("gpt-image") || model.starts_with("chatgpt-image");
}

/// "auto" or WIDTHxHEIGHT.
bool isSize(std::string_view size) {
  if (size == "auto") return true;
  auto x = size.find('x');
  auto digits = [](std::string_view s) {
    return !s.empty() && s.size() <= 5 &&
           s.find_first_not_of("0123456789") == std::string_view::npos;
  };
  return x != std::string_view::npos && digits(size.substr(0, x)) && digits(size.substr(x + 1));
}

std::optional<MockReply> readAsk(MediaCall const& call, bool edit, ImageAsk& ask) {
  MediaForm const& form = call.form;
  IdSource& ids = call.ids;
  std::optional<MockReply> refusal = readRequiredText(form, "prompt", ask.prompt, ids);
  if (!refusal && utf8CodePoints(ask.prompt) > kMaxPromptChars) {
    refusal = openai::stringTooLong(ids, "prompt", kMaxPromptChars, utf8CodePoints(ask.prompt));
  }
  if (!refusal) refusal = readText(form, "model", ask.model, ids);
  if (!refusal) refusal = readInteger(form, "n", 1, 10, ask.n, ids);
  if (!refusal) refusal = readText(form, "size", ask.size, ids);
  if (!refusal && !isSize(ask.size)) {
    refusal = openai::invalidValue(ids, "size", ask.size,
                                   {"1024x1024", "1536x1024", "1024x1536", "auto"});
  }
  if (!refusal) {
    refusal = readChoice(form, "quality",
                         {"low", "medium", "high", "xhigh", "max", "auto", "standard", "hd"},
                         ask.quality, ids);
  }
  if (!refusal) {
    refusal =
        readChoice(form, "background", {"transparent", "opaque", "auto"}, ask.background, ids);
  }
  if (!refusal) {
    refusal = readChoice(form, "response_format", {"url", "b64_json"}, ask.response_format, ids);
  }
  if (!refusal) {
    refusal = readChoice(form, "output_format", {"png", "webp", "jpeg", "gif", "svg"},
                         ask.output_format, ids);
  }
  if (!refusal) refusal = readBool(form, "stream", ask.stream, ids);
  if (!refusal) refusal = readInteger(form, "partial_images", 0, 3, ask.partial_images, ids);
  if (refusal || !edit) return refusal;
  if (form.fields.contains("image")) return openai::invalidType(ids, "image", "a file", "a string");
  ask.input_images = form.filesNamed("image").size();
  if (ask.input_images == 0) return missingFieldError(Vendor::OpenAi, ids, "image");
  if (ask.input_images > kMaxInputImages) {
    return openai::arrayTooLong(ids, "image", kMaxInputImages, ask.input_images);
  }
  return std::nullopt;
}

/// The settings a GPT image answer reports: what was asked, or what "auto" came to.
struct Settings {
  std::string_view size, quality, background;
};

Settings settingsOf(ImageAsk const& ask) {
  std::string_view q = ask.quality;
  bool named = q == "low" || q == "medium" || q == "high" || q == "xhigh" || q == "max";
  return {ask.size == "auto" ? "1024x1024" : ask.size, named ? q : "medium",
          ask.background == "transparent" ? "transparent" : "opaque"};
}

/// Output tokens of one image: gpt-image-1's figures for a square image.
std::int64_t outputTokensPerImage(std::string_view quality) {
  return quality == "low" ? 272 : quality == "medium" ? 1056 : 4160;
}

void writeUsage(JsonWriter& w, ImageAsk const& ask, std::int64_t images) {
  std::int64_t text = estimateTokens(ask.prompt.size());
  std::int64_t image = static_cast<std::int64_t>(ask.input_images) * kTokensPerInputImage;
  std::int64_t output = images * outputTokensPerImage(settingsOf(ask).quality);
  w.beginObject("usage").num("input_tokens", text + image).beginObject("input_tokens_details");
  w.num("image_tokens", image).num("text_tokens", text).endObject();
  w.num("output_tokens", output).num("total_tokens", text + image + output).endObject();
}

void writeSettings(JsonWriter& w, Settings const& settings) {
  w.str("size", settings.size).str("quality", settings.quality);
  w.str("background", settings.background).str("output_format", "png");
}

Rendered renderStream(MediaCall const& call, ImageAsk const& ask, bool edit, std::uint64_t seed) {
  Rendered out;
  beginSse(out.reply, "text/event-stream; charset=utf-8");
  std::string prefix = edit ? "image_edit." : "image_generation.";
  std::string partial = prefix + "partial_image";
  std::string completed = prefix + "completed";
  Settings settings = settingsOf(ask);
  std::int64_t created = call.ids.unixTime();
  std::string data;
  for (std::int64_t i = 0; i < ask.n; ++i) {
    for (std::int64_t p = 0; p < ask.partial_images; ++p) {
      JsonWriter w(data);
      w.beginObject().str("type", partial).str("b64_json", base64(tinyPng(seed + 100 * i + p + 1)));
      w.num("created_at", created);
      writeSettings(w, settings);
      w.num("partial_image_index", p).endObject();
      pushSse(out.reply, partial, data);
    }
    JsonWriter w(data);
    w.beginObject().str("type", completed).str("b64_json", base64(tinyPng(seed + 100 * i)));
    w.num("created_at", created);
    writeSettings(w, settings);
    writeUsage(w, ask, 1);
    w.endObject();
    pushSse(out.reply, completed, data);
  }
  return out;
}

Rendered renderWhole(MediaCall const& call, ImageAsk const& ask, std::uint64_t seed) {
  bool gpt = isGptImage(ask.model);
  std::string body;
  JsonWriter w(body, JsonStyle::Indent2);
  w.beginObject().num("created", call.ids.unixTime());
  Settings settings = settingsOf(ask);
  if (gpt) w.str("background", settings.background);
  w.beginArray("data");
  for (std::int64_t i = 0; i < ask.n; ++i) {
    w.beginObject();
    if (gpt || ask.response_format == "b64_json") {
      w.str("b64_json", base64(tinyPng(seed + 100 * i)));
    } else {
      // A reserved domain: the URL has the API's form but leads nowhere.
      w.str("url", "https://mock-images.invalid/img-" + call.ids.alnum(24) + ".png");
    }
    if (ask.model.starts_with("dall-e-3")) w.str("revised_prompt", ask.prompt);
    w.endObject();
  }
  w.endArray();
  if (gpt) {
    w.str("output_format", "png").str("quality", settings.quality).str("size", settings.size);
    writeUsage(w, ask, ask.n);
  }
  w.endObject();
  body.push_back('\n');
  Rendered out;
  setJsonBody(out.reply, 200, std::move(body), "application/json");
  return out;
}

}  // namespace

MediaOutcome answer(MediaCall const& call, bool edit) {
  ImageAsk ask;
  if (auto refusal = readAsk(call, edit, ask)) return MediaOutcome::refused(std::move(*refusal));
  std::uint64_t seed = hashBytes(ask.prompt, hashBytes(ask.model));
  Rendered out = ask.stream ? renderStream(call, ask, edit, seed) : renderWhole(call, ask, seed);
  addOpenAiAnswerHeaders(out.reply, call.ids);
  return MediaOutcome::answered(std::move(out));
}

}  // namespace llmux::mock::images
