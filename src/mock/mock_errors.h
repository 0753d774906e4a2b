#pragma once

#include <cstdint>
#include <string_view>

#include "core/wire_protocol.h"
#include "mock/mock_ids.h"
#include "mock/mock_provider.h"
#include "mock/mock_reply.h"

namespace llmux::mock {

/// Error replies in each provider's own shape (REFERENCE §6): OpenAI's four-space indented
/// {"error":{message,type,param,code}}, Anthropic's {"type":"error","error":{type,message},
/// "request_id"}, Google's google.rpc.Status. Wording follows what the providers send.

/// OpenAI's error body with any status (an empty `param` or `code` is written as null).
MockReply openAiError(IdSource& ids, int status, std::string_view message, std::string_view type,
                      std::string_view param = {}, std::string_view code = {});

/// No credentials at all (Gemini: 403 PERMISSION_DENIED, like Google).
MockReply missingKeyError(Vendor vendor, IdSource& ids);
/// A key that is refused (Gemini: 400 INVALID_ARGUMENT with reason API_KEY_INVALID, like Google).
MockReply invalidKeyError(Vendor vendor, IdSource& ids);
/// A key without permission: 403.
MockReply forbiddenKeyError(Vendor vendor, IdSource& ids);
/// 429 with retry-after (Gemini: RetryInfo.retryDelay in the body, no header, like Google).
MockReply rateLimitedError(Vendor vendor, IdSource& ids, int retry_after_s, std::string_view model);
/// Any status injected by a fault (500, 503, 529, ...), in the closest shape the vendor has.
MockReply statusError(Vendor vendor, IdSource& ids, int status, std::string_view model);
/// A body that is not JSON (or not a JSON object).
MockReply invalidJsonError(Vendor vendor, IdSource& ids);
/// A required body field is absent.
MockReply missingFieldError(Vendor vendor, IdSource& ids, std::string_view field);
/// A 400 with a specific message (OpenAI also gets `param` and `code`; empty means null).
MockReply invalidRequestError(Vendor vendor, IdSource& ids, std::string_view message,
                              std::string_view param = {}, std::string_view code = {});
/// The provider's context-window error for a prompt of `tokens` tokens.
MockReply contextOverflowError(Protocol protocol, IdSource& ids, std::int64_t tokens);
/// Unknown route (404).
MockReply routeNotFoundError(Vendor vendor, IdSource& ids, std::string_view method,
                             std::string_view path);

}  // namespace llmux::mock
