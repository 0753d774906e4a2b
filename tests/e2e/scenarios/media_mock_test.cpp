// `llmux mock-provider` speaks OpenAI's media endpoints over real HTTP: JSON and multipart
// uploads of several MiB, speech streamed in paced chunks, and a video job polled to completion.
#include <gtest/gtest.h>

#include <boost/json/value.hpp>

#include "e2e/scenarios/media_support.h"
#include "e2e/scenarios/mock_journal.h"
#include "e2e/support/e2e_test.h"
#include "e2e/support/http_client.h"

namespace llmux::e2e {
namespace {

namespace json = boost::json;
using namespace media;

HeaderList jsonHeaders() { return media::jsonHeaders("sk-e2e"); }
HeaderList formHeaders() { return media::formHeaders("sk-e2e"); }

class MediaMock : public WithMockProvider {
 protected:
  Result<Response> post(std::string_view path, HeaderList const& headers, std::string_view body) {
    auto client = HttpClient::connect(mock_);
    if (!client) return client.error();
    return client->request("POST", path, headers, body, Millis(20'000));
  }

  Result<Response> get(std::string_view path) {
    auto client = HttpClient::connect(mock_);
    if (!client) return client.error();
    HeaderList headers;
    headers.add("Authorization", "Bearer sk-e2e");
    return client->request("GET", path, headers);
  }
};

TEST_F(MediaMock, EmbeddingsAndImageGenerationAnswerJson) {
  auto embeddings = post("/v1/embeddings", jsonHeaders(),
                         R"({"model":"text-embedding-3-small","input":["a","b"],"dimensions":64})");
  ASSERT_TRUE(embeddings.ok()) << embeddings.error().message;
  ASSERT_EQ(embeddings->status(), 200) << embeddings->body;
  json::value body = parsed(*embeddings);
  ASSERT_EQ(body.at("data").as_array().size(), 2u);
  EXPECT_EQ(body.at("data").at(1).at("embedding").as_array().size(), 64u);

  auto image = post("/v1/images/generations", jsonHeaders(),
                    R"({"model":"gpt-image-1","prompt":"A lighthouse"})");
  ASSERT_TRUE(image.ok()) << image.error().message;
  ASSERT_EQ(image->status(), 200) << image->body;
  EXPECT_TRUE(
      parsed(*image).at("data").at(0).at("b64_json").as_string().starts_with("iVBORw0KGgo"));
}

TEST_F(MediaMock, MultipartUploadsOfSeveralMebibytes) {
  std::string image = upload(3u << 20);
  auto edit = post("/v1/images/edits", formHeaders(),
                   Form()
                       .file("image[]", "photo.png", "image/png", image)
                       .file("image[]", "photo2.png", "image/png", image)
                       .field("prompt", "Add a red hat")
                       .field("model", "gpt-image-1")
                       .body());
  ASSERT_TRUE(edit.ok()) << edit.error().message;
  ASSERT_EQ(edit->status(), 200) << edit->body.substr(0, 300);
  EXPECT_EQ(parsed(*edit).at("usage").at("input_tokens_details").at("image_tokens"), 2 * 194);

  auto transcription = post("/v1/audio/transcriptions", formHeaders(),
                            Form()
                                .file("file", "meeting.mp3", "audio/mpeg", upload(5u << 20))
                                .field("model", "whisper-1")
                                .field("response_format", "verbose_json")
                                .body());
  ASSERT_TRUE(transcription.ok()) << transcription.error().message;
  ASSERT_EQ(transcription->status(), 200) << transcription->body.substr(0, 300);
  EXPECT_EQ(parsed(*transcription).at("usage").at("seconds"), 328);

  auto broken = post("/v1/audio/transcriptions", formHeaders(), "--e2eMediaBoundary0123\r\nno");
  ASSERT_TRUE(broken.ok()) << broken.error().message;
  EXPECT_EQ(broken->status(), 400);
  EXPECT_NE(broken->body.find("multipart body"), std::string::npos) << broken->body;
}

TEST_F(MediaMock, SpeechStreamsInSeveralPacedChunks) {
  auto client = HttpClient::connect(mock_);
  ASSERT_TRUE(client.ok()) << client.error().message;
  HeaderList headers = jsonHeaders();
  headers.add("x-mock-chunk-delay", "150");
  ASSERT_TRUE(client
                  ->sendRequest("POST", "/v1/audio/speech", headers,
                                R"({"model":"tts-1","voice":"alloy","input":"Hello from the mock",)"
                                R"("response_format":"wav"})")
                  .ok());
  auto head = client->readHead();
  ASSERT_TRUE(head.ok()) << head.error().message;
  EXPECT_EQ(head->status, 200);
  EXPECT_EQ(head->headers.get("content-type"), "audio/wav");
  EXPECT_EQ(head->headers.get("transfer-encoding"), "chunked");
  auto read = readPieces(*client);
  ASSERT_TRUE(read.ok()) << read.error().message;
  std::vector<BodyPiece>& pieces = *read;
  ASSERT_GE(pieces.size(), 3u);
  std::string audio;
  for (auto const& piece : pieces) audio += piece.data;
  EXPECT_EQ(audio.substr(0, 4), "RIFF");
  EXPECT_EQ(audio.substr(8, 4), "WAVE");
  // Each chunk waited 150 ms: they arrived spread out, not in one burst.
  auto spread = pieces.back().arrived - pieces.front().arrived;
  EXPECT_GE(spread, Millis(150 * static_cast<long>(pieces.size() - 1) - 50));
}

TEST_F(MediaMock, VideoJobPolledToCompletionThenDownloaded) {
  auto created = post("/v1/videos", formHeaders(),
                      Form()
                          .field("prompt", "Waves on a beach")
                          .field("model", "sora-2")
                          .field("seconds", "4")
                          .file("input_reference", "first.png", "image/png", upload(64u << 10))
                          .body());
  ASSERT_TRUE(created.ok()) << created.error().message;
  ASSERT_EQ(created->status(), 200) << created->body;
  json::value job = parsed(*created);
  EXPECT_EQ(job.at("status"), "queued");
  std::string id(job.at("id").as_string());

  auto early = get("/v1/videos/" + id + "/content");
  ASSERT_TRUE(early.ok()) << early.error().message;
  EXPECT_EQ(early->status(), 400);

  std::vector<std::string> statuses;
  for (int poll = 0; poll < 5 && (statuses.empty() || statuses.back() != "completed"); ++poll) {
    auto retrieved = get("/v1/videos/" + id);
    ASSERT_TRUE(retrieved.ok()) << retrieved.error().message;
    ASSERT_EQ(retrieved->status(), 200) << retrieved->body;
    statuses.emplace_back(parsed(*retrieved).at("status").as_string());
  }
  EXPECT_EQ(statuses, (std::vector<std::string>{"in_progress", "in_progress", "completed"}));

  auto content = get("/v1/videos/" + id + "/content");
  ASSERT_TRUE(content.ok()) << content.error().message;
  ASSERT_EQ(content->status(), 200);
  EXPECT_EQ(content->header("content-type"), "video/mp4");
  EXPECT_EQ(content->body.substr(4, 8), "ftypisom");
  EXPECT_GE(content->pieces.size(), 2u);

  auto unknown = get("/v1/videos/video_unknown");
  ASSERT_TRUE(unknown.ok()) << unknown.error().message;
  EXPECT_EQ(unknown->status(), 404);
}

TEST_F(MediaMock, JournalKeepsBinaryBodiesByteExact) {
  std::string form = Form()
                         .file("file", "clip.wav", "audio/wav", upload(200u << 10))
                         .field("model", "whisper-1")
                         .body();
  auto transcription = post("/v1/audio/transcriptions", formHeaders(), form);
  ASSERT_TRUE(transcription.ok()) << transcription.error().message;
  auto speech = post("/v1/audio/speech", jsonHeaders(),
                     R"({"model":"tts-1","voice":"alloy","input":"Hi","response_format":"flac"})");
  ASSERT_TRUE(speech.ok()) << speech.error().message;
  ASSERT_EQ(speech->status(), 200);

  auto journal = waitForJournal(mock_, 2);
  ASSERT_TRUE(journal.ok()) << journal.error().message;
  ASSERT_EQ(journal->size(), 2u);
  EXPECT_EQ((*journal)[0].path, "/v1/audio/transcriptions");
  EXPECT_EQ((*journal)[0].body, form);
  EXPECT_EQ((*journal)[1].path, "/v1/audio/speech");
  EXPECT_EQ((*journal)[1].response_body, speech->body);
  EXPECT_EQ((*journal)[1].response_body.substr(0, 4), "fLaC");
}

}  // namespace
}  // namespace llmux::e2e
