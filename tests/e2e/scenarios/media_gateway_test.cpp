// The media endpoints through the gateway (docs/media.md), against `llmux mock-provider`: every
// endpoint with and without /v1, routed only to channels whose `media:` enables it, a model
// renamed inside a multipart upload, usage and cost per modality in the access log, failover on a
// 429, speech relayed as it is produced, per-route body limits, and a video job polled and
// downloaded through the channel and key that created it, across a restart of the gateway.
#include <gtest/gtest.h>

#include <csignal>

#include <boost/json/value.hpp>

#include "e2e/scenarios/failover_helpers.h"
#include "e2e/scenarios/media_support.h"
#include "e2e/scenarios/mock_journal.h"
#include "e2e/support/e2e_test.h"
#include "e2e/support/http_client.h"

namespace llmux::e2e {
namespace {

namespace json = boost::json;
using namespace media;

constexpr char kTenant[] = "sk-media-tenant-0001";
constexpr char kOther[] = "sk-media-other-0002";

/// Prices of every media model: each modality's unit has one.
constexpr char kPrices[] =
    "prices:\n"
    "  gpt-image-1: {input: 5, output: 40, per_image: 0.01}\n"
    "  tts-1: {per_million_characters: 15}\n"
    "  whisper-1: {per_second: 0.0001}\n"
    "  sora-2: {per_second: 0.1}\n"
    "  text-embedding-3-small: {input: 0.02, output: 0}\n";

constexpr char kMediaModels[] =
    "[gpt-image-1, tts-1, whisper-1, sora-2, text-embedding-3-small, gpt-4o-mini]";

std::string gatewayYaml(std::string const& channels, std::string const& extra = "") {
  return "listen: 127.0.0.1:0\n"
         "gateway_keys:\n"
         "  - {name: tenant, key: " + std::string(kTenant) + ", strategy: sequential}\n"
         "  - {name: other, key: " + std::string(kOther) + ", strategy: sequential}\n"
         "log: {access_log: access.log}\n" +
         std::string(kPrices) + extra + "channels:\n" + channels;
}

/// A channel on the mock; `media` is its `media:` value ("" for none).
std::string channelYaml(std::string const& name, std::uint16_t mock_port, std::string const& key,
                        std::string const& media, int priority = 0, std::string const& more = "") {
  std::string out = "  - name: " + name + "\n    protocol: openai-chat\n    base_url: " +
                    loopbackUrl(mock_port) + "\n    keys: [" + key + "]\n    models: " +
                    kMediaModels + "\n    priority: " + std::to_string(priority) + "\n";
  if (!media.empty()) out += "    media: " + media + "\n";
  return out + more;
}

constexpr char kAllMedia[] =
    "{images: true, videos: true, speech: true, transcriptions: true, embeddings: true}";

class MediaGateway : public WithMockProvider {
 protected:
  void startWith(std::string const& yaml) {
    auto gateway = startGatewayYaml(yaml);
    ASSERT_TRUE(gateway.ok()) << gateway.error().message;
    gateway_ = *gateway;
  }

