// A channel's `media:` (docs/configuration.md#media): each modality as a boolean or a mapping of
// its paths, the row media requests go to, what a media route takes from it, and the reload's
// view of it (channelRoute).

#include <gtest/gtest.h>

#include "config/loader.h"
#include "config/media_routes.h"
#include "parse_helpers.h"

namespace llmux::config {
namespace {

using protocol::RouteKind;
using testing::issuesOf;
using testing::loaded;
using Lines = std::vector<std::string>;

/// One channel "c" speaking `protocol_fields` (`protocol: ...` or `protocols: [...]`) with
/// `media` (a YAML flow mapping) and `extra` fields.
std::string document(std::string const& media,
                     std::string const& protocol_fields = "protocol: openai-chat",
                     std::string const& extra = "") {
  return "gateway_keys: [{name: a, key: gw-secret}]\nchannels:\n  - {name: c, " + protocol_fields +
         ", base_url: \"https://api.example.com\", keys: [k1], models: [m]" + extra +
         (media.empty() ? std::string() : ", media: " + media) + "}\n";
}

TEST(MediaConfig, NoneByDefault) {
  auto settings = loaded(document(""));
  ASSERT_TRUE(settings);
  EXPECT_FALSE(settings->channels[0].media.any());
  EXPECT_EQ(settings->channels[0].media, MediaSettings{});
}

TEST(MediaConfig, EachModalityIsABooleanOrAMappingOfItsPaths) {
  auto settings = loaded(document(
      "{images: {path: /api/img/gen, edits_path: /api/img/edit}, videos: {path: /api/v3/videos}, "
      "speech: true, transcriptions: {}, embeddings: false}"));
  ASSERT_TRUE(settings);
  MediaSettings const& media = settings->channels[0].media;
  EXPECT_TRUE(media.any());
  EXPECT_EQ(media[Modality::Images], (MediaEndpoint{true, "/api/img/gen", "/api/img/edit"}));
  EXPECT_EQ(media[Modality::Videos], (MediaEndpoint{true, "/api/v3/videos", ""}));
  EXPECT_EQ(media[Modality::Speech], (MediaEndpoint{true, "", ""}));
  EXPECT_EQ(media[Modality::Transcriptions], (MediaEndpoint{true, "", ""}));  // {}: standard path
  EXPECT_FALSE(media.enables(Modality::Embeddings));
  EXPECT_EQ(media.row, 0u);
}

TEST(MediaConfig, AMappingMayTurnItsModalityOff) {
  auto settings =
      loaded(document("{images: {enabled: false, path: /img}, speech: {enabled: true}}"));
  ASSERT_TRUE(settings);
  MediaSettings const& media = settings->channels[0].media;
  EXPECT_FALSE(media.enables(Modality::Images));
  EXPECT_TRUE(media.enables(Modality::Speech));
  // Turned off everywhere: nothing to route, and no row needed.
  auto off = loaded(document("{images: false, videos: {enabled: false}}", "protocol: anthropic"));
  ASSERT_TRUE(off);
  EXPECT_FALSE(off->channels[0].media.any());
}

TEST(MediaConfig, TheRowIsTheOpenAiChatOneElseTheResponsesOne) {
  auto row = [](std::string const& protocols) -> std::size_t {
    auto settings = loaded(document("{embeddings: true}", protocols));
    return settings ? settings->channels[0].media.row : 99;
  };
  EXPECT_EQ(row("protocol: openai-responses"), 0u);
  EXPECT_EQ(row("protocols: [{protocol: anthropic}, {protocol: openai-responses}]"), 1u);
  EXPECT_EQ(row("protocols: [{protocol: openai-responses}, {protocol: gemini}, "
                "{protocol: openai-chat}]"),
            2u);
}

TEST(MediaConfig, AChannelWithoutAnOpenAiRowCannotServeMedia) {
  std::string const why =
      "channels[0].media: the media endpoints are OpenAI's API: they need an openai-chat or "
      "openai-responses row (this channel speaks ";
  EXPECT_EQ(issuesOf(document("{images: true}", "protocol: anthropic")),
            (Lines{why + "anthropic; add one with protocols:)"}));
  EXPECT_EQ(issuesOf(document("{speech: {path: /tts}}",
                              "protocols: [{protocol: anthropic}, {protocol: gemini}]")),
            (Lines{why + "anthropic, gemini; add one with protocols:)"}));
  // A preset's row is the first row's address spoken as the preset does: not a media endpoint.
  EXPECT_EQ(issuesOf(document("{images: true}", "protocol: anthropic",
                              ", client_preset: codex-cli")),
            (Lines{why + "anthropic; add one with protocols:)"}));
}

TEST(MediaConfig, MistakesAreReportedWithTheirPaths) {
  EXPECT_EQ(
      issuesOf(document("{images: {edits_path: img/edit, size: 1}, videos: {edits_path: /v, "
                        "enabled: maybe}, speech: yes, transcriptions: [1], music: true, "
                        "embeddings: {path: \"/a b\"}}")),
      (Lines{"channels[0].media.music: unknown key (expected one of images, videos, speech, "
             "transcriptions, embeddings)",
             "channels[0].media.images.size: unknown key (expected one of enabled, path, "
             "edits_path)",
             "channels[0].media.images.edits_path: must start with '/' (an absolute path on the "
             "base URL's host)",
             "channels[0].media.videos.edits_path: unknown key (expected one of enabled, path)",
             "channels[0].media.videos.enabled: expected true or false",
             "channels[0].media.speech: expected true, false or a mapping of enabled, path",
             "channels[0].media.transcriptions: expected true, false or a mapping of enabled, "
             "path",
             "channels[0].media.embeddings.path: must not contain spaces (percent-encode them as "
             "%20)"}));
  EXPECT_EQ(issuesOf(document("true")),
            (Lines{"channels[0].media: expected a mapping, got a scalar"}));
  EXPECT_EQ(issuesOf(document("{images: [1]}")),
            (Lines{"channels[0].media.images: expected true, false or a mapping of enabled, path, "
                   "edits_path"}));
  EXPECT_EQ(issuesOf(document("{images: {path: \"/v1/{model}/images\"}}")),
            (Lines{"channels[0].media.images.path: {model} is only allowed in the chat_path of a "
                   "gemini row"}));
  EXPECT_EQ(issuesOf(document("{videos: {path: \"/videos?x=1\"}}")),
            (Lines{"channels[0].media.videos.path: must not contain '?' or '#': the query string "
                   "is the gateway's (client query, query auth)"}));
}

TEST(MediaRoutes, EachMediaRouteHasItsModalityAndItsConfiguredPath) {
  MediaSettings media;
  media[Modality::Images] = {true, "/img/gen", "/img/edit"};
  media[Modality::Videos] = {true, "/api/v3/videos", ""};
  media[Modality::Speech] = {true, "", ""};
  EXPECT_EQ(modalityOf(RouteKind::ImageGenerations), Modality::Images);
  EXPECT_EQ(modalityOf(RouteKind::ImageEdits), Modality::Images);
  EXPECT_EQ(modalityOf(RouteKind::VideoCreate), Modality::Videos);
  EXPECT_EQ(modalityOf(RouteKind::VideoRetrieve), Modality::Videos);
  EXPECT_EQ(modalityOf(RouteKind::VideoContent), Modality::Videos);
  EXPECT_EQ(modalityOf(RouteKind::Speech), Modality::Speech);
  EXPECT_EQ(modalityOf(RouteKind::Transcriptions), Modality::Transcriptions);
  EXPECT_EQ(modalityOf(RouteKind::Embeddings), Modality::Embeddings);
  EXPECT_EQ(modalityOf(RouteKind::ChatCompletions), std::nullopt);
  EXPECT_EQ(modalityOf(RouteKind::ListModels), std::nullopt);

  EXPECT_EQ(configuredMediaPath(media, RouteKind::ImageGenerations), "/img/gen");
  EXPECT_EQ(configuredMediaPath(media, RouteKind::ImageEdits), "/img/edit");
  EXPECT_EQ(configuredMediaPath(media, RouteKind::VideoCreate), "/api/v3/videos");
  EXPECT_EQ(configuredMediaPath(media, RouteKind::VideoContent), "/api/v3/videos");
  EXPECT_EQ(configuredMediaPath(media, RouteKind::Speech), "");  // the standard one
  EXPECT_EQ(configuredMediaPath(media, RouteKind::ChatCompletions), "");
}

// A reload resets a channel's breakers when its route changes: its media endpoints are part of it.
TEST(ChannelRoute, ChangesWithTheMediaEndpointsAndTheirPaths) {
  auto route = [](std::string const& media) {
    auto settings = loaded(document(media));
    return settings ? channelRoute(*settings, settings->channels[0]) : std::string("(invalid)");
  };
  std::string const base = route("{images: true, videos: {path: /api/v3/videos}}");
  EXPECT_EQ(route("{videos: {path: /api/v3/videos}, images: {}, speech: false}"), base);
  EXPECT_NE(route(""), base);
  EXPECT_NE(route("{images: true}"), base);
  EXPECT_NE(route("{images: true, videos: {path: /api/v4/videos}}"), base);
  EXPECT_NE(route("{images: {edits_path: /e}, videos: {path: /api/v3/videos}}"), base);
  EXPECT_NE(route("{images: true, videos: {path: /api/v3/videos}, embeddings: true}"), base);
  // A modality turned off is no endpoint, whatever path it keeps.
  EXPECT_EQ(route("{speech: {enabled: false, path: /tts}}"), route(""));
}

}  // namespace
}  // namespace llmux::config
