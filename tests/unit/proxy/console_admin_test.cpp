// The console's sessions and who they make a caller, and the admin API's live-state routes (an
// operator's freeze, pauses, limits) and the live tail's ring.
#include <gtest/gtest.h>

#include <boost/json/parse.hpp>

#include "admin_fixture.h"
#include "proxy/admin_identity.h"
#include "proxy/attempt_gates.h"
#include "proxy/console_handler.h"
#include "proxy/console_sessions.h"
#include "proxy/request_tail.h"
#include "proxy/runtime_admin.h"
#include "routing/key_health.h"
#include "shared_state/shared_limits.h"

namespace llmux::proxy {
namespace {

namespace json = boost::json;

config::AdminToken adminToken(std::string name, std::string secret, bool read_only = false) {
  return config::AdminToken{std::move(name), std::move(secret), read_only};
}

HeaderList cookieHeaders(std::string const& id, std::string const& csrf = {}) {
  HeaderList headers;
  headers.add("Cookie", "theme=dark; llmux_console=" + id);
  if (!csrf.empty()) headers.add("X-CSRF-Token", csrf);
  return headers;
}

TEST(ConsoleSessions, OpenFindAndCloseUntilTheyExpire) {
  ManualTimeSource clock;
  ConsoleSessions sessions(clock);
  auto opened = sessions.open(adminToken("ops", "secret-1"));
  EXPECT_EQ(opened.id.size(), 64u);  // 256 random bits
  EXPECT_EQ(opened.session.csrf.size(), 32u);
  EXPECT_EQ(opened.session.token_name, "ops");
  EXPECT_NE(opened.session.token_digest.find_first_not_of("0123456789abcdef"), 0u);
  EXPECT_EQ(opened.session.token_digest.find("secret"), std::string::npos);
  auto found = sessions.find(opened.id);
  ASSERT_TRUE(found);
  EXPECT_EQ(found->csrf, opened.session.csrf);
  EXPECT_FALSE(sessions.find(opened.id.substr(1)));
  EXPECT_FALSE(sessions.find(""));
  EXPECT_NE(sessions.open(adminToken("ops", "secret-1")).id, opened.id);

  clock.advance(ConsoleSessions::kLifetime - std::chrono::seconds(1));
  EXPECT_TRUE(sessions.find(opened.id));
  clock.advance(std::chrono::seconds(1));
  EXPECT_FALSE(sessions.find(opened.id)) << "expired";

  auto other = sessions.open(adminToken("ops", "secret-1"));
  EXPECT_TRUE(sessions.close(other.id));
  EXPECT_FALSE(sessions.close(other.id));
  EXPECT_FALSE(sessions.find(other.id));
}

TEST(ConsoleSessions, TheOldestGoesPastTheCap) {
  ManualTimeSource clock;
  ConsoleSessions sessions(clock);
  auto first = sessions.open(adminToken("ops", "s"));
  clock.advance(std::chrono::seconds(1));
  std::string last;
  for (std::size_t i = 1; i < ConsoleSessions::kMaxSessions; ++i) last = sessions.open(adminToken("ops", "s")).id;
  EXPECT_TRUE(sessions.find(first.id));
  sessions.open(adminToken("ops", "s"));
  EXPECT_FALSE(sessions.find(first.id));
  EXPECT_TRUE(sessions.find(last));
}

TEST(AdminIdentity, ATokenOrASessionWithItsCsrfOnChanges) {
  ManualTimeSource clock;
  ConsoleSessions sessions(clock);
  std::vector<config::AdminToken> tokens{adminToken("admin", "adm"), adminToken("viewer", "view", true)};
  auto admin = sessions.open(tokens[0]);
  auto viewer = sessions.open(tokens[1]);

  HeaderList bearer;
  bearer.add("Authorization", "Bearer view");
  auto by_token = identifyAdmin(bearer, "POST", tokens, &sessions);
  EXPECT_EQ(by_token.verdict, protocol::AdminAuth::Ok);
  EXPECT_EQ(by_token.name, "viewer");
  EXPECT_TRUE(by_token.read_only);
  EXPECT_FALSE(by_token.csrf_refused) << "a token is no cookie: nothing to forge";

  auto read = identifyAdmin(cookieHeaders(admin.id), "GET", tokens, &sessions);
  EXPECT_EQ(read.verdict, protocol::AdminAuth::Ok);
  EXPECT_EQ(read.name, "admin");
  EXPECT_FALSE(read.csrf_refused);
  EXPECT_TRUE(identifyAdmin(cookieHeaders(admin.id), "PUT", tokens, &sessions).csrf_refused);
  EXPECT_TRUE(identifyAdmin(cookieHeaders(admin.id, "0000"), "DELETE", tokens, &sessions).csrf_refused);
  EXPECT_TRUE(identifyAdmin(cookieHeaders(admin.id, viewer.session.csrf), "POST", tokens, &sessions)
                  .csrf_refused)
      << "another session's CSRF token";
  auto change = identifyAdmin(cookieHeaders(admin.id, admin.session.csrf), "POST", tokens, &sessions);
  EXPECT_EQ(change.verdict, protocol::AdminAuth::Ok);
  EXPECT_FALSE(change.csrf_refused);
  EXPECT_TRUE(identifyAdmin(cookieHeaders(viewer.id), "GET", tokens, &sessions).read_only);

  // A wrong token decides, whatever cookie comes with it; an unknown cookie is no credential.
  HeaderList wrong = cookieHeaders(admin.id);
  wrong.add("x-admin-token", "nope");
  EXPECT_EQ(identifyAdmin(wrong, "GET", tokens, &sessions).verdict, protocol::AdminAuth::Wrong);
  EXPECT_EQ(identifyAdmin(cookieHeaders("feed"), "GET", tokens, &sessions).verdict,
            protocol::AdminAuth::Missing);
  EXPECT_EQ(identifyAdmin(cookieHeaders(admin.id), "GET", tokens, nullptr).verdict,
            protocol::AdminAuth::Missing);

  // A rotated token (same name, new secret) or a removed one signs its sessions out; a role
  // changed since the sign-in holds at once.
  std::vector<config::AdminToken> rotated{adminToken("admin", "adm-2"), adminToken("viewer", "view")};
  EXPECT_EQ(identifyAdmin(cookieHeaders(admin.id), "GET", rotated, &sessions).verdict,
            protocol::AdminAuth::Missing);
  EXPECT_FALSE(identifyAdmin(cookieHeaders(viewer.id), "GET", rotated, &sessions).read_only);
  std::vector<config::AdminToken> none{adminToken("other", "x")};
  EXPECT_EQ(identifyAdmin(cookieHeaders(viewer.id), "GET", none, &sessions).verdict,
            protocol::AdminAuth::Missing);
}

TEST(ConsoleFiles, PathsStayInTheirFolderAndTypesFollowExtensions) {
  EXPECT_TRUE(isConsolePath("index.html"));
  EXPECT_TRUE(isConsolePath("pages/live-requests.js"));
  EXPECT_TRUE(isConsolePath("vendor/uPlot.iife.min.js"));
  for (char const* bad : {"", "../secret", "pages/../../x", ".env", "a//b", "/abs", "a/", "a b",
                          "a%2e%2e/b", "a\\\\b"}) {
    EXPECT_FALSE(isConsolePath(bad)) << bad;
  }
  EXPECT_EQ(consoleContentType("index.html"), "text/html; charset=utf-8");
  EXPECT_EQ(consoleContentType("app.js"), "text/javascript; charset=utf-8");
  EXPECT_EQ(consoleContentType("a/b.css"), "text/css; charset=utf-8");
  EXPECT_EQ(consoleContentType("logo.svg"), "image/svg+xml");
  EXPECT_EQ(consoleContentType("README"), "application/octet-stream");
}

class LiveStateTest : public AdminHandlerTest {
 protected:
  LiveStateTest() {
    config::Settings settings;
    settings.admin_tokens.push_back(adminToken("admin", "adm"));
    config::Channel channel;
    channel.name = "oa";
    config::ChannelKey key;
    key.label = "oa#0";
    key.id = "oa/0123456789ab";
    key.secret = "sk-never-shown";
    key.limits.rpm = 10;
    channel.keys.push_back(key);
    channel.model_limits["gpt-4o"] = routing::BucketLimits{0, 1000};
    settings.channels.push_back(channel);
    config::GatewayKey gateway_key;
    gateway_key.name = "team-a";
    gateway_key.secret = "gw-secret";
    gateway_key.limits.rpm = 60;
    gateway_key.limits.daily_cost_usd = 5;
    settings.gateway_keys.push_back(gateway_key);
    catalog = catalogOf(std::move(settings));
    handler.key_health = &key_health;
    handler.limits = &limits;
  }

