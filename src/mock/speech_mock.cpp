// POST …/v1/audio/speech: audio of the asked format (audio_bytes.h), streamed in several chunks
// as the API streams it, or as `speech.audio.delta` / `speech.audio.done` events with
// `stream_format: "sse"`. The length follows the input: 200 ms plus 15 ms a character, at most
// 10 s, divided by `speed`.
#include <algorithm>
#include <boost/json/value.hpp>

#include "core/digest.h"
#include "core/strings.h"
#include "mock/answer_plan.h"
#include "mock/audio_bytes.h"
#include "mock/json_writer.h"
#include "mock/media_endpoints.h"
#include "mock/mock_errors.h"

namespace llmux::mock::speech {
namespace {

namespace json = boost::json;

constexpr std::size_t kMaxInputChars = 4096;
constexpr std::size_t kSsePieceBytes = 4096;  // raw audio bytes per delta event

/// Splits the audio into about four chunks, none under 256 bytes or over 16 KiB.
std::size_t pieceBytes(std::size_t total) {
  return std::clamp<std::size_t>((total + 3) / 4, 256, 16u << 10);
}

/// `voice`: a built-in voice's name or a custom voice `{"id": …}`. Its text seeds the tone.
std::optional<MockReply> readVoice(MediaForm const& form, std::string_view& voice, IdSource& ids) {
  json::value const* value = form.fields.if_contains("voice");
  if (value == nullptr || value->is_null()) return missingFieldError(Vendor::OpenAi, ids, "voice");
  if (value->is_object()) {
    json::value const* id = value->get_object().if_contains("id");
    if (id == nullptr || !id->is_string() || id->get_string().empty()) {
      return missingFieldError(Vendor::OpenAi, ids, "voice.id");
    }
    voice = id->get_string();
    return std::nullopt;
  }
  return readRequiredText(form, "voice", voice, ids);
}

Rendered renderEvents(std::string const& audio, std::int64_t input_tokens,
                      std::int64_t output_tokens) {
  Rendered out;
  beginSse(out.reply, "text/event-stream; charset=utf-8");
  std::string data;
  std::string_view rest = audio;
  while (!rest.empty()) {
    JsonWriter(data)
        .beginObject()
        .str("type", "speech.audio.delta")
        .str("audio", base64(rest.substr(0, kSsePieceBytes)))
        .endObject();
    pushSse(out.reply, {}, data);
    rest.remove_prefix(std::min(rest.size(), kSsePieceBytes));
  }
  JsonWriter w(data);
  w.beginObject().str("type", "speech.audio.done").beginObject("usage");
  w.num("input_tokens", input_tokens).num("output_tokens", output_tokens);
  w.num("total_tokens", input_tokens + output_tokens).endObject().endObject();
  pushSse(out.reply, {}, data);
  return out;
}

}  // namespace

MediaOutcome answer(MediaCall const& call) {
  MediaForm const& form = call.form;
  IdSource& ids = call.ids;
  std::string_view model;
  std::string_view input;
  std::string_view voice;
  std::string_view format_name = "mp3";
  std::string_view stream_format = "audio";
  double speed = 1.0;
  std::optional<MockReply> refusal = readRequiredText(form, "model", model, ids);
  if (!refusal) refusal = readRequiredText(form, "input", input, ids);
  if (!refusal && utf8CodePoints(input) > kMaxInputChars) {
    refusal = openai::stringTooLong(ids, "input", kMaxInputChars, utf8CodePoints(input));
  }
  if (!refusal) refusal = readVoice(form, voice, ids);
  if (!refusal) {
    refusal = readChoice(form, "response_format", {"mp3", "opus", "aac", "flac", "wav", "pcm"},
                         format_name, ids);
  }
  if (!refusal) refusal = readDecimal(form, "speed", 0.25, 4.0, speed, ids);
  if (!refusal) refusal = readChoice(form, "stream_format", {"sse", "audio"}, stream_format, ids);
  if (refusal) return MediaOutcome::refused(std::move(*refusal));

  AudioFormat format = *audioFormatNamed(format_name);
  double natural_ms =
      std::min<double>(200.0 + 15.0 * static_cast<double>(utf8CodePoints(input)), 10000.0);
  auto duration_ms = static_cast<std::uint32_t>(natural_ms / speed);
  std::string audio = fakeAudio(format, duration_ms, hashBytes(input, hashBytes(voice)));
  Rendered out;
  if (stream_format == "sse") {
    out = renderEvents(audio, estimateTokens(input.size()), duration_ms / 20 + 1);
  } else {
    setChunkedBytes(out.reply, audioContentType(format), audio, pieceBytes(audio.size()));
  }
  addOpenAiAnswerHeaders(out.reply, ids);
  return MediaOutcome::answered(std::move(out));
}

}  // namespace llmux::mock::speech
