#pragma once

// Deterministic stand-ins for the audio OpenAI's speech endpoint returns: small files of the asked
// format that players and format sniffers accept (docs/mock-provider.md lists what each holds).

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace llmux::mock {

/// The speech endpoint's `response_format` values.
enum class AudioFormat {
  Mp3,   ///< MPEG-1 Layer III frames of silence (32 kHz, 32 kbit/s, mono)
  Opus,  ///< Ogg Opus: OpusHead, OpusTags, then 20 ms packets of silence (DTX)
  Aac,   ///< ADTS frames, each one silent mono AAC-LC block (24 kHz)
  Flac,  ///< FLAC: STREAMINFO, then frames of constant (silent) subframes (24 kHz, 16-bit, mono)
  Wav,   ///< RIFF WAVE, 24 kHz 16-bit mono PCM: a quiet tone
  Pcm,   ///< the same samples raw (24 kHz, 16-bit little-endian, mono), as the API sends them
};

std::optional<AudioFormat> audioFormatNamed(std::string_view name);

/// The Content-Type the API sends with each format.
std::string_view audioContentType(AudioFormat format);

/// About `duration_ms` of audio in `format` (compressed formats round up to whole frames). The
/// tone of WAV and PCM has a pitch chosen by `seed`.
std::string fakeAudio(AudioFormat format, std::uint32_t duration_ms, std::uint64_t seed);

}  // namespace llmux::mock
