// The configuration's objects through the admin API end to end (docs/admin-api.md): a channel
// and a gateway key created, changed and deleted on a running gateway take traffic at once; the
// file's objects are shown with their secrets masked; versions guard against lost updates;
// invalid changes are refused with their paths; every change is audited without secrets; the
// objects outlive a restart and a reload of the file, and runtime state (a freeze) is kept.
#include <gtest/gtest.h>

#include <signal.h>

#include <fstream>
#include <thread>

#include "e2e/scenarios/failover_helpers.h"
#include "e2e/scenarios/routing_support.h"
#include "e2e/support/e2e_test.h"
#include "e2e/support/llmux_processes.h"

namespace llmux::e2e {
namespace {

using namespace failover;
using namespace routing_scenarios;

class AdminObjects : public E2eTest {
 protected:
  void SetUp() override {
    E2eTest::SetUp();
    auto started = startMockProvider();
    ASSERT_TRUE(started.ok()) << started.error().message;
    mock_ = std::move(*started);
  }

  std::string fileYaml(std::string const& extra = {}) {
    // The mock answers 403 to a key holding "forbidden": the default rule freezes it.
    auto banned = channel("banned", Protocol::OpenAiChat, mock_.baseUrl(), {"k-forbidden-1"}, 10);
    auto live = channel("live", Protocol::OpenAiChat, mock_.baseUrl(), {"sk-file-secret-1"});
    GatewayConfig c = gatewayConfig({banned, live}, temp().path() + "/access.log");
    c.extra_yaml += std::string("admin_token: ") + kAdminToken + "\n";
    c.extra_yaml += "server: {lame_duck_ms: 0}\n" + extra;
    return toYaml(c);
  }

  /// A gateway of a configuration file the test can rewrite (and start again).
  Result<Server> start(std::string const& yaml) {
    config_path_ = writeTempFile(yaml);
    return restart();
  }
  Result<Server> restart() { return startServer(gatewayOptions(binary(), config_path_, {})); }

  Result<Response> call(std::uint16_t port, std::string method, std::string target,
                        std::string body = {}, std::string if_match = {}) {
    ClientCall request = adminCall(std::move(method), std::move(target), std::move(body));
    if (!if_match.empty()) request.headers.add("If-Match", if_match);
    return callGateway(port, request);
  }

  boost::json::object json(Result<Response> const& answer, int status) {
    EXPECT_TRUE(answer.ok()) << answer.error().message;
    if (!answer.ok()) return {};
    EXPECT_EQ(answer->status(), status) << answer->body;
    auto doc = parseObject(answer->body);
    return doc.ok() ? *doc : boost::json::object{};
  }

  /// A chat call for `model` with `key` as the gateway key.
  Result<Response> chat(std::uint16_t port, std::string const& model,
                        std::string const& key = kGatewayKey) {
    ClientCall request = clientCall(Protocol::OpenAiChat, false, model);
    request.headers.set("Authorization", "Bearer " + key);
    return callGateway(port, request);
  }

  /// The status of an answer (-1, with the reason, when there was none).
  static int statusOf(Result<Response> const& answer) {
    EXPECT_TRUE(answer.ok()) << answer.error().message;
    return answer.ok() ? answer->status() : -1;
  }

