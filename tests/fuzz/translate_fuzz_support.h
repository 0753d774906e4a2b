#pragma once

// Shared by the translate fuzz targets: a stream cut at fuzzer-chosen places, the neutral event
// contract (translate/neutral.h) checked on what a decoder emits, and those events re-encoded
// into every client protocol with checks on the bytes that come out. Every violation aborts, so
// libFuzzer reports it as a crash with the input that caused it.

#include <cstddef>
#include <string_view>
#include <vector>

#include "core/wire_protocol.h"
#include "translate/codec.h"
#include "translate/neutral.h"

namespace llmux::fuzz {

/// Leading input bytes that choose where the stream is cut: piece i of the rest is
/// `header[i % kCutHeader]` bytes long (0: everything that is left). Byte 0's low bit also picks
/// the encoder options, so one input covers both.
inline constexpr std::size_t kCutHeader = 4;

/// Feeds `input` (cut header first) to a fresh decoder of `protocol`: `prefix` in a call of its
/// own, then the rest in pieces, then finish(). Checks the events against the neutral contract and
/// encodes them into every client protocol; returns the events.
std::vector<translate::Event> fuzzStreamDecoder(Protocol protocol, std::string_view input,
                                                std::string_view prefix = {});

/// Aborts unless `events` is one well-formed finished stream: blocks opened and closed in turn
/// with indexes counting from 0, deltas only inside their block, and exactly one MessageStop or
/// Error, last.
void checkEventContract(std::vector<translate::Event> const& events);

/// Encodes `events` with every stream encoder (the four protocols, and Gemini's JSON-array form)
/// and aborts unless every frame written holds valid JSON.
void encodeEverywhere(std::vector<translate::Event> const& events, bool variant);

/// Aborts unless `text` is one valid JSON document (UTF-8, any depth).
void checkJson(std::string_view text, std::string_view what);

}  // namespace llmux::fuzz