  routing::KeyHealth key_health{clock};
  shared_state::SharedLimits limits{clock, std::nullopt};
};

TEST_F(LiveStateTest, AnOperatorFreezesAKeyAndItShowsLikeARulesFreeze) {
  auto made = call("POST", "/admin/freezes", "adm",
                   R"({"channel":"oa","key":"oa#0","model":"gpt-4o","minutes":30,"reason":"maintenance"})");
  ASSERT_EQ(made.status, 201) << made.body;
  auto freeze = json::parse(made.body).as_object();
  EXPECT_EQ(freeze.at("object").as_string(), "key+model");
  EXPECT_EQ(freeze.at("period").as_string(), "fixed");
  EXPECT_EQ(freeze.at("key").as_string(), "oa#0");
  EXPECT_EQ(freeze.at("until").as_string(), "2023-11-14T22:43:20Z");
  EXPECT_EQ(freeze.at("rule").as_string(), "manual");
  EXPECT_EQ(freeze.at("reason").as_string(), "operator: maintenance");
  EXPECT_TRUE(freezes.frozen("oa", "oa/0123456789ab", "gpt-4o"));
  EXPECT_FALSE(freezes.frozen("oa", "oa/0123456789ab", "gpt-4o-mini"));

  auto forever = call("POST", "/admin/freezes", "adm", R"({"channel":"oa"})");
  ASSERT_EQ(forever.status, 201);
  EXPECT_EQ(json::parse(forever.body).at("object").as_string(), "channel");
  EXPECT_TRUE(json::parse(forever.body).at("until").is_null());
  // The same object again: extended, never shortened (as a rule's freeze is).
  auto again = call("POST", "/admin/freezes", "adm", R"({"channel":"oa","minutes":5})");
  EXPECT_EQ(json::parse(again.body).at("id"), json::parse(forever.body).at("id"));
  EXPECT_TRUE(json::parse(again.body).at("until").is_null());
  auto week = call("POST", "/admin/freezes", "adm", R"({"channel":"oa","model":"o3","period":"week"})");
  EXPECT_EQ(json::parse(week.body).at("object").as_string(), "channel+model");
  EXPECT_EQ(json::parse(week.body).at("period").as_string(), "week");

  for (char const* bad : {R"({"channel":"nope"})", R"({"channel":"oa","key":"oa#9"})",
                          R"({"channel":"oa","minutes":0})", R"({"channel":"oa","minutes":5,"period":"today"})",
                          R"({"channel":"oa","period":"reset"})", R"({"channel":"oa","colour":"red"})",
                          R"([1])", "not json"}) {
    auto refused = call("POST", "/admin/freezes", "adm", bad);
    EXPECT_EQ(refused.status, 400) << bad;
    EXPECT_EQ(json::parse(refused.body).at("error").at("type").as_string(), "invalid_request_error");
  }
  EXPECT_EQ(freezes.list().size(), 3u);
}

TEST_F(LiveStateTest, PausesNameTheirKeyNeverItsSecret) {
  key_health.pauseModel("oa/0123456789ab", "gpt-4o", routing::KeyPause::RateLimited, std::chrono::seconds(30));
  key_health.pauseKey("gone/ffffffffffff", routing::KeyPause::Rejected, std::chrono::minutes(5));
  auto answer = call("GET", "/admin/pauses", "adm");
  ASSERT_EQ(answer.status, 200);
  auto const doc = json::parse(answer.body);
  auto const& pauses = doc.at("pauses").as_array();
  ASSERT_EQ(pauses.size(), 2u);
  auto const& gone = pauses[0].as_object();  // by key id: "gone/..." before "oa/..."
  EXPECT_TRUE(gone.at("channel").is_null()) << "a key that left the configuration";
  EXPECT_EQ(gone.at("key").as_string(), "gone/ffffffffffff");
  EXPECT_TRUE(gone.at("model").is_null());
  EXPECT_EQ(gone.at("reason").as_string(), "rejected");
  auto const& paused = pauses[1].as_object();
  EXPECT_EQ(paused.at("channel").as_string(), "oa");
  EXPECT_EQ(paused.at("key").as_string(), "oa#0");
  EXPECT_EQ(paused.at("model").as_string(), "gpt-4o");
  EXPECT_EQ(paused.at("reason").as_string(), "rate_limited");
  EXPECT_DOUBLE_EQ(paused.at("remaining_s").to_number<double>(), 30.0);
  EXPECT_EQ(answer.body.find("sk-never-shown"), std::string::npos);
  clock.advance(std::chrono::seconds(31));
  EXPECT_EQ(json::parse(call("GET", "/admin/pauses", "adm").body).at("pauses").as_array().size(), 1u);
}

TEST_F(LiveStateTest, LimitsShowWhatEachGatewayKeySpends) {
  routing::ClientLimits const l = catalog->settings().gateway_keys[0].limits;
  // One request answered (80 tokens, $0.25) and one still running, through the data path's calls.
  boost::asio::io_context io;
  boost::asio::co_spawn(io, [&]() -> net::Task<void> {
    auto done = co_await limits.admitClient("team-a", l, 100);
    co_await limits.finishClient("team-a", l, done, 100, 80, 0.25);
    co_await limits.admitClient("team-a", l, 10);
    // An attempt on oa#0 for gpt-4o took 1 request and 400 tokens from its buckets.
    config::Channel const& channel = catalog->settings().channels[0];
    co_await limits.tryBuckets(bucketDemandsFor(channel, channel.keys[0], "gpt-4o"), 400);
  }, boost::asio::detached);
  io.run();
  auto answer = call("GET", "/admin/limits", "adm");
  ASSERT_EQ(answer.status, 200);
  auto doc = json::parse(answer.body);
  EXPECT_FALSE(doc.at("shared").as_bool());
  auto const& key = doc.at("gateway_keys").as_array().at(0).as_object();
  EXPECT_EQ(key.at("name").as_string(), "team-a");
  EXPECT_EQ(key.at("limits").at("rpm").as_int64(), 60);
  EXPECT_DOUBLE_EQ(key.at("limits").at("daily_cost_usd").as_double(), 5.0);
  EXPECT_EQ(key.at("in_flight").as_int64(), 1);
  EXPECT_DOUBLE_EQ(key.at("spending").at("cost_today").as_double(), 0.25);
  EXPECT_EQ(answer.body.find("gw-secret"), std::string::npos);
  auto const& buckets = doc.at("buckets").as_array();
  ASSERT_EQ(buckets.size(), 2u);
  auto const& of_key = buckets[0].as_object();
  EXPECT_EQ(of_key.at("channel").as_string(), "oa");
  EXPECT_EQ(of_key.at("key").as_string(), "oa#0");
  EXPECT_TRUE(of_key.at("model").is_null());
  EXPECT_EQ(of_key.at("rpm").as_int64(), 10);
  EXPECT_DOUBLE_EQ(of_key.at("rpm_level").to_number<double>(), 9.0);
  EXPECT_TRUE(of_key.at("tpm_level").is_null()) << "no TPM limit on the key";
  auto const& of_model = buckets[1].as_object();
  EXPECT_TRUE(of_model.at("key").is_null());
  EXPECT_EQ(of_model.at("model").as_string(), "gpt-4o");
  EXPECT_DOUBLE_EQ(of_model.at("tpm_level").to_number<double>(), 600.0);
  EXPECT_EQ(answer.body.find("sk-never-shown"), std::string::npos);
}

TEST(RequestTail, KeepsTheNewestInOrderForItsWatchers) {
  RequestTail tail(3);
  EXPECT_FALSE(tail.watched());
  {
    RequestTail::Watch watch(tail);
    EXPECT_TRUE(tail.watched());
    for (int i = 1; i <= 5; ++i) tail.publish("r" + std::to_string(i), "{\"n\":" + std::to_string(i) + "}");
  }
  EXPECT_FALSE(tail.watched());
  EXPECT_EQ(tail.lastSeq(), 5u);
  auto all = tail.after(0);
  ASSERT_EQ(all.size(), 3u);  // the capacity: the oldest two went
  EXPECT_EQ(all[0].seq, 3u);
  EXPECT_EQ(all[2].json, "{\"n\":5}");
  EXPECT_EQ(all[2].id, "r5");
  auto newer = tail.after(4);
  ASSERT_EQ(newer.size(), 1u);
  EXPECT_EQ(newer[0].seq, 5u);
  EXPECT_TRUE(tail.after(5).empty());
}

}  // namespace
}  // namespace llmux::proxy
