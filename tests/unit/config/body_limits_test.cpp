// `server.body_limits:` (docs/configuration.md#server): request paths of POST routes, with or
// without /v1, kept by route label; and the body limit each route gets (bodyLimitFor).

#include <gtest/gtest.h>

#include "config/loader.h"
#include "parse_helpers.h"

namespace llmux::config {
namespace {

using testing::issuesOf;
using testing::loaded;
using Lines = std::vector<std::string>;

/// A valid document whose `server:` holds `server` (YAML block lines, indented by two).
std::string document(std::string const& server) {
  return "gateway_keys: [{name: a, key: gw-secret}]\n"
         "channels:\n  - {name: c, protocol: openai-chat, base_url: \"https://o.example\", "
         "keys: [k1], models: [m]}\n"
         "server:\n" + server;
}

using Limits = std::map<std::string, std::size_t, std::less<>>;

TEST(BodyLimits, NoneByDefault) {
  auto settings = loaded(document("  threads: 1\n"));
  ASSERT_TRUE(settings);
  EXPECT_TRUE(settings->server.body_limits.empty());
}

TEST(BodyLimits, PathsWithOrWithoutV1AreKeptByTheirRoutesLabel) {
  auto settings = loaded(document("  body_limits:\n"
                                  "    /audio/transcriptions: 67108864\n"
                                  "    /v1/images/edits: 1073741824\n"
                                  "    /v1/chat/completions: 1048576\n"
                                  "    /messages: 2097152\n"
                                  "    /v1/videos: 1099511627776\n"
                                  "    \"/v1beta/models/gemini-2.5-pro:generateContent\": 4096\n"
                                  "    \"/v1beta/models/{model}:streamGenerateContent\": 8192\n"));
  ASSERT_TRUE(settings);
  EXPECT_EQ(settings->server.body_limits,
            (Limits{{"/v1/audio/transcriptions", 64u << 20},
                    {"/v1/images/edits", 1u << 30},
                    {"/v1/chat/completions", 1u << 20},
                    {"/v1/messages", 2u << 20},
                    {"/v1/videos", std::size_t{1} << 40},
                    {"/v1beta/models/{model}:generateContent", 4096},
                    {"/v1beta/models/{model}:streamGenerateContent", 8192}}));
}

TEST(BodyLimits, OnlyPostRoutesClientsCallAndEachOnce) {
  EXPECT_EQ(
      issuesOf(document("  body_limits:\n"
                        "    /v1/audio/transcriptions: 1024\n"
                        "    /audio/transcriptions: 2048\n"
                        "    /v1/models: 10\n"
                        "    /v1/videos/video_123/content: 10\n"
                        "    /healthz: 10\n"
                        "    /admin/route-preview: 10\n"
                        "    /v1/nope: 10\n"
                        "    v1/embeddings: 10\n"
                        "    /v1/embeddings: 0\n"
                        "    /v1/speech: 10\n"
                        "    /v1/audio/speech: 1099511627777\n"
                        "    /v1/messages: lots\n")),
      (Lines{"server.body_limits[\"/audio/transcriptions\"]: the same route "
             "(/v1/audio/transcriptions) as server.body_limits[\"/v1/audio/transcriptions\"]",
             "server.body_limits[\"/v1/models\"]: a GET route: it takes no request body",
             "server.body_limits[\"/v1/videos/video_123/content\"]: a GET route: it takes no "
             "request body",
             "server.body_limits[\"/healthz\"]: a GET route: it takes no request body",
             "server.body_limits[\"/admin/route-preview\"]: an admin route (body_limits are for "
             "the routes clients call)",
             "server.body_limits[\"/v1/nope\"]: not a route llmux serves (expected the path of a "
             "POST route, e.g. /v1/audio/transcriptions or /audio/transcriptions)",
             "server.body_limits[\"v1/embeddings\"]: not a route llmux serves (expected the path "
             "of a POST route, e.g. /v1/audio/transcriptions or /audio/transcriptions)",
             "server.body_limits[\"/v1/embeddings\"]: must be from 1 to 1099511627776",
             "server.body_limits[\"/v1/speech\"]: not a route llmux serves (expected the path of "
             "a POST route, e.g. /v1/audio/transcriptions or /audio/transcriptions)",
             "server.body_limits[\"/v1/audio/speech\"]: must be from 1 to 1099511627776",
             "server.body_limits[\"/v1/messages\"]: expected an integer from 1 to "
             "1099511627776"}));
  EXPECT_EQ(issuesOf(document("  body_limits: [/v1/videos]\n")),
            (Lines{"server.body_limits: expected a mapping, got a list"}));
}

TEST(BodyLimits, ARouteGetsItsOwnLimitElseTheUploadOneElseMaxBodyBytes) {
  ServerSettings server;  // max_body_bytes: 32 MiB
  EXPECT_EQ(server.bodyLimitFor("/v1/chat/completions", false), 32u << 20);
  EXPECT_EQ(server.bodyLimitFor("/v1/images/edits", true), ServerSettings::kUploadBodyLimit);
  EXPECT_EQ(ServerSettings::kUploadBodyLimit, 128u << 20);
  // An entry wins either way, smaller or larger.
  server.body_limits = {{"/v1/images/edits", 1u << 20}, {"/v1/chat/completions", 64u << 20}};
  EXPECT_EQ(server.bodyLimitFor("/v1/images/edits", true), 1u << 20);
  EXPECT_EQ(server.bodyLimitFor("/v1/chat/completions", false), 64u << 20);
  EXPECT_EQ(server.bodyLimitFor("/v1/audio/transcriptions", true), 128u << 20);
  EXPECT_EQ(server.bodyLimitFor("/v1/messages", false), 32u << 20);
  // An upload route never gets less than max_body_bytes without an entry of its own.
  server.max_body_bytes = 256u << 20;
  EXPECT_EQ(server.bodyLimitFor("/v1/audio/transcriptions", true), 256u << 20);
  server.max_body_bytes = 1024;
  EXPECT_EQ(server.bodyLimitFor("/v1/audio/transcriptions", true), 128u << 20);
  EXPECT_EQ(server.bodyLimitFor("/v1/embeddings", false), 1024u);
}

TEST(BodyLimits, ALoadedLimitIsWhatTheRouteGets) {
  auto settings = loaded(document("  max_body_bytes: 1048576\n"
                                  "  body_limits: {/audio/transcriptions: 536870912, "
                                  "/embeddings: 4194304}\n"));
  ASSERT_TRUE(settings);
  ServerSettings const& server = settings->server;
  EXPECT_EQ(server.bodyLimitFor("/v1/audio/transcriptions", true), 512u << 20);
  EXPECT_EQ(server.bodyLimitFor("/v1/embeddings", false), 4u << 20);
  EXPECT_EQ(server.bodyLimitFor("/v1/images/edits", true), 128u << 20);
  EXPECT_EQ(server.bodyLimitFor("/v1/chat/completions", false), 1u << 20);
}

}  // namespace
}  // namespace llmux::config
