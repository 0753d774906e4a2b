// POST …/v1/audio/transcriptions (a form with the audio `file`): a transcript made of plain words
// chosen by a hash of the file, as long as the audio (a WAV's duration is read from its header;
// any other file counts as 128 kbit/s). Token-billed models (gpt-*: gpt-4o-transcribe, …) take
// json and text (diarize models also diarized_json) and stream with `stream: true`; the others
// (whisper-1) take every format but diarized_json, report usage in seconds and never stream.
#include <algorithm>
#include <boost/json/value.hpp>
#include <cmath>
#include <cstdio>
#include <vector>

#include "mock/answer_plan.h"
#include "mock/json_writer.h"
#include "mock/media_endpoints.h"
#include "mock/mock_errors.h"

namespace llmux::mock::transcription {
namespace {

namespace json = boost::json;

constexpr std::string_view kWords[] = {
    "the",   "quick",  "brown", "fox",    "jumps", "over",  "a",       "lazy",
    "dog",   "while",  "we",    "listen", "to",    "quiet", "music",   "and",
    "talk",  "about",  "plans", "for",    "next",  "week",  "in",      "our",
    "small", "garden", "with",  "fresh",  "bread", "every", "morning", "today"};
constexpr std::size_t kWordsPerSegment = 12;
constexpr double kBytesPerSecond = 16000;  // a file that is not WAV counts as 128 kbit/s

struct Ask {
  std::string_view model;
  std::string_view format = "json";
  std::string_view language;
  std::string_view prompt;
  double temperature = 0;
  bool stream = false;
  bool words = false;    ///< timestamp_granularities has "word"
  bool segments = true;  ///< … has "segment", or is absent
};

bool tokenBilled(std::string_view model) {
  return model.starts_with("gpt-");
}

std::uint32_t readLe(std::string_view bytes, std::size_t at, int count) {
  std::uint32_t value = 0;
  for (int i = count - 1; i >= 0; --i) {
    value = (value << 8) | static_cast<unsigned char>(bytes[at + static_cast<std::size_t>(i)]);
  }
  return value;
}

/// A WAV file's duration from its fmt and data chunks; nullopt for anything else.
std::optional<double> wavSeconds(std::string_view file) {
  if (file.size() < 12 || file.substr(0, 4) != "RIFF" || file.substr(8, 4) != "WAVE") {
    return std::nullopt;
  }
  std::uint32_t byte_rate = 0;
  for (std::size_t at = 12; at + 8 <= file.size();) {
    std::string_view id = file.substr(at, 4);
    std::size_t size = readLe(file, at + 4, 4);
    std::size_t body = at + 8;
    if (id == "fmt " && size >= 16 && body + 16 <= file.size())
      byte_rate = readLe(file, body + 8, 4);
    if (id == "data") {
      if (byte_rate == 0) return std::nullopt;
      return static_cast<double>(std::min(size, file.size() - body)) / byte_rate;
    }
    if (size > file.size()) return std::nullopt;
    at = body + size + (size & 1);
  }
  return std::nullopt;
}

double roundMs(double seconds) {
  return std::round(seconds * 1000) / 1000;
}

/// The transcript: plain words picked by `seed`, about 2.5 a second (3 to 120).
std::vector<std::string_view> wordsFor(std::uint64_t seed, double seconds) {
  auto count = static_cast<std::size_t>(std::clamp(3.0 + seconds * 2.5, 3.0, 120.0));
  IdSource source(seed);
  std::vector<std::string_view> words;
  for (std::size_t i = 0; i < count; ++i)
    words.push_back(kWords[source.next() % std::size(kWords)]);
  return words;
}

/// Words joined into a sentence: capital first letter, full stop.
std::string sentence(std::vector<std::string_view> const& words, std::size_t from, std::size_t to) {
  std::string text;
  for (std::size_t i = from; i < to; ++i) {
    if (!text.empty()) text.push_back(' ');
    text.append(words[i]);
  }
  if (!text.empty() && text[0] >= 'a' && text[0] <= 'z') text[0] = static_cast<char>(text[0] - 32);
  return text + ".";
}

struct Segment {
  std::string text;
  double start = 0, end = 0;
  std::size_t first_word = 0, last_word = 0;  ///< [first, last)
};

struct Transcript {
  std::vector<std::string_view> words;
  std::vector<Segment> segments;
  std::string text;
  double seconds = 0;
};

Transcript transcribe(std::string_view file, double seconds) {
  Transcript t;
  t.seconds = roundMs(seconds);
  t.words = wordsFor(hashBytes(file), seconds);
  for (std::size_t from = 0; from < t.words.size(); from += kWordsPerSegment) {
    std::size_t to = std::min(from + kWordsPerSegment, t.words.size());
    double share = seconds / static_cast<double>(t.words.size());
    t.segments.push_back(
        {sentence(t.words, from, to), roundMs(share * from), roundMs(share * to), from, to});
    if (!t.text.empty()) t.text.push_back(' ');
    t.text += t.segments.back().text;
  }
  return t;
}

std::optional<MockReply> readGranularities(MediaForm const& form, Ask& ask, IdSource& ids) {
  json::value const* value = form.fields.if_contains("timestamp_granularities");
  if (value == nullptr) return std::nullopt;
  std::vector<json::value const*> items;
  if (value->is_array()) {
    for (auto const& item : value->get_array()) items.push_back(&item);
  } else {
    items.push_back(value);
  }
  ask.segments = false;
  for (json::value const* item : items) {
    std::string_view name = item->is_string() ? std::string_view(item->get_string()) : "";
    if (name != "word" && name != "segment") {
      return openai::invalidValue(ids, "timestamp_granularities", name, {"word", "segment"});
    }
    (name == "word" ? ask.words : ask.segments) = true;
  }
  return std::nullopt;
}

std::optional<MockReply> readAsk(MediaCall const& call, std::string_view& file, Ask& ask) {
  MediaForm const& form = call.form;
  IdSource& ids = call.ids;
  if (form.fields.contains("file")) return openai::invalidType(ids, "file", "a file", "a string");
  auto files = form.filesNamed("file");
  if (files.empty()) return missingFieldError(Vendor::OpenAi, ids, "file");
  file = files.front()->body;
  std::optional<MockReply> refusal = readRequiredText(form, "model", ask.model, ids);
  if (!refusal) {
    refusal = readChoice(form, "response_format",
                         {"json", "text", "srt", "verbose_json", "vtt", "diarized_json"},
                         ask.format, ids);
  }
  if (!refusal) refusal = readText(form, "language", ask.language, ids);
  if (!refusal) refusal = readText(form, "prompt", ask.prompt, ids);
  if (!refusal) refusal = readDecimal(form, "temperature", 0, 1, ask.temperature, ids);
  if (!refusal) refusal = readBool(form, "stream", ask.stream, ids);
  if (!refusal) refusal = readGranularities(form, ask, ids);
  if (refusal) return refusal;
  bool diarize = ask.model.find("diarize") != std::string_view::npos;
  bool allowed = tokenBilled(ask.model) ? ask.format == "json" || ask.format == "text" ||
                                              (diarize && ask.format == "diarized_json")
                                        : ask.format != "diarized_json";
  if (!allowed) {
    return openAiError(ids, 400,
                       "response_format '" + std::string(ask.format) +
                           "' is not compatible with model '" + std::string(ask.model) + "'.",
                       "invalid_request_error", "response_format", "unsupported_value");
  }
  if (file.empty()) {
    return openAiError(ids, 400, "Audio file might be corrupted or unsupported",
                       "invalid_request_error", "file", "invalid_value");
  }
  return std::nullopt;
}

void writeUsage(JsonWriter& w, Ask const& ask, Transcript const& t) {
  w.beginObject("usage");
  if (tokenBilled(ask.model)) {
    std::int64_t text = ask.prompt.empty() ? 0 : estimateTokens(ask.prompt.size());
    std::int64_t audio = std::max<std::int64_t>(1, std::llround(t.seconds * 10));
    std::int64_t output = estimateTokens(t.text.size());
    w.str("type", "tokens").num("input_tokens", text + audio);
    w.beginObject("input_token_details").num("text_tokens", text).num("audio_tokens", audio);
    w.endObject().num("output_tokens", output).num("total_tokens", text + audio + output);
  } else {
    w.str("type", "duration").num("seconds", static_cast<std::int64_t>(std::ceil(t.seconds)));
  }
  w.endObject();
}

/// Whisper's language names for the common codes; other codes are echoed.
std::string_view languageName(std::string_view code) {
  static constexpr std::pair<std::string_view, std::string_view> kNames[] = {
      {"en", "english"}, {"fr", "french"},     {"de", "german"},   {"es", "spanish"},
      {"it", "italian"}, {"pt", "portuguese"}, {"ja", "japanese"}, {"zh", "chinese"}};
  if (code.empty()) return "english";
  for (auto const& [from, name] : kNames) {
    if (from == code) return name;
  }
  return code;
}

void writeVerbose(JsonWriter& w, Ask const& ask, Transcript const& t, IdSource& ids) {
  w.str("task", "transcribe").str("language", languageName(ask.language));
  w.num("duration", t.seconds).str("text", t.text);
  if (ask.words) {
    w.beginArray("words");
    double share = t.seconds / static_cast<double>(t.words.size());
    for (std::size_t i = 0; i < t.words.size(); ++i) {
      w.beginObject().str("word", t.words[i]).num("start", roundMs(share * i));
      w.num("end", roundMs(share * (i + 1))).endObject();
    }
    w.endArray();
  }
  if (ask.segments) {
    w.beginArray("segments");
    for (std::size_t i = 0; i < t.segments.size(); ++i) {
      Segment const& s = t.segments[i];
      w.beginObject().num("id", static_cast<std::int64_t>(i)).num("seek", std::int64_t{0});
      w.num("start", s.start).num("end", s.end).str("text", " " + s.text).beginArray("tokens");
      for (std::size_t k = s.first_word; k < s.last_word; ++k) {
        w.num(static_cast<std::int64_t>(50364 + ids.next() % 20000));
      }
      w.endArray().num("temperature", ask.temperature).num("avg_logprob", -0.25);
      w.num("compression_ratio", 1.2).num("no_speech_prob", 0.01).endObject();
    }
    w.endArray();
  }
}

void writeDiarized(JsonWriter& w, Transcript const& t) {
  w.str("task", "transcribe").num("duration", t.seconds).str("text", t.text);
  w.beginArray("segments");
  for (std::size_t i = 0; i < t.segments.size(); ++i) {
    Segment const& s = t.segments[i];
    w.beginObject().str("type", "transcript.text.segment").str("id", "seg_" + std::to_string(i));
    w.num("start", s.start).num("end", s.end).str("text", s.text);
    w.str("speaker", i % 2 == 0 ? "A" : "B").endObject();
  }
  w.endArray();
}

/// "00:01:02,345" (SubRip) or "00:01:02.345" (WebVTT).
std::string timestamp(double seconds, char separator) {
  auto ms = static_cast<long long>(std::llround(seconds * 1000));
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%02lld:%02lld:%02lld%c%03lld", ms / 3600000, ms / 60000 % 60,
                ms / 1000 % 60, separator, ms % 1000);
  return buf;
}

std::string subtitles(Transcript const& t, bool vtt) {
  std::string out = vtt ? "WEBVTT\n\n" : "";
  for (std::size_t i = 0; i < t.segments.size(); ++i) {
    Segment const& s = t.segments[i];
    if (!vtt) out += std::to_string(i + 1) + "\n";
    out += timestamp(s.start, vtt ? '.' : ',') + " --> " + timestamp(s.end, vtt ? '.' : ',');
    out += "\n" + s.text + "\n\n";
  }
  return out;
}

Rendered renderStream(Ask const& ask, Transcript const& t) {
  Rendered out;
  beginSse(out.reply, "text/event-stream; charset=utf-8");
  std::string data;
  for (std::string_view piece : splitDeltas(t.text)) {
    JsonWriter(data)
        .beginObject()
        .str("type", "transcript.text.delta")
        .str("delta", piece)
        .endObject();
    pushSse(out.reply, {}, data);
  }
  JsonWriter w(data);
  w.beginObject().str("type", "transcript.text.done").str("text", t.text);
  writeUsage(w, ask, t);
  w.endObject();
  pushSse(out.reply, {}, data);
  return out;
}

}  // namespace

