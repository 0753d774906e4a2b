// The console's backend end to end, over real sockets: its files, signing in (an HttpOnly,
// SameSite=Strict cookie that stands for the admin token, with a CSRF token on every change), the
// live tail of finished requests (Server-Sent Events), an operator's freeze, pauses, limits, and
// the whole configuration exported (no secret) and imported (validated, applied live, audited) —
// also while a stream is on its way.
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <signal.h>

#include <filesystem>
#include <fstream>
#include <thread>

#include "e2e/scenarios/failover_helpers.h"
#include "e2e/scenarios/routing_support.h"
#include "e2e/support/e2e_test.h"
#include "e2e/support/http_client.h"
#include "e2e/support/llmux_processes.h"
#include "e2e/support/sse_reader.h"

namespace llmux::e2e {
namespace {

using namespace failover;
using namespace routing_scenarios;

constexpr char kViewerToken[] = "view-routing-secret";

struct Session {
  std::string cookie;  ///< "llmux_console=<id>"
  std::string csrf;
};

class ConsoleApi : public E2eTest {
 protected:
  void SetUp() override {
    E2eTest::SetUp();
    auto started = startMockProvider();
    ASSERT_TRUE(started.ok()) << started.error().message;
    mock_ = std::move(*started);
  }

  std::string fileYaml(std::string const& admin_token = kAdminToken) {
    auto live = channel("live", Protocol::OpenAiChat, mock_.baseUrl(), {"sk-file-secret-1"});
    // Paced chunks: a stream that is still on its way while the configuration changes.
    auto slow = channel("slow", Protocol::OpenAiChat, mock_.baseUrl(), {"sk-slow-secret-2"});
    slow.models = {"m-slow"};
    slow.headers = {{"x-mock-chunk-delay", "150"}};
    // Every answer a 429: its key is paused.
    auto limited = channel("limited", Protocol::OpenAiChat, mock_.baseUrl(), {"sk-limited-secret-3"});
    limited.models = {"m-limited"};
    limited.headers = {{"x-mock-fault", "429"}};
    GatewayConfig c = gatewayConfig({live, slow, limited}, temp().path() + "/access.log");
    c.extra_yaml += "admin_tokens:\n  - {name: ops, role: admin, token: " + admin_token +
                    "}\n  - {name: viewer, token: " + std::string(kViewerToken) + ", role: read_only}\n";
    c.extra_yaml += "server: {lame_duck_ms: 0}\n";
    return toYaml(c);
  }

  Result<Server> start(std::vector<std::pair<std::string, std::string>> env = {}) {
    config_path_ = writeTempFile(fileYaml());
    ChildOptions options = gatewayOptions(binary(), config_path_, {});
    options.env = std::move(env);
    return startServer(std::move(options));
  }

  Result<Response> send(std::uint16_t port, std::string method, std::string target,
                        HeaderList headers, std::string body = {}) {
    ClientCall call;
    call.method = std::move(method);
    call.target = std::move(target);
    call.headers = std::move(headers);
    call.body = std::move(body);
    return callGateway(port, call);
  }

  /// Signs in with `token`: the session cookie and CSRF token (empty on failure).
  Session signIn(std::uint16_t port, std::string const& token) {
    HeaderList headers;
    headers.add("Content-Type", "application/json");
    auto answer = send(port, "POST", "/console/session", headers, R"({"token":")" + token + R"("})");
    EXPECT_TRUE(answer.ok());
    if (!answer.ok() || answer->status() != 200) return {};
    std::string const set_cookie(answer->header("Set-Cookie"));
    EXPECT_NE(set_cookie.find("; HttpOnly"), std::string::npos) << set_cookie;
    EXPECT_NE(set_cookie.find("; SameSite=Strict"), std::string::npos) << set_cookie;
    EXPECT_NE(set_cookie.find("; Path=/"), std::string::npos) << set_cookie;
    auto body = parseObject(answer->body);
    EXPECT_TRUE(body.ok());
    return {set_cookie.substr(0, set_cookie.find(';')), body.ok() ? std::string(body->at("csrf").as_string()) : ""};
  }

  /// An admin call through a console session (its CSRF token on changes when `with_csrf`).
  Result<Response> asConsole(std::uint16_t port, Session const& session, std::string method,
                             std::string target, std::string body = {}, bool with_csrf = true) {
    HeaderList headers;
    headers.add("Cookie", session.cookie);
    if (with_csrf) headers.add("X-CSRF-Token", session.csrf);
    return send(port, std::move(method), std::move(target), std::move(headers), std::move(body));
  }

