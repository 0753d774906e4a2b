#include "proxy/object_admin.h"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <boost/json/value.hpp>

#include <charconv>
#include <functional>
#include <memory>

#include "config/channel_keys.h"
#include "config/managed_objects.h"
#include "core/ids.h"
#include "http/response_writer.h"
#include "http/server_request.h"
#include "protocol/percent_encoding.h"
#include "proxy/admin_handler.h"
#include "proxy/managed_config.h"
#include "proxy/off_thread.h"
#include "proxy/request_log_admin.h"

namespace llmux::proxy {
namespace {

namespace json = boost::json;
using net::Task;

json::value parsedOrString(std::string const& text) {
  boost::system::error_code ec;
  json::value value = json::parse(text, ec);
  return ec ? json::value(json::string(text)) : value;
}

json::object viewJson(ObjectView const& view) {
  return json::object{{"name", view.name},
                      {"version", view.version},
                      {"source", view.managed ? "api" : "file"},
                      {"object", parsedOrString(view.json)}};
}

/// The value of `name` in a query string ("" when absent or when the query is badly encoded).
std::string queryValue(std::string_view query, std::string_view name) {
  auto params = splitQuery(query);
  if (!params) return {};
  for (auto& [key, value] : *params) {
    if (key == name) return std::move(value);
  }
  return {};
}

std::optional<std::int64_t> integerOf(std::string_view text) {
  std::int64_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

/// `If-Match: "3"` (or 3): the version the caller read.
std::optional<std::int64_t> ifMatchVersion(HeaderList const& headers) {
  std::string_view value = headers.get("If-Match");
  if (value.size() >= 2 && value.front() == '"' && value.back() == '"') {
    value = value.substr(1, value.size() - 2);
  }
  if (value.empty()) return std::nullopt;
  return integerOf(value);
}

// Plain functions handing back sendAdminJson's task: GCC 12 cannot keep an initializer list's
// array alive across a co_await ("array used as initializer"), so bodies are built outside one.
Task<void> sendError(RequestContext& ctx, int status, std::string_view message,
                     std::string_view type, json::object extra) {
  json::object error{{"message", message}, {"type", type}};
  for (auto& [key, value] : extra) error[key] = std::move(value);
  return sendAdminJson(ctx, status, json::serialize(json::object{{"error", std::move(error)}}),
                       message);
}

Task<void> sendError(RequestContext& ctx, int status, std::string_view message,
                     std::string_view type) {
  return sendError(ctx, status, message, type, json::object());
}

Task<void> sendView(RequestContext& ctx, int status, ObjectView const& view,
                    json::object extra) {
  json::object body = viewJson(view);
  for (auto& [key, value] : extra) body[key] = std::move(value);
  HeaderList headers;
  headers.add("ETag", "\"" + std::to_string(view.version) + "\"");
  return sendAdminJson(ctx, status, json::serialize(body), {}, std::move(headers));
}

/// A ChangeOutcome that is not Applied, as the admin API's error.
Task<void> sendRefusal(RequestContext& ctx, ChangeOutcome const& outcome) {
  using Status = ChangeOutcome::Status;
  switch (outcome.status) {
    case Status::NotFound:
      return sendError(ctx, 404, outcome.message, "not_found_error");
    case Status::Exists:
    case Status::Conflict:
      return sendError(ctx, 409, outcome.message, "conflict_error",
                       json::object{{"current_version", outcome.version}});
    case Status::Invalid:
    case Status::Applied:
      break;
  }
  json::array issues;
  for (auto const& issue : outcome.issues) {
    issues.push_back(json::object{{"path", issue.path}, {"message", issue.message}});
  }
  return sendError(ctx, 400, outcome.message, "invalid_request_error",
                   json::object{{"issues", std::move(issues)}});
}

/// A gateway key created without a secret gets a generated one: returned once, by the creation.
std::optional<std::string> withGeneratedSecret(config::ObjectKind kind, std::string& body) {
  if (kind != config::ObjectKind::GatewayKey) return std::nullopt;
  boost::system::error_code ec;
  json::value value = json::parse(body, ec);
  if (ec || !value.is_object()) return std::nullopt;  // refused later, with the reason
  json::object& fields = value.get_object();
  if (fields.contains("key") || fields.contains("key_env")) return std::nullopt;
  std::string secret = "sk-llmux-" + randomHex(24);
  fields["key"] = secret;
  body = json::serialize(value);
  return secret;
}

Task<void> serveAudit(RequestContext& ctx, ManagedConfig& managed) {
  std::string_view const query = ctx.request.query();
  std::int64_t before = 0;
  std::int64_t limit = 100;
  if (auto text = queryValue(query, "before"); !text.empty()) {
    auto value = integerOf(text);
    if (!value || *value < 0) {
      co_await sendError(ctx, 400, "before: must be an audit entry's id", "invalid_request_error");
      co_return;
    }
    before = *value;
  }
  if (auto text = queryValue(query, "limit"); !text.empty()) {
    auto value = integerOf(text);
    if (!value || *value < 1 || *value > 1000) {
      co_await sendError(ctx, 400, "limit: must be 1 to 1000", "invalid_request_error");
      co_return;
    }
    limit = *value;
  }
  struct Read {
    std::vector<store::AuditEntry> entries;
    std::string error;
  };
  std::function<Read()> work = [&managed, before, limit] {
    Read out;
    out.entries = managed.audit(before, static_cast<std::size_t>(limit), out.error);
    return out;
  };
  std::function<Read(std::string)> failed = [](std::string why) { return Read{{}, why}; };
  Read read = co_await offThread<Read>(std::move(work), std::move(failed));
  if (!read.error.empty()) {
    co_await sendError(ctx, 503, "cannot read the audit log: " + read.error, "api_error");
    co_return;
  }
  json::array entries;
  for (auto const& entry : read.entries) {
    entries.push_back(json::object{
        {"id", entry.id},
        {"at", rfc3339Utc(entry.at)},
        {"actor", entry.actor},
        {"action", entry.action},
        {"section", config::objectKindName(entry.kind)},
        {"name", entry.name},
        {"version", entry.version},
        {"before", entry.before ? parsedOrString(*entry.before) : json::value(nullptr)},
        {"after", entry.after ? parsedOrString(*entry.after) : json::value(nullptr)},
    });
  }
  json::value next = nullptr;
  if (read.entries.size() == static_cast<std::size_t>(limit)) next = read.entries.back().id;
  json::object body;
  body["audit"] = std::move(entries);
  body["next_before"] = next;
  co_await sendAdminJson(ctx, 200, json::serialize(body));
}

/// The outcome of a change or an import whose thread could not be started.
template <class Outcome>
Outcome notStarted(std::string why) {
  Outcome outcome;
  outcome.status = Outcome::Status::Invalid;
  outcome.message = std::move(why);
  return outcome;
}

Task<void> serveExport(RequestContext& ctx, ManagedConfig& managed) {
  HeaderList headers;
  headers.add("Content-Type", "application/yaml; charset=utf-8");
  headers.add("Content-Disposition", "attachment; filename=\"llmux.yaml\"");
  headers.add("X-Request-Id", ctx.request_id);
  headers.add("Cache-Control", "no-store");
  ctx.record.status = 200;
  co_await ctx.response->send(200, headers, managed.exportYaml());
}

Task<void> serveImport(RequestContext& ctx, ManagedConfig& managed, std::string_view actor) {
  std::string const dry = queryValue(ctx.request.query(), "dry_run");
  bool const dry_run = dry == "true" || dry == "1";
  auto request = std::make_shared<std::pair<std::string, std::string>>(ctx.request.body, actor);
  std::function<ImportOutcome()> work = [&managed, request, dry_run] {
    return managed.importYaml(request->first, request->second, dry_run);
  };
  std::function<ImportOutcome(std::string)> failed = notStarted<ImportOutcome>;
  ImportOutcome outcome = co_await offThread<ImportOutcome>(std::move(work), std::move(failed));
  json::array changes;
  for (auto const& change : outcome.changes) {
    changes.push_back(json::object{{"section", config::objectKindName(change.kind)},
                                   {"name", change.name},
                                   {"action", change.action}});
  }
  json::array ignored;
  for (auto const& key : outcome.ignored) ignored.push_back(json::string(key));
  if (outcome.status == ImportOutcome::Status::Invalid) {
    json::array issues;
    for (auto const& issue : outcome.issues) {
      issues.push_back(json::object{{"path", issue.path}, {"message", issue.message}});
    }
    json::object extra;
    extra["issues"] = std::move(issues);
    co_await sendError(ctx, 400, outcome.message, "invalid_request_error", std::move(extra));
    co_return;
  }
  json::object body;
  body["dry_run"] = dry_run;
  body["changes"] = std::move(changes);
  body["ignored"] = std::move(ignored);
  if (outcome.status == ImportOutcome::Status::Partial) {
    json::object error;
    error["message"] = outcome.message;
    error["type"] = "api_error";
    body["error"] = std::move(error);
    co_await sendAdminJson(ctx, 503, json::serialize(body), outcome.message);
    co_return;
  }
  co_await sendAdminJson(ctx, 200, json::serialize(body));
}

}  // namespace

Task<void> serveObjectRoute(RequestContext& ctx, ManagedConfig* managed, std::string_view actor) {
  if (managed == nullptr) {
    co_await sendError(ctx, 404,
                       "objects are managed only with a configuration file (llmux serve --config)",
                       "not_found_error");
    co_return;
  }
  if (ctx.route.kind == protocol::RouteKind::AdminAudit) {
    co_await serveAudit(ctx, *managed);
    co_return;
  }
  if (ctx.route.kind == protocol::RouteKind::AdminConfigExport) {
    co_await serveExport(ctx, *managed);
    co_return;
  }
  if (ctx.route.kind == protocol::RouteKind::AdminConfigImport) {
    co_await serveImport(ctx, *managed, actor);
    co_return;
  }
  auto const kind = config::objectKindNamed(ctx.route.admin_section);
  if (!kind) {
    co_await sendError(ctx, 404, "not found", "not_found_error");
    co_return;
  }
  std::string const& method = ctx.request.method;
  std::string_view const query = ctx.request.query();
  std::string const dry = queryValue(query, "dry_run");
  bool const dry_run = dry == "true" || dry == "1";

  ObjectChange change;
  change.kind = *kind;
  change.actor = std::string(actor);
  change.dry_run = dry_run;
  std::optional<std::string> generated;
  bool const one_key = ctx.route.kind == protocol::RouteKind::AdminChannelKeys ||
                       ctx.route.kind == protocol::RouteKind::AdminChannelKey;
  if (one_key) {
    auto name = protocol::percentDecode(ctx.route.admin_id);
    auto which = protocol::percentDecode(ctx.route.admin_key);
    if (!name || name->empty() || !which) {
      co_await sendError(ctx, 400, "the path is not valid percent-encoding", "invalid_request_error");
      co_return;
    }
    change.name = std::move(*name);
    change.expected_version = ifMatchVersion(ctx.request.headers);
    if (!change.expected_version) {
      co_await sendError(ctx, 428,
                         "If-Match with the channel's version (its ETag, from GET) is required",
                         "precondition_required_error");
      co_return;
    }
    change.action = ObjectChange::Action::Update;
    config::KeyEdit const edit = ctx.route.kind == protocol::RouteKind::AdminChannelKeys ? config::KeyEdit::Add
                                 : method == "PUT" ? config::KeyEdit::Update
                                                   : config::KeyEdit::Remove;
    change.audit_action = std::string(edit == config::KeyEdit::Add      ? "key-add"
                                      : edit == config::KeyEdit::Update ? "key-update "
                                                                        : "key-remove ") +
                          *which;
    change.edit = [edit, channel = change.name, which = *which,
                   body = ctx.request.body](std::string const& current) {
      return config::editChannelKey(current, channel, edit, which, body);
    };
  } else if (ctx.route.kind == protocol::RouteKind::AdminObjects) {
    if (method == "GET") {
      std::vector<ObjectView> views = managed->list(*kind);
      json::array items;
      for (auto const& view : views) items.push_back(viewJson(view));
      json::object body;
      body[ctx.route.admin_section] = std::move(items);
      co_await sendAdminJson(ctx, 200, json::serialize(body));
      co_return;
    }
    // POST: the object's name is in its body (a map section's entry: {"name", "value"}).
    boost::system::error_code ec;
    json::value body = json::parse(ctx.request.body, ec);
    if (ec || !body.is_object() || !body.get_object().contains("name") ||
        !body.get_object().at("name").is_string()) {
      co_await sendError(ctx, 400, "the body must be a JSON object with a \"name\"",
                         "invalid_request_error");
      co_return;
    }
    change.action = ObjectChange::Action::Create;
    change.name = std::string(body.get_object().at("name").get_string());
    if (config::isListKind(*kind)) {
      change.body = ctx.request.body;
    } else if (auto const* value = body.get_object().if_contains("value")) {
      change.body = json::serialize(*value);
    } else {
      co_await sendError(ctx, 400, "value: required (the entry of \"" + change.name + "\")",
                         "invalid_request_error");
      co_return;
    }
    generated = withGeneratedSecret(*kind, change.body);
  } else {
    auto name = protocol::percentDecode(ctx.route.admin_id);
    if (!name || name->empty()) {
      co_await sendError(ctx, 400, "the object's name is not valid percent-encoding",
                         "invalid_request_error");
      co_return;
    }
    change.name = std::move(*name);
    if (method == "GET") {
      if (auto view = managed->get(*kind, change.name)) {
        co_await sendView(ctx, 200, *view, json::object());
      } else {
        co_await sendError(ctx, 404,
                           "no " + ctx.route.admin_section + " \"" + change.name + "\"",
                           "not_found_error");
      }
      co_return;
    }
    change.expected_version = ifMatchVersion(ctx.request.headers);
    if (!change.expected_version) {
      co_await sendError(ctx, 428,
                         "If-Match with the object's version (its ETag, from GET) is required",
                         "precondition_required_error");
      co_return;
    }
    change.action = method == "PUT" ? ObjectChange::Action::Update : ObjectChange::Action::Delete;
    if (method == "PUT") change.body = ctx.request.body;
  }

  // The work is made outside the co_await: GCC 12 relocates a closure built inside one by its
  // bytes, leaving a captured string pointing into the coroutine's frame.
  auto shared_change = std::make_shared<ObjectChange const>(change);
  std::function<ChangeOutcome()> work = [managed, shared_change] {
    return managed->change(*shared_change);
  };
  std::function<ChangeOutcome(std::string)> failed = notStarted<ChangeOutcome>;
  ChangeOutcome outcome = co_await offThread<ChangeOutcome>(std::move(work), std::move(failed));
  if (outcome.status != ChangeOutcome::Status::Applied) {
    co_await sendRefusal(ctx, outcome);
    co_return;
  }
  json::object extra;
  if (dry_run) extra["dry_run"] = true;
  if (generated && !dry_run) extra["key"] = *generated;  // shown once, here
  if (!outcome.object) {  // a deletion
    if (dry_run) {
      co_await sendAdminJson(ctx, 200, json::serialize(extra));
    } else {
      HeaderList headers;
      headers.add("X-Request-Id", ctx.request_id);
      ctx.record.status = 204;
      co_await ctx.response->send(204, headers, "");
    }
    co_return;
  }
  bool const created = change.action == ObjectChange::Action::Create ||
                       ctx.route.kind == protocol::RouteKind::AdminChannelKeys;
  int const status = created && !dry_run ? 201 : 200;
  co_await sendView(ctx, status, *outcome.object, std::move(extra));
}

}  // namespace llmux::proxy