MediaOutcome answer(MediaCall const& call) {
  std::string_view file;
  Ask ask;
  if (auto refusal = readAsk(call, file, ask)) return MediaOutcome::refused(std::move(*refusal));
  double seconds =
      std::max(0.1, wavSeconds(file).value_or(static_cast<double>(file.size()) / kBytesPerSecond));
  Transcript t = transcribe(file, seconds);
  Rendered out;
  if (ask.stream && tokenBilled(ask.model)) {
    out = renderStream(ask, t);
  } else if (ask.format == "text" || ask.format == "srt" || ask.format == "vtt") {
    std::string body = ask.format == "text" ? t.text + "\n" : subtitles(t, ask.format == "vtt");
    setJsonBody(out.reply, 200, std::move(body), "text/plain; charset=utf-8");
  } else {
    std::string body;
    JsonWriter w(body, JsonStyle::Indent2);
    w.beginObject();
    if (ask.format == "verbose_json") {
      writeVerbose(w, ask, t, call.ids);
    } else if (ask.format == "diarized_json") {
      writeDiarized(w, t);
    } else {
      w.str("text", t.text);
    }
    writeUsage(w, ask, t);
    w.endObject();
    body.push_back('\n');
    setJsonBody(out.reply, 200, std::move(body), "application/json");
  }
  addOpenAiAnswerHeaders(out.reply, call.ids);
  return MediaOutcome::answered(std::move(out));
}

}  // namespace llmux::mock::transcription
