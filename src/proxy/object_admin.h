#pragma once

// The admin API's routes over the configuration's objects (docs/admin-api.md, "Objects"):
//   GET    /admin/{section}          → 200 {"<section>":[view...]}
//   POST   /admin/{section}          → 201 view (a gateway key made without a secret gets one,
//                                      shown in this answer only); ?dry_run=true validates only
//   GET    /admin/{section}/{name}   → 200 view, ETag "<version>"
//   PUT    /admin/{section}/{name}   → 200 view; If-Match "<version>" required (428 without, 409
//                                      when stale); ?dry_run=true
//   DELETE /admin/{section}/{name}   → 204; If-Match required; ?dry_run=true
//   GET    /admin/audit?before=&limit= → 200 {"audit":[...], "next_before"}
//   POST   /admin/channels/{name}/keys        → 201 the channel's view, a key added
//   PUT    /admin/channels/{name}/keys/{key}  → 200 the channel's view, that key's members changed
//   DELETE /admin/channels/{name}/keys/{key}  → 200 the channel's view, that key removed
//            (each with the channel's If-Match; {key}: its name, position or label)
// A view is {"name","version","source":"file"|"api","object":{...}} with secrets as "***".
// A configuration that would be invalid answers 400 with {"error":{...,"issues":[{"path",
// "message"}]}}, paths of the whole configuration ("channels[2].protocol").
//   GET    /admin/config/export        → 200 the whole configuration as YAML, secrets "***"
//   POST   /admin/config/import        → 200 {"dry_run","changes","ignored"} (ManagedConfig::importYaml)
#include <string_view>

#include "net/task.h"
#include "proxy/request_context.h"

namespace llmux::proxy {

class ManagedConfig;

/// Serves an AdminObjects, AdminObject, AdminAudit, AdminConfigExport or AdminConfigImport route. `managed` nullptr: the objects are
/// not manageable here (the embedded default), 404. `actor` names the admin token in the audit.
net::Task<void> serveObjectRoute(RequestContext& ctx, ManagedConfig* managed,
                                 std::string_view actor);

}  // namespace llmux::proxy