  Server mock_;
  std::string config_path_;
};

TEST_F(AdminObjects, ChannelsAndGatewayKeysAreManagedLiveVersionedAndAudited) {
  auto gateway = start(fileYaml());
  ASSERT_TRUE(gateway.ok()) << gateway.error().message;
  std::uint16_t const port = gateway->port;

  // The file's channels, secrets masked.
  auto listed = call(port, "GET", "/admin/channels");
  ASSERT_TRUE(listed.ok());
  EXPECT_EQ(listed->body.find("sk-file-secret-1"), std::string::npos) << listed->body;
  auto channels = json(listed, 200).at("channels").as_array();
  ASSERT_EQ(channels.size(), 2u);
  EXPECT_EQ(channels[1].at("source").as_string(), "file");
  EXPECT_EQ(channels[1].at("version").as_int64(), 0);
  EXPECT_EQ(channels[1].at("object").at("keys").as_array()[0].as_string(), "***");

  // A freeze made before the changes (runtime state every change must keep).
  ASSERT_TRUE(chat(port, kModel).ok());
  auto freezes_before = adminJson(port, "GET", "/admin/freezes").at("freezes").as_array();
  ASSERT_EQ(freezes_before.size(), 1u);

  // A channel created through the API takes traffic at once.
  EXPECT_EQ(statusOf(chat(port, "m-api")), 404) << "no channel serves it yet";
  std::string const fresh =
      R"({"name":"fresh","protocol":"openai-chat","base_url":")" + mock_.baseUrl() +
      R"(","keys":["sk-api-secret-9"],"models":["m-api"]})";
  auto created = json(call(port, "POST", "/admin/channels", fresh), 201);
  EXPECT_EQ(created.at("version").as_int64(), 1);
  EXPECT_EQ(created.at("source").as_string(), "api");
  EXPECT_EQ(statusOf(chat(port, "m-api")), 200);
  json(call(port, "POST", "/admin/channels", fresh), 409);

  // Updates need the version read; a stale or missing one is refused.
  std::string const heavier =
      R"({"protocol":"openai-chat","base_url":")" + mock_.baseUrl() +
      R"(","keys":["***"],"models":["m-api","m-api-2"],"weight":3})";
  json(call(port, "PUT", "/admin/channels/fresh", heavier), 428);
  auto stale = json(call(port, "PUT", "/admin/channels/fresh", heavier, "\"0\""), 409);
  EXPECT_EQ(stale.at("error").at("current_version").as_int64(), 1);
  // A dry run validates and changes nothing ...
  auto dry = json(call(port, "PUT", "/admin/channels/fresh?dry_run=true", heavier, "\"1\""), 200);
  EXPECT_TRUE(dry.at("dry_run").as_bool());
  EXPECT_EQ(statusOf(chat(port, "m-api-2")), 404);
  // ... an invalid change is refused with the path at fault ...
  auto invalid = json(call(port, "PUT", "/admin/channels/fresh",
                           R"({"protocol":"smoke","base_url":"http://x","keys":["***"],"models":["m"]})",
                           "\"1\""),
                      400);
  auto issues = invalid.at("error").at("issues").as_array();
  ASSERT_FALSE(issues.empty());
  EXPECT_EQ(issues[0].at("path").as_string(), "channels[2].protocol");
  // ... and a valid one applies, keeping the key's secret the body did not repeat.
  auto updated = json(call(port, "PUT", "/admin/channels/fresh", heavier, "\"1\""), 200);
  EXPECT_EQ(updated.at("version").as_int64(), 2);
  EXPECT_EQ(statusOf(chat(port, "m-api-2")), 200);

  // A gateway key made without a secret gets one, shown once.
  auto key = json(call(port, "POST", "/admin/gateway_keys", R"({"name":"team-b"})"), 201);
  std::string const secret(key.at("key").as_string());
  EXPECT_TRUE(secret.starts_with("sk-llmux-"));
  EXPECT_EQ(statusOf(chat(port, kModel, secret)), 200);
  auto shown = call(port, "GET", "/admin/gateway_keys/team-b");
  ASSERT_TRUE(shown.ok());
  EXPECT_EQ(shown->body.find(secret), std::string::npos) << "never read back";
  EXPECT_EQ(shown->header("ETag"), "\"1\"");

  // The freeze outlived every change.
  EXPECT_EQ(adminJson(port, "GET", "/admin/freezes").at("freezes").as_array().size(), 1u);

  // Deleted: the channel's model is gone.
  auto deleted = call(port, "DELETE", "/admin/channels/fresh", {}, "\"2\"");
  ASSERT_TRUE(deleted.ok());
  EXPECT_EQ(deleted->status(), 204) << deleted->body;
  EXPECT_EQ(statusOf(chat(port, "m-api")), 404);
  json(call(port, "GET", "/admin/channels/fresh"), 404);

  // Every change audited, newest first, without a secret.
  auto audit = call(port, "GET", "/admin/audit");
  ASSERT_TRUE(audit.ok());
  for (std::string_view leaked : {std::string_view(secret), std::string_view("sk-api-secret-9")}) {
    EXPECT_EQ(audit->body.find(leaked), std::string::npos) << audit->body;
  }
  auto entries = json(audit, 200).at("audit").as_array();
  ASSERT_EQ(entries.size(), 4u);
  EXPECT_EQ(entries[0].at("action").as_string(), "delete");
  EXPECT_EQ(entries[1].at("section").as_string(), "gateway_keys");
  EXPECT_EQ(entries[2].at("action").as_string(), "update");
  EXPECT_FALSE(entries[2].at("before").as_object().contains("weight"));
  EXPECT_EQ(entries[2].at("after").at("weight").as_int64(), 3);
  EXPECT_EQ(entries[2].at("after").at("keys").as_array()[0].as_string(), "***");
  EXPECT_EQ(entries[3].at("actor").as_string(), "admin");

  // A reload of the file keeps the objects; so does a restart.
  std::ofstream(config_path_, std::ios::trunc) << fileYaml("prices: {m-fail: {input: 1, output: 2}}\n");
  ASSERT_TRUE(gateway->process->signal(SIGHUP).ok());
  auto priced = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (json(call(port, "GET", "/admin/prices"), 200).at("prices").as_array().empty() &&
         std::chrono::steady_clock::now() < priced) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_EQ(statusOf(chat(port, kModel, secret)), 200) << "the API's key after the reload";
  ASSERT_TRUE(gateway->process->signal(SIGTERM).ok());
  ASSERT_TRUE(gateway->process->waitExit(Millis(10'000)).ok());
  auto again = restart();
  ASSERT_TRUE(again.ok()) << again.error().message;
  EXPECT_EQ(statusOf(chat(again->port, kModel, secret)), 200) << "the API's key after a restart";
  EXPECT_EQ(statusOf(chat(again->port, "m-api")), 404) << "the deleted channel stays deleted";
}

TEST_F(AdminObjects, BodiesMayNotReadTheServersEnvironment) {
  auto gateway = start(fileYaml());
  ASSERT_TRUE(gateway.ok()) << gateway.error().message;
  auto refused = json(call(gateway->port, "POST", "/admin/channels",
                           R"({"name":"leak","protocol":"openai-chat","base_url":"http://x.example","keys":[{"key_env":"HOME"}],"models":["m"]})"),
                      400);
  EXPECT_NE(std::string(refused.at("error").at("message").as_string()).find("key_env"),
            std::string::npos);
  json(call(gateway->port, "GET", "/admin/nonsense"), 404);
  auto wrong_method = call(gateway->port, "PATCH", "/admin/channels/live");
  ASSERT_TRUE(wrong_method.ok());
  EXPECT_EQ(wrong_method->status(), 405);
}

TEST_F(AdminObjects, ARoleDecidesWhatATokenMayDoAndItsNameIsTheAuditsActor) {
  auto gateway = start(fileYaml("admin_tokens:\n"
                                "  - {name: viewer, token: adm-viewer-7, role: read_only}\n"
                                "  - {name: ops, token: adm-ops-7, role: admin}\n"));
  ASSERT_TRUE(gateway.ok()) << gateway.error().message;
  std::uint16_t const port = gateway->port;
  auto as = [&](std::string const& token, std::string method, std::string target,
                std::string body = {}) {
    ClientCall request = adminCall(std::move(method), std::move(target), std::move(body), token);
    return callGateway(port, request);
  };
  // The viewer reads everything and changes nothing.
  json(as("adm-viewer-7", "GET", "/admin/channels"), 200);
  json(as("adm-viewer-7", "GET", "/admin/freezes"), 200);
  auto refused = json(as("adm-viewer-7", "POST", "/admin/prices",
                         R"({"name":"m-fail","value":{"input":1,"output":2}})"),
                      403);
  EXPECT_NE(std::string(refused.at("error").at("message").as_string()).find("read-only"),
            std::string::npos);
  json(as("adm-viewer-7", "PUT", "/admin/racing", R"({"enabled":true})"), 403);
  // ops changes, and the audit log names it.
  json(as("adm-ops-7", "POST", "/admin/prices", R"({"name":"m-fail","value":{"input":1,"output":2}})"),
       201);
  auto audit = json(as("adm-viewer-7", "GET", "/admin/audit"), 200).at("audit").as_array();
  ASSERT_EQ(audit.size(), 1u);
  EXPECT_EQ(audit[0].at("actor").as_string(), "ops");
  EXPECT_EQ(audit[0].at("section").as_string(), "prices");
  // The file's admin_token is still "admin".
  json(call(port, "GET", "/admin/prices/m-fail"), 200);
  json(as("adm-nobody", "GET", "/admin/prices"), 403);
}

}  // namespace
}  // namespace llmux::e2e

namespace llmux::e2e {
namespace {

using namespace failover;
using namespace routing_scenarios;

TEST_F(AdminObjects, EveryOtherSectionIsCreatedReadUpdatedDryRunAndDeleted) {
  auto gateway = start(fileYaml());
  ASSERT_TRUE(gateway.ok()) << gateway.error().message;
  std::uint16_t const port = gateway->port;
  struct Case {
    std::string section;
    std::string name;
    std::string created;  ///< the POST body
    std::string updated;  ///< the PUT body
    std::string member;   ///< a member of the object that the update changed ...
    std::string value;    ///< ... and its value after it, as JSON
  };
  // A map section's entry is POSTed as {"name", "value"} and PUT as its value alone.
  std::vector<Case> const cases = {
      {"proxies", "exit-b", R"({"name":"exit-b","mode":"direct"})",
       R"({"mode":"network","url":"http://127.0.0.1:3128"})", "mode", R"("network")"},
      {"freeze_rules", "r-429", R"({"name":"r-429","status":429,"object":"key","period":"15m"})",
       R"({"status":429,"object":"key+model","period":"today"})", "period", R"("today")"},
      {"prices", "m-fail", R"({"name":"m-fail","value":{"input":1,"output":2}})",
       R"({"input":3,"output":4})", "input", "3"},
      {"model_groups", "grp", R"({"name":"grp","value":["m-fail"]})", R"([{"model":"m-fail","channel":"live"}])",
       "", ""},
  };
  auto versionOf = [](boost::json::object const& view) { return "\"" + std::to_string(view.at("version").as_int64()) + "\""; };
  for (auto const& c : cases) {
    std::string const path = "/admin/" + c.section + "/" + c.name;
    auto made = json(call(port, "POST", "/admin/" + c.section, c.created), 201);
    EXPECT_EQ(made.at("version").as_int64(), 1) << c.section;
    auto read = call(port, "GET", path);
    ASSERT_TRUE(read.ok());
    EXPECT_EQ(read->header("ETag"), "\"1\"") << c.section;
    auto listed = json(call(port, "GET", "/admin/" + c.section), 200).at(c.section).as_array();
    EXPECT_TRUE(std::any_of(listed.begin(), listed.end(), [&](auto const& v) { return v.at("name").as_string() == c.name; }))
        << c.section;
    auto dry = json(call(port, "PUT", path + "?dry_run=true", c.updated, "\"1\""), 200);
    EXPECT_TRUE(dry.at("dry_run").as_bool()) << c.section;
    EXPECT_EQ(json(call(port, "GET", path), 200).at("version").as_int64(), 1) << "a dry run keeps nothing";
    auto updated = json(call(port, "PUT", path, c.updated, "\"1\""), 200);
    EXPECT_EQ(updated.at("version").as_int64(), 2) << c.section;
    if (!c.member.empty()) {
      EXPECT_EQ(boost::json::serialize(updated.at("object").at(c.member)), c.value) << c.section;
    }
    if (c.section == "model_groups") {
      // The group serves; a fallback from it is an object of its own, made and gone.
      EXPECT_EQ(statusOf(chat(port, "grp")), 200);
      json(call(port, "POST", "/admin/fallbacks", R"({"name":"grp","value":["m-fail"]})"), 201);
      json(call(port, "PUT", "/admin/fallbacks/grp?dry_run=true", R"(["m-fail"])", "\"1\""), 200);
      auto gone = call(port, "DELETE", "/admin/fallbacks/grp", {}, "\"1\"");
      EXPECT_EQ(statusOf(gone), 204);
    }
    json(call(port, "DELETE", path + "?dry_run=true", {}, versionOf(updated)), 200);
    EXPECT_EQ(statusOf(call(port, "GET", path)), 200) << "a dry-run deletion keeps it";
    auto deleted = call(port, "DELETE", path, {}, versionOf(updated));
    EXPECT_EQ(statusOf(deleted), 204) << c.section;
    EXPECT_EQ(statusOf(call(port, "GET", path)), 404) << c.section;
  }
  EXPECT_EQ(statusOf(chat(port, "grp")), 404) << "the group is gone";
  // Every change audited (dry runs keep nothing): 3 per section, 2 for the fallback.
  EXPECT_EQ(json(call(port, "GET", "/admin/audit?limit=1000"), 200).at("audit").as_array().size(),
            cases.size() * 3 + 2);
}

}  // namespace
}  // namespace llmux::e2e
