#pragma once

// The reader behind openai_chat::decodeRequest, split over two files: request_decoder.cpp reads
// the body and its messages, request_options.cpp the tools and generation settings.

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/result.h"
#include "translate/neutral.h"

namespace llmux::translate::openai_chat {

using MaybeError = std::optional<Error>;

/// An InvalidRequest error with a message for the client.
inline Error invalid(std::string message) {
  return makeError(ErrorKind::InvalidRequest, std::move(message));
}

/// "base[i]", for error messages that name the offending field.
inline std::string at(std::string_view base, std::size_t i) {
  return std::string(base) + "[" + std::to_string(i) + "]";
}

/// Which content parts a message role may carry.
enum class PartsOf { System, User, Assistant, Tool };

class RequestReader {
 public:
  Result<Request> read(boost::json::object const& body);

 private:
  // Messages (request_decoder.cpp).
  MaybeError readMessages(boost::json::array const& messages);
  MaybeError readMessage(boost::json::object const& message, std::string const& where,
                         bool& leading);
  MaybeError readContent(boost::json::value const* content, std::string const& where,
                         PartsOf parts, std::vector<Block>& out);
  MaybeError readPart(boost::json::object const& part, std::string const& where, PartsOf parts,
                      std::vector<Block>& out);
  MaybeError readImage(boost::json::object const& part, std::string const& where,
                       std::vector<Block>& out);
  MaybeError readFile(boost::json::object const& part, std::string const& where,
                      std::vector<Block>& out);
  MaybeError readAssistant(boost::json::object const& message, std::string const& where);
  MaybeError readToolCall(boost::json::object const& call, std::string const& where,
                          std::vector<Block>& out);
  MaybeError readToolResult(boost::json::object const& message, std::string const& where);
  void addToolResult(Block result);

  // Tools and settings (request_options.cpp).
  MaybeError readTools(boost::json::object const& body);
  MaybeError readToolChoice(boost::json::object const& body);
  MaybeError readSampling(boost::json::object const& body);
  MaybeError readResponseFormat(boost::json::value const& format);
  MaybeError readReasoning(boost::json::object const& body);

  /// Notes a field the neutral model cannot hold (once per name).
  void drop(std::string name);

  Request request_;
  std::unordered_map<std::string, std::string> call_names_;  ///< tool-call id -> tool name
  std::unordered_map<std::string, std::string> legacy_ids_;  ///< legacy function name -> call id
  std::size_t legacy_calls_ = 0;
};

}  // namespace llmux::translate::openai_chat
