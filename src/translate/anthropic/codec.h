#pragma once

// The anthropic protocol's side of translation (see translate/codec.h for the contracts).

#include <memory>
#include <string>
#include <string_view>

#include "core/result.h"
#include "translate/codec.h"
#include "translate/neutral.h"

namespace llmux::translate::anthropic {

Result<Request> decodeRequest(std::string_view body);
Result<std::string> encodeRequest(Request const& request, std::string_view upstream_model);
Result<Response> decodeResponse(std::string_view body);
std::string encodeResponse(Response const& response, EncodeOptions const& options);
std::unique_ptr<StreamDecoder> makeStreamDecoder();
std::unique_ptr<StreamEncoder> makeStreamEncoder(EncodeOptions const& options);

}  // namespace llmux::translate::anthropic