  Result<Response> call(std::string_view method, std::string_view path, HeaderList headers,
                        std::string_view body = {}, std::string_view request_id = {}) {
    if (!request_id.empty()) headers.add("X-Request-Id", request_id);
    auto client = HttpClient::connect(gateway_.port);
    if (!client) return client.error();
    return client->request(method, path, headers, body, Millis(20'000));
  }

  Result<Response> get(std::string_view path, std::string_view key = kTenant) {
    HeaderList headers;
    headers.add("Authorization", "Bearer " + std::string(key));
    return call("GET", path, headers);
  }

  json::object accessLine(std::string_view request_id) {
    auto line = failover::waitForAccessLine(temp().path() + "/access.log", request_id);
    EXPECT_TRUE(line.ok()) << (line.ok() ? "" : line.error().message);
    return line.ok() ? *line : json::object();
  }

  Server gateway_;
};

/// The access line's media usage as "modality unit quantity".
std::string mediaOf(json::object const& line) {
  auto const* media = line.if_contains("media");
  if (media == nullptr || !media->is_object()) return "(none)";
  auto const& m = media->as_object();
  return std::string(m.at("modality").as_string()) + " " + std::string(m.at("unit").as_string()) +
         " " + json::serialize(m.at("quantity"));
}

double costOf(json::object const& line) {
  auto const* cost = line.if_contains("cost_usd");
  return cost != nullptr && cost->is_number() ? cost->to_number<double>() : -1;
}

TEST_F(MediaGateway, EveryEndpointWithAndWithoutV1IsServedAndAccountedInItsUnit) {
  // The transcription model is asked for by an alias: the gateway renames it inside the upload.
  startWith(gatewayYaml(channelYaml("openai", mock_, "sk-up-openai", kAllMedia, 0,
                                    "    model_map: {transcriber: whisper-1}\n")));

  auto image = call("POST", "/v1/images/generations", jsonHeaders(kTenant),
                    R"({"model":"gpt-image-1","prompt":"A lighthouse","n":2,"quality":"low"})", "img-1");
  ASSERT_TRUE(image.ok()) << image.error().message;
  ASSERT_EQ(image->status(), 200) << image->body;
  EXPECT_EQ(parsed(*image).at("data").as_array().size(), 2u);
  json::object image_line = accessLine("img-1");
  EXPECT_EQ(mediaOf(image_line), "images images 2");
  // 2 images at 0.01, 2 x 272 output tokens at 40/M, the prompt's 4 tokens at 5/M.
  EXPECT_NEAR(costOf(image_line), 2 * 0.01 + 544 * 40e-6 + 4 * 5e-6, 1e-9);

  auto edit = call("POST", "/images/edits", formHeaders(kTenant),
                   Form()
                       .file("image[]", "photo.png", "image/png", upload(256u << 10))
                       .field("prompt", "Add a hat")
                       .field("model", "gpt-image-1")
                       .body(),
                   "edit-1");
  ASSERT_TRUE(edit.ok()) << edit.error().message;
  ASSERT_EQ(edit->status(), 200) << edit->body.substr(0, 300);
  EXPECT_EQ(mediaOf(accessLine("edit-1")), "images images 1");

  auto speech = call("POST", "/v1/audio/speech", jsonHeaders(kTenant),
                     R"({"model":"tts-1","voice":"alloy","input":"Hello there","response_format":"wav"})",
                     "speech-1");
  ASSERT_TRUE(speech.ok()) << speech.error().message;
  ASSERT_EQ(speech->status(), 200);
  EXPECT_EQ(speech->header("content-type"), "audio/wav");
  EXPECT_EQ(speech->body.substr(0, 4), "RIFF");
  json::object speech_line = accessLine("speech-1");
  EXPECT_EQ(mediaOf(speech_line), "speech characters 11");
  EXPECT_NEAR(costOf(speech_line), 11 * 15e-6, 1e-12);

  std::string form = Form()
                         .file("file", "meeting.mp3", "audio/mpeg", upload(160'000))  // 10 s
                         .field("model", "transcriber")
                         .field("response_format", "verbose_json")
                         .body();
  auto transcription = call("POST", "/audio/transcriptions", formHeaders(kTenant), form, "stt-1");
  ASSERT_TRUE(transcription.ok()) << transcription.error().message;
  ASSERT_EQ(transcription->status(), 200) << transcription->body.substr(0, 300);
  json::object stt_line = accessLine("stt-1");
  EXPECT_EQ(mediaOf(stt_line), "transcriptions seconds 10");
  EXPECT_NEAR(costOf(stt_line), 10 * 0.0001, 1e-12);
  EXPECT_EQ(stt_line.at("model"), "transcriber");

  auto embeddings = call("POST", "/embeddings", jsonHeaders(kTenant),
                         R"({"model":"text-embedding-3-small","input":["abcdefgh","ijkl"]})", "emb-1");
  ASSERT_TRUE(embeddings.ok()) << embeddings.error().message;
  ASSERT_EQ(embeddings->status(), 200) << embeddings->body;
  json::object emb_line = accessLine("emb-1");
  EXPECT_EQ(mediaOf(emb_line), "embeddings tokens 5");  // 8/4+1 + 4/4+1
  EXPECT_EQ(emb_line.at("usage").at("input"), 5);

  // What reached the provider: each endpoint's standard path, the channel's key, the upload
  // byte for byte but for the renamed model, and never the gateway key.
  auto journal = waitForJournal(mock_, 5);
  ASSERT_TRUE(journal.ok()) << journal.error().message;
  std::vector<std::string> paths;
  for (auto const& entry : *journal) {
    paths.push_back(entry.path);
    EXPECT_EQ(entry.headers.get("authorization"), "Bearer sk-up-openai");
    EXPECT_EQ(entry.body.find(kTenant), std::string::npos);
  }
  EXPECT_EQ(paths, (std::vector<std::string>{"/v1/images/generations", "/v1/images/edits",
                                             "/v1/audio/speech", "/v1/audio/transcriptions",
                                             "/v1/embeddings"}));
  std::string renamed = form;
  renamed.replace(renamed.find("transcriber"), 11, "whisper-1");
  EXPECT_EQ((*journal)[3].body, renamed);
}

TEST_F(MediaGateway, OnlyChannelsThatEnableTheModalityServeIt) {
  // "chat-only" lists the same models and comes first, but enables no media; "pictures" enables
  // images only.
  startWith(gatewayYaml(channelYaml("chat-only", mock_, "sk-up-chat", "", 10) +
                        channelYaml("pictures", mock_, "sk-up-pictures", "{images: true}")));
  auto image = call("POST", "/v1/images/generations", jsonHeaders(kTenant),
                    R"({"model":"gpt-image-1","prompt":"x"})");
  ASSERT_TRUE(image.ok()) << image.error().message;
  EXPECT_EQ(image->status(), 200) << image->body;
  auto speech = call("POST", "/v1/audio/speech", jsonHeaders(kTenant),
                     R"({"model":"tts-1","voice":"alloy","input":"hi"})");
  ASSERT_TRUE(speech.ok()) << speech.error().message;
  EXPECT_EQ(speech->status(), 404);
  EXPECT_NE(speech->body.find("not served for speech"), std::string::npos) << speech->body;
  EXPECT_NE(speech->body.find("\"error\""), std::string::npos) << speech->body;
  // Chat goes on as before, to the channel of higher priority.
  auto chat = call("POST", "/v1/chat/completions", jsonHeaders(kTenant),
                   R"({"model":"gpt-4o-mini","messages":[{"role":"user","content":"hi"}]})");
  ASSERT_TRUE(chat.ok()) << chat.error().message;
  EXPECT_EQ(chat->status(), 200) << chat->body;
  auto journal = waitForJournal(mock_, 2);
  ASSERT_TRUE(journal.ok()) << journal.error().message;
  EXPECT_EQ(keysOf(*journal), (std::vector<std::string>{"sk-up-pictures", "sk-up-chat"}));

  // Bad requests get OpenAI's error shape, without reaching any upstream.
  auto no_model = call("POST", "/v1/images/generations", jsonHeaders(kTenant), R"({"prompt":"x"})");
  ASSERT_TRUE(no_model.ok());
  EXPECT_EQ(no_model->status(), 400);
  EXPECT_NE(no_model->body.find("missing the required field"), std::string::npos) << no_model->body;
  auto json_upload = call("POST", "/v1/audio/transcriptions", jsonHeaders(kTenant), R"({"model":"whisper-1"})");
  ASSERT_TRUE(json_upload.ok());
  EXPECT_EQ(json_upload->status(), 400);
  EXPECT_NE(json_upload->body.find("multipart/form-data"), std::string::npos) << json_upload->body;
  auto wrong_method = get("/v1/images/generations");
  ASSERT_TRUE(wrong_method.ok());
  EXPECT_EQ(wrong_method->status(), 405);
  auto still = fetchJournal(mock_);
  ASSERT_TRUE(still.ok());
  EXPECT_EQ(still->size(), 2u);
}

TEST_F(MediaGateway, A429FailsOverAndSpeechIsRelayedAsItIsProduced) {
  startWith(gatewayYaml(
      channelYaml("limited", mock_, "sk-up-limited", kAllMedia, 10,
                  "    headers: {x-mock-fault: '429=30'}\n") +
      channelYaml("spare", mock_, "sk-up-spare", kAllMedia, 0,
                  "    headers: {x-mock-chunk-delay: '150'}\n")));
  auto image = call("POST", "/v1/images/generations", jsonHeaders(kTenant),
                    R"({"model":"gpt-image-1","prompt":"x"})", "img-429");
  ASSERT_TRUE(image.ok()) << image.error().message;
  ASSERT_EQ(image->status(), 200) << image->body;
  json::object line = accessLine("img-429");
  ASSERT_EQ(line.at("attempts").as_int64(), 2);
  EXPECT_EQ(line.at("channel"), "spare");
  EXPECT_EQ(mediaOf(line), "images images 1");

  // The limited key is paused now: speech goes straight to the spare channel, whose audio comes
  // in chunks 150 ms apart; the client gets them as they come, not at the end.
  auto client = HttpClient::connect(gateway_.port);
  ASSERT_TRUE(client.ok()) << client.error().message;
  ASSERT_TRUE(client
                  ->sendRequest("POST", "/v1/audio/speech", jsonHeaders(kTenant),
                                R"({"model":"tts-1","voice":"alloy","input":"Hello from the gateway",)"
                                R"("response_format":"wav"})")
                  .ok());
  auto head = client->readHead();
  ASSERT_TRUE(head.ok()) << head.error().message;
  ASSERT_EQ(head->status, 200);
  EXPECT_EQ(head->headers.get("content-type"), "audio/wav");
  auto read = readPieces(*client);
  ASSERT_TRUE(read.ok()) << read.error().message;
  std::vector<BodyPiece>& pieces = *read;
  ASSERT_GE(pieces.size(), 3u);
  EXPECT_EQ(pieces.front().data.substr(0, 4), "RIFF");
  // The mock sends about four chunks 150 ms apart: the first reached the client long before the
  // last was produced.
  EXPECT_GE(pieces.back().arrived - pieces.front().arrived, Millis(300));
}

TEST_F(MediaGateway, UploadsHaveTheirOwnBodyLimit) {
  startWith(gatewayYaml(channelYaml("openai", mock_, "sk-up-openai", kAllMedia),
                        "server: {max_body_bytes: 1048576, body_limits: {/v1/audio/transcriptions: 4194304}}\n"));
  auto upload_of = [&](std::size_t size) {
    return call("POST", "/v1/audio/transcriptions", formHeaders(kTenant),
                Form().file("file", "a.mp3", "audio/mpeg", upload(size)).field("model", "whisper-1").body());
  };
  auto fits = upload_of(2u << 20);
  ASSERT_TRUE(fits.ok()) << fits.error().message;
  EXPECT_EQ(fits->status(), 200) << fits->body.substr(0, 300);
  // Over a route's limit: refused on the declared length, before a byte of the body is read.
  auto declared = [&](std::string_view path, std::string_view type, std::size_t length) -> Result<Response> {
    auto client = HttpClient::connect(gateway_.port);
    if (!client) return client.error();
    auto sent = client->sendRaw("POST " + std::string(path) + " HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " +
                                std::string(kTenant) + "\r\nContent-Type: " + std::string(type) +
                                "\r\nContent-Length: " + std::to_string(length) + "\r\n\r\n");
    if (!sent) return sent.error();
    return client->readResponse();
  };
  auto too_big = declared("/v1/audio/transcriptions", formHeaders(kTenant).get("content-type"), 5u << 20);
  ASSERT_TRUE(too_big.ok()) << too_big.error().message;
  EXPECT_EQ(too_big->status(), 413);
  EXPECT_NE(too_big->body.find("4194304"), std::string::npos) << too_big->body;
  // JSON routes keep the server's limit.
  auto json_too_big = declared("/v1/embeddings", "application/json", 2u << 20);
  ASSERT_TRUE(json_too_big.ok()) << json_too_big.error().message;
  EXPECT_EQ(json_too_big->status(), 413);
  EXPECT_NE(json_too_big->body.find("1048576"), std::string::npos) << json_too_big->body;
  // A refused credential is refused on the head, whatever the route's limit.
  auto anonymous = call("POST", "/v1/audio/transcriptions", formHeaders("sk-wrong"), "x");
  ASSERT_TRUE(anonymous.ok());
  EXPECT_EQ(anonymous->status(), 401);
}

TEST_F(MediaGateway, WhatMediaCostsCountsAgainstTheGatewayKeysBudget) {
  // The tenant may spend 0.5 USD a day; one 8-second video costs 0.8.
  std::string yaml = gatewayYaml(channelYaml("openai", mock_, "sk-up-openai", kAllMedia));
  yaml.replace(yaml.find("strategy: sequential}"), 21, "strategy: sequential, limits: {daily_cost_usd: 0.5}}");
  startWith(yaml);
  auto created = call("POST", "/v1/videos", jsonHeaders(kTenant),
                      R"({"model":"sora-2","prompt":"Waves","seconds":"8"})", "video-budget");
  ASSERT_TRUE(created.ok()) << created.error().message;
  ASSERT_EQ(created->status(), 200) << created->body;
  // The cost is settled when the request ends, just after its answer went out: its access-log
  // line is written after that.
  EXPECT_NEAR(costOf(accessLine("video-budget")), 0.8, 1e-9);
  auto refused = call("POST", "/v1/audio/speech", jsonHeaders(kTenant),
                      R"({"model":"tts-1","voice":"alloy","input":"one more"})");
  ASSERT_TRUE(refused.ok()) << refused.error().message;
  EXPECT_EQ(refused->status(), 429) << refused->body;
  EXPECT_NE(refused->body.find("daily_cost_usd"), std::string::npos) << refused->body;
  EXPECT_FALSE(refused->header("retry-after").empty());
}

TEST_F(MediaGateway, AVideoJobIsPolledAndDownloadedWhereItWasCreatedEvenAfterARestart) {
  // Two channels serve sora-2 with keys of their own; the tenant's sequential strategy starts on
  // "first", so the job is created there and "second" must never see its polls.
  std::string yaml = gatewayYaml(channelYaml("first", mock_, "sk-up-first", "{videos: true}", 0) +
                                 channelYaml("second", mock_, "sk-up-second", "{videos: {path: /v1/videos}}", 0));
  startWith(yaml);
  HeaderList headers = formHeaders(kTenant);
  headers.add("x-mock-video-polls", "2");
  auto created = call("POST", "/v1/videos", headers,
                      Form().field("prompt", "Waves").field("model", "sora-2").field("seconds", "8").body(),
                      "video-create");
  ASSERT_TRUE(created.ok()) << created.error().message;
  ASSERT_EQ(created->status(), 200) << created->body;
  std::string id(parsed(*created).at("id").as_string());
  json::object line = accessLine("video-create");
  EXPECT_EQ(mediaOf(line), "videos seconds 8");
  EXPECT_NEAR(costOf(line), 0.8, 1e-9);
  std::string const creator = std::string(line.at("channel").as_string());

  auto first_poll = get("/v1/videos/" + id);
  ASSERT_TRUE(first_poll.ok()) << first_poll.error().message;
  ASSERT_EQ(first_poll->status(), 200) << first_poll->body;
  EXPECT_EQ(parsed(*first_poll).at("status"), "in_progress");

  // Another tenant cannot see the job; an id nobody created is unknown. Both in OpenAI's shape.
  for (auto [path, key] : {std::pair<std::string, char const*>{"/v1/videos/" + id, kOther},
                           {"/v1/videos/video_nobody_made_this", kTenant}}) {
    auto refused = get(path, key);
    ASSERT_TRUE(refused.ok()) << refused.error().message;
    EXPECT_EQ(refused->status(), 404) << path;
    EXPECT_NE(refused->body.find("\"error\""), std::string::npos) << refused->body;
    EXPECT_NE(refused->body.find("no video found"), std::string::npos) << refused->body;
  }

  // A restart: the mapping comes back from the state database.
  ASSERT_TRUE(gateway_.process->signal(SIGINT).ok());
  auto stopped = gateway_.process->waitExit(Millis(10'000));
  ASSERT_TRUE(stopped.ok()) << stopped.error().message;
  startWith(yaml);

  auto second_poll = get("/videos/" + id);
  ASSERT_TRUE(second_poll.ok()) << second_poll.error().message;
  ASSERT_EQ(second_poll->status(), 200) << second_poll->body;
  EXPECT_EQ(parsed(*second_poll).at("status"), "completed");
  auto content = get("/v1/videos/" + id + "/content");
  ASSERT_TRUE(content.ok()) << content.error().message;
  ASSERT_EQ(content->status(), 200) << content->body.substr(0, 300);
  EXPECT_EQ(content->header("content-type"), "video/mp4");
  EXPECT_EQ(content->body.substr(4, 8), "ftypisom");
  EXPECT_GE(content->body.size(), 8u * 16u * 1024u) << "16 KiB a second of video";
  auto thumbnail = get("/v1/videos/" + id + "/content?variant=thumbnail");
  ASSERT_TRUE(thumbnail.ok());
  EXPECT_EQ(thumbnail->header("content-type"), "image/png");

  // Every call of the job went to the creating channel's key.
  auto journal = waitForJournal(mock_, 5);
  ASSERT_TRUE(journal.ok()) << journal.error().message;
  std::string const creator_key = creator == "first" ? "sk-up-first" : "sk-up-second";
  for (auto const& entry : *journal) EXPECT_EQ(keysOf({entry}).front(), creator_key) << entry.path;
  EXPECT_EQ((*journal)[4].query, "variant=thumbnail");
}

}  // namespace
}  // namespace llmux::e2e