  static int statusOf(Result<Response> const& answer) {
    EXPECT_TRUE(answer.ok()) << answer.error().message;
    return answer.ok() ? answer->status() : -1;
  }

  Result<Response> chat(std::uint16_t port, std::string const& model, std::string const& key = kGatewayKey) {
    ClientCall request = clientCall(Protocol::OpenAiChat, false, model);
    request.headers.set("Authorization", "Bearer " + key);
    return callGateway(port, request);
  }

  Server mock_;
  std::string config_path_;
};

TEST_F(ConsoleApi, ASessionCookieStandsForItsTokenWithACsrfTokenOnEveryChange) {
  // The console's files from a folder (LLMUX_CONSOLE_DIR), as while working on them.
  std::string const web = temp().path() + "/web";
  std::filesystem::create_directories(web + "/pages");
  std::ofstream(web + "/index.html") << "<!doctype html><title>llmux</title>";
  std::ofstream(web + "/pages/overview.js") << "export const page = 1;";
  auto gateway = start({{"LLMUX_CONSOLE_DIR", web}});
  ASSERT_TRUE(gateway.ok()) << gateway.error().message;
  std::uint16_t const port = gateway->port;

  auto redirect = send(port, "GET", "/console", {});
  EXPECT_EQ(statusOf(redirect), 308);
  EXPECT_EQ(redirect->header("Location"), "/console/");
  auto page = send(port, "GET", "/console/", {});
  ASSERT_EQ(statusOf(page), 200);
  EXPECT_EQ(page->body, "<!doctype html><title>llmux</title>");
  EXPECT_EQ(page->header("Content-Type"), "text/html; charset=utf-8");
  EXPECT_NE(page->header("Content-Security-Policy").find("default-src 'self'"), std::string::npos);
  EXPECT_EQ(page->header("X-Frame-Options"), "DENY");
  auto script = send(port, "GET", "/console/pages/overview.js", {});
  ASSERT_EQ(statusOf(script), 200);
  EXPECT_EQ(script->header("Content-Type"), "text/javascript; charset=utf-8");
  EXPECT_EQ(statusOf(send(port, "GET", "/console/../access.log", {})), 404);
  EXPECT_EQ(statusOf(send(port, "GET", "/console/pages/..%2f..%2faccess.log", {})), 404);
  EXPECT_EQ(statusOf(send(port, "GET", "/console/missing.js", {})), 404);

  // Signing in: a wrong token is refused; the right one opens a session.
  HeaderList json_type;
  json_type.add("Content-Type", "application/json");
  auto wrong = send(port, "POST", "/console/session", json_type, R"({"token":"nope"})");
  EXPECT_EQ(statusOf(wrong), 401);
  EXPECT_TRUE(wrong->header("Set-Cookie").empty());
  EXPECT_EQ(statusOf(send(port, "POST", "/console/session", json_type, "not json")), 400);
  EXPECT_EQ(statusOf(send(port, "GET", "/console/session", {})), 401);
  Session ops = signIn(port, kAdminToken);
  ASSERT_FALSE(ops.cookie.empty());
  auto who = asConsole(port, ops, "GET", "/console/session");
  ASSERT_EQ(statusOf(who), 200);
  auto whoami = parseObject(who->body);
  ASSERT_TRUE(whoami.ok());
  EXPECT_EQ(whoami->at("name").as_string(), "ops");
  EXPECT_EQ(whoami->at("role").as_string(), "admin");
  EXPECT_EQ(whoami->at("csrf").as_string(), ops.csrf);

  // The cookie reads the admin API; a change needs the CSRF token too.
  EXPECT_EQ(statusOf(asConsole(port, ops, "GET", "/admin/freezes", {}, false)), 200);
  std::string const freeze = R"({"channel":"live","key":"live#0","minutes":10})";
  auto forged = asConsole(port, ops, "POST", "/admin/freezes", freeze, false);
  EXPECT_EQ(statusOf(forged), 403);
  EXPECT_NE(forged->body.find("CSRF"), std::string::npos);
  Session stale = ops;
  stale.csrf = "0123456789abcdef0123456789abcdef";
  EXPECT_EQ(statusOf(asConsole(port, stale, "POST", "/admin/freezes", freeze)), 403);
  auto made = asConsole(port, ops, "POST", "/admin/freezes", freeze);
  ASSERT_EQ(statusOf(made), 201) << made->body;
  std::string const id(parseObject(made->body)->at("id").as_string());
  EXPECT_EQ(statusOf(asConsole(port, ops, "DELETE", "/admin/freezes/" + id)), 204);

  // A read-only token's session reads and changes nothing.
  Session viewer = signIn(port, kViewerToken);
  ASSERT_FALSE(viewer.cookie.empty());
  EXPECT_EQ(parseObject(asConsole(port, viewer, "GET", "/console/session")->body)->at("role").as_string(),
            "read_only");
  EXPECT_EQ(statusOf(asConsole(port, viewer, "GET", "/admin/channels")), 200);
  auto refused = asConsole(port, viewer, "POST", "/admin/freezes", freeze);
  EXPECT_EQ(statusOf(refused), 403);
  EXPECT_NE(refused->body.find("read-only"), std::string::npos);

  // Signing out needs the CSRF token, clears the cookie and ends the session.
  EXPECT_EQ(statusOf(asConsole(port, viewer, "DELETE", "/console/session", {}, false)), 403);
  auto out = asConsole(port, viewer, "DELETE", "/console/session");
  ASSERT_EQ(statusOf(out), 204);
  EXPECT_NE(out->header("Set-Cookie").find("Max-Age=0"), std::string::npos);
  EXPECT_EQ(statusOf(asConsole(port, viewer, "GET", "/admin/channels")), 401);

  // A token rotated in the file (and reloaded) signs its sessions out.
  std::ofstream(config_path_, std::ios::trunc) << fileYaml("adm-rotated-secret");
  ASSERT_TRUE(gateway->process->signal(SIGHUP).ok());
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (statusOf(asConsole(port, ops, "GET", "/admin/freezes")) == 200 &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_EQ(statusOf(asConsole(port, ops, "GET", "/admin/freezes")), 401);
  EXPECT_FALSE(signIn(port, "adm-rotated-secret").cookie.empty());
}

TEST_F(ConsoleApi, TheLiveTailStreamsEachFinishedRequestWithItsAttempts) {
  auto gateway = start();
  ASSERT_TRUE(gateway.ok()) << gateway.error().message;
  std::uint16_t const port = gateway->port;
  // One request before anyone watches: the tail replays it from the request log.
  ASSERT_EQ(statusOf(chat(port, kModel)), 200);
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (adminJson(port, "GET", "/admin/requests?state=done").at("requests").as_array().empty() &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }

  auto watcher = HttpClient::connect(port);
  ASSERT_TRUE(watcher.ok()) << watcher.error().message;
  HeaderList headers;
  headers.add("Authorization", std::string("Bearer ") + kAdminToken);
  ASSERT_TRUE(watcher->sendRequest("GET", "/admin/requests/live", headers, "").ok());
  auto head = watcher->readHead();
  ASSERT_TRUE(head.ok()) << head.error().message;
  EXPECT_EQ(head->status, 200);
  EXPECT_EQ(head->headers.get("Content-Type"), "text/event-stream");
  SseReader events(*watcher);
  auto replayed = events.next();
  ASSERT_TRUE(replayed.ok() && *replayed) << "the request made before watching";
  EXPECT_EQ((*replayed)->event.event, "request");
  EXPECT_EQ(parseObject((*replayed)->event.data)->at("model").as_string(), kModel);

  // Requests finishing now arrive as they finish; operators' calls are not clients' requests.
  adminJson(port, "GET", "/admin/freezes");
  ASSERT_EQ(statusOf(chat(port, "m-limited")), 429);
  auto event = events.next(Millis(5000));
  ASSERT_TRUE(event.ok() && *event) << "the request finished while watching";
  auto request = parseObject((*event)->event.data);
  ASSERT_TRUE(request.ok()) << (*event)->event.data;
  EXPECT_EQ(request->at("model").as_string(), "m-limited");
  EXPECT_EQ(request->at("route").as_string(), "/v1/chat/completions");
  EXPECT_EQ(request->at("gateway_key").as_string(), "failover-client");
  EXPECT_EQ(request->at("status").as_int64(), 429);
  auto const& attempts = request->at("attempts").as_array();
  ASSERT_EQ(attempts.size(), 1u);
  EXPECT_EQ(attempts[0].at("channel").as_string(), "limited");
  EXPECT_EQ(attempts[0].at("key_label").as_string(), "limited#0");
  EXPECT_EQ(attempts[0].at("status").as_int64(), 429);
  EXPECT_EQ((*event)->event.data.find("sk-limited-secret-3"), std::string::npos);

  // The 429 paused the key: the pause shows by its label, with its reason.
  auto pauses = adminJson(port, "GET", "/admin/pauses").at("pauses").as_array();
  ASSERT_EQ(pauses.size(), 1u);
  EXPECT_EQ(pauses[0].at("channel").as_string(), "limited");
  EXPECT_EQ(pauses[0].at("key").as_string(), "limited#0");
  EXPECT_EQ(pauses[0].at("reason").as_string(), "rate_limited");
  EXPECT_GT(pauses[0].at("remaining_s").to_number<double>(), 0.0);
  auto limits = adminJson(port, "GET", "/admin/limits");
  EXPECT_FALSE(limits.at("shared").as_bool());
  EXPECT_EQ(limits.at("gateway_keys").as_array().at(0).at("name").as_string(), "failover-client");
}

TEST_F(ConsoleApi, AManualFreezeTakesAKeyOutUntilItIsLifted) {
  auto gateway = start();
  ASSERT_TRUE(gateway.ok()) << gateway.error().message;
  std::uint16_t const port = gateway->port;
  ASSERT_EQ(statusOf(chat(port, kModel)), 200);
  auto made = callGateway(port, adminCall("POST", "/admin/freezes",
                                          R"({"channel":"live","key":"live#0","reason":"rotating"})"));
  ASSERT_EQ(statusOf(made), 201) << made->body;
  auto freeze = parseObject(made->body);
  EXPECT_TRUE(freeze->at("until").is_null());
  EXPECT_NE(statusOf(chat(port, kModel)), 200) << "its only key is frozen";
  auto listed = adminJson(port, "GET", "/admin/freezes").at("freezes").as_array();
  ASSERT_EQ(listed.size(), 1u);
  EXPECT_EQ(listed[0].at("reason").as_string(), "operator: rotating");
  auto lifted = callGateway(port, adminCall("DELETE", "/admin/freezes/" + std::string(freeze->at("id").as_string())));
  EXPECT_EQ(statusOf(lifted), 204);
  EXPECT_EQ(statusOf(chat(port, kModel)), 200);
  // A key the channel does not have is named in the refusal.
  auto unknown = callGateway(port, adminCall("POST", "/admin/freezes", R"({"channel":"live","key":"live#7"})"));
  EXPECT_EQ(statusOf(unknown), 400);
  EXPECT_NE(unknown->body.find("live#7"), std::string::npos);
}

TEST_F(ConsoleApi, AChannelsKeysAreAddedRotatedDisabledAndRemovedOneByOne) {
  auto gateway = start();
  ASSERT_TRUE(gateway.ok()) << gateway.error().message;
  std::uint16_t const port = gateway->port;
  auto keyCall = [&](std::string method, std::string target, std::string body, std::string version) {
    ClientCall call = adminCall(std::move(method), std::move(target), std::move(body));
    if (!version.empty()) call.headers.add("If-Match", "\"" + version + "\"");
    return callGateway(port, call);
  };
  auto versionOf = [](Result<Response> const& answer) {
    return answer.ok() ? std::to_string(parseObject(answer->body)->at("version").as_int64()) : std::string();
  };

  // Added: the channel now has two keys, the first keeping its secret.
  EXPECT_EQ(statusOf(keyCall("POST", "/admin/channels/live/keys", R"({"name":"spare","key":"sk-spare-secret-8"})", "")), 428);
  auto added = keyCall("POST", "/admin/channels/live/keys", R"({"name":"spare","key":"sk-spare-secret-8"})", "0");
  ASSERT_EQ(statusOf(added), 201) << added->body;
  EXPECT_EQ(added->body.find("sk-spare-secret-8"), std::string::npos) << "never read back";
  auto keys = parseObject(added->body)->at("object").at("keys").as_array();
  ASSERT_EQ(keys.size(), 2u);
  std::string version = versionOf(added);

  // The file's key disabled: every request goes to the new one, and answers.
  auto disabled = keyCall("PUT", "/admin/channels/live/keys/live%230", R"({"enabled":false})", version);
  ASSERT_EQ(statusOf(disabled), 200) << disabled->body;
  version = versionOf(disabled);
  for (int i = 0; i < 3; ++i) EXPECT_EQ(statusOf(chat(port, kModel)), 200);
  auto rows = adminJson(port, "GET", "/admin/channels/live").at("object").at("keys").as_array();
  EXPECT_FALSE(rows[0].at("enabled").as_bool());

  // Rotated: the spare key's secret replaced, write-only; a stale version is refused.
  EXPECT_EQ(statusOf(keyCall("PUT", "/admin/channels/live/keys/spare", R"({"key":"sk-spare-secret-9"})", "1")), 409);
  auto rotated = keyCall("PUT", "/admin/channels/live/keys/spare", R"({"key":"sk-spare-secret-9"})", version);
  ASSERT_EQ(statusOf(rotated), 200) << rotated->body;
  EXPECT_EQ(rotated->body.find("sk-spare-secret-9"), std::string::npos);
  version = versionOf(rotated);
  EXPECT_EQ(statusOf(chat(port, kModel)), 200);
  EXPECT_EQ(statusOf(keyCall("PUT", "/admin/channels/live/keys/nope", R"({"enabled":true})", version)), 404);

  // Removed: the file's key goes; the spare one stays and serves.
  auto removed = keyCall("DELETE", "/admin/channels/live/keys/0", "", version);
  ASSERT_EQ(statusOf(removed), 200) << removed->body;
  EXPECT_EQ(parseObject(removed->body)->at("object").at("keys").as_array().size(), 1u);
  EXPECT_EQ(statusOf(chat(port, kModel)), 200);

  // Each edit audited by what it did to which key; no secret in the audit.
  auto audit = callGateway(port, adminCall("GET", "/admin/audit"));
  ASSERT_EQ(statusOf(audit), 200);
  for (std::string_view secret : {"sk-spare-secret-8", "sk-spare-secret-9", "sk-file-secret-1"}) {
    EXPECT_EQ(audit->body.find(secret), std::string::npos) << secret;
  }
  auto entries = parseObject(audit->body)->at("audit").as_array();
  ASSERT_EQ(entries.size(), 4u);
  EXPECT_EQ(entries[0].at("action").as_string(), "key-remove 0");
  EXPECT_EQ(entries[1].at("action").as_string(), "key-update spare");
  EXPECT_EQ(entries[2].at("action").as_string(), "key-update live#0");
  EXPECT_EQ(entries[3].at("action").as_string(), "key-add");
}

TEST_F(ConsoleApi, TheExportHoldsNoSecretAndAnImportAppliesItsObjectsLive) {
  auto gateway = start();
  ASSERT_TRUE(gateway.ok()) << gateway.error().message;
  std::uint16_t const port = gateway->port;

  auto exported = callGateway(port, adminCall("GET", "/admin/config/export"));
  ASSERT_EQ(statusOf(exported), 200);
  EXPECT_EQ(exported->header("Content-Type"), "application/yaml; charset=utf-8");
  for (std::string_view secret : {std::string_view("sk-file-secret-1"), std::string_view("sk-slow-secret-2"), std::string_view("sk-limited-secret-3"),
                                  std::string_view(kAdminToken), std::string_view(kViewerToken),
                                  std::string_view(kGatewayKey)}) {
    EXPECT_EQ(exported->body.find(secret), std::string::npos) << secret << " in\n" << exported->body;
  }
  EXPECT_NE(exported->body.find("\"***\""), std::string::npos);

  // A stream on its way while the configuration changes under it.
  auto streaming = HttpClient::connect(port);
  ASSERT_TRUE(streaming.ok());
  ClientCall slow = clientCall(Protocol::OpenAiChat, true, "m-slow");
  ASSERT_TRUE(streaming->sendRequest("POST", slow.target, slow.headers, slow.body).ok());
  auto slow_head = streaming->readHead();
  ASSERT_TRUE(slow_head.ok()) << slow_head.error().message;
  ASSERT_EQ(slow_head->status, 200);

  // The export with one gateway key more and the `limited` channel left out; `listen` changed
  // too, which an import does not touch (the file owns it).
  YAML::Node doc = YAML::Load(exported->body);
  doc["gateway_keys"].push_back(YAML::Load("{name: imported, key: sk-imported-key-7}"));
  YAML::Node channels(YAML::NodeType::Sequence);
  for (YAML::Node c : doc["channels"]) {
    if (c["name"].as<std::string>() != "limited") channels.push_back(c);
  }
  doc["channels"] = channels;
  doc["listen"] = "127.0.0.2:1";
  auto text = [](YAML::Node const& node) {
    YAML::Emitter out;
    out << node;
    return std::string(out.c_str());
  };
  std::string const yaml = text(doc);

  HeaderList yaml_type;
  yaml_type.add("Content-Type", "application/yaml");
  yaml_type.add("Authorization", std::string("Bearer ") + kAdminToken);
  auto dry = send(port, "POST", "/admin/config/import?dry_run=true", yaml_type, yaml);
  ASSERT_EQ(statusOf(dry), 200) << dry->body;
  auto planned = parseObject(dry->body);
  EXPECT_TRUE(planned->at("dry_run").as_bool());
  auto const& changes = planned->at("changes").as_array();
  ASSERT_EQ(changes.size(), 2u) << dry->body;
  EXPECT_EQ(changes[0].at("section").as_string(), "channels");
  EXPECT_EQ(changes[0].at("name").as_string(), "limited");
  EXPECT_EQ(changes[0].at("action").as_string(), "delete");
  EXPECT_EQ(changes[1].at("section").as_string(), "gateway_keys");
  EXPECT_EQ(changes[1].at("action").as_string(), "create");
  EXPECT_EQ(planned->at("ignored").as_array().at(0).as_string(), "listen");
  EXPECT_EQ(statusOf(chat(port, kModel, "sk-imported-key-7")), 401) << "a dry run changes nothing";

  auto applied = send(port, "POST", "/admin/config/import", yaml_type, yaml);
  ASSERT_EQ(statusOf(applied), 200) << applied->body;
  EXPECT_EQ(parseObject(applied->body)->at("changes").as_array().size(), 2u);
  EXPECT_EQ(statusOf(chat(port, kModel, "sk-imported-key-7")), 200);
  EXPECT_EQ(statusOf(chat(port, kModel)), 200) << "a key the import repeated as *** kept its secret";
  EXPECT_EQ(statusOf(chat(port, "m-limited")), 404) << "the channel left out is gone";
  auto again = send(port, "POST", "/admin/config/import", yaml_type, yaml);
  EXPECT_TRUE(parseObject(again->body)->at("changes").as_array().empty()) << "nothing differs now";

  // The stream went on to its end, whole.
  std::string body;
  for (;;) {
    auto piece = streaming->readBodyPiece(Millis(10'000));
    ASSERT_TRUE(piece.ok()) << piece.error().message;
    if (!*piece) break;
    body += (*piece)->data;
  }
  EXPECT_NE(body.find("data: [DONE]"), std::string::npos) << body;

  // An invalid import changes nothing and says where; so does one that is not YAML.
  YAML::Node broken = YAML::Clone(doc);
  broken["channels"][0]["protocol"] = "carrier-pigeon";
  auto invalid = send(port, "POST", "/admin/config/import", yaml_type, text(broken));
  ASSERT_EQ(statusOf(invalid), 400);
  auto issues = parseObject(invalid->body)->at("error").at("issues").as_array();
  ASSERT_FALSE(issues.empty()) << invalid->body;
  EXPECT_EQ(issues[0].at("path").as_string(), "channels[0].protocol");
  EXPECT_EQ(statusOf(send(port, "POST", "/admin/config/import", yaml_type, "[unclosed")), 400);
  EXPECT_EQ(statusOf(send(port, "POST", "/admin/config/import", yaml_type, "- a list")), 400);
  EXPECT_EQ(statusOf(chat(port, kModel)), 200);

  // Audited under the token's name.
  auto audit = adminJson(port, "GET", "/admin/audit").at("audit").as_array();
  ASSERT_EQ(audit.size(), 2u);
  EXPECT_EQ(audit[0].at("action").as_string(), "import:create");
  EXPECT_EQ(audit[0].at("actor").as_string(), "ops");
  EXPECT_EQ(audit[1].at("action").as_string(), "import:delete");

  // The admin API describes itself.
  auto openapi = callGateway(port, adminCall("GET", "/admin/openapi.json"));
  ASSERT_EQ(statusOf(openapi), 200);
  EXPECT_EQ(parseObject(openapi->body)->at("openapi").as_string(), "3.1.0");
}

}  // namespace
}  // namespace llmux::e2e
