#include "mock/audio_bytes.h"

#include <algorithm>
#include <vector>

#include "mock/byte_writer.h"
#include "mock/checksums.h"

namespace llmux::mock {
namespace {

constexpr std::uint32_t kPcmRate = 24000;  // the API's PCM and WAV sample rate

std::uint32_t framesFor(std::uint64_t samples, std::uint64_t per_frame) {
  return static_cast<std::uint32_t>((samples + per_frame - 1) / per_frame);
}

/// 16-bit little-endian samples of a quiet triangle wave, its period (300 to 600 Hz) from `seed`.
std::string pcmTone(std::uint32_t duration_ms, std::uint64_t seed) {
  std::uint32_t period = 40 + static_cast<std::uint32_t>(seed % 41);
  constexpr int kAmplitude = 2000;
  std::uint64_t samples = std::uint64_t{duration_ms} * kPcmRate / 1000;
  std::string out;
  out.reserve(samples * 2);
  for (std::uint64_t i = 0; i < samples; ++i) {
    int phase = static_cast<int>(i % period);
    int half = static_cast<int>(period / 2);
    int value = phase < half ? -kAmplitude + 4 * kAmplitude * phase / static_cast<int>(period)
                             : 3 * kAmplitude - 4 * kAmplitude * phase / static_cast<int>(period);
    putLittleEndian(out, static_cast<std::uint16_t>(static_cast<std::int16_t>(value)), 2);
  }
  return out;
}

std::string wav(std::string const& pcm) {
  std::string out = "RIFF";
  putLittleEndian(out, 36 + pcm.size(), 4);
  out += "WAVEfmt ";
  putLittleEndian(out, 16, 4);  // fmt chunk size
  putLittleEndian(out, 1, 2);   // PCM
  putLittleEndian(out, 1, 2);   // mono
  putLittleEndian(out, kPcmRate, 4);
  putLittleEndian(out, kPcmRate * 2, 4);  // bytes per second
  putLittleEndian(out, 2, 2);             // bytes per sample frame
  putLittleEndian(out, 16, 2);            // bits per sample
  out += "data";
  putLittleEndian(out, pcm.size(), 4);
  return out + pcm;
}

/// MPEG-1 Layer III, 32 kbit/s, 32 kHz, mono, no CRC: 144-byte frames of 1152 samples (36 ms).
/// All-zero side information and no main data decode as silence.
std::string mp3(std::uint32_t duration_ms) {
  std::string frame("\xFF\xFB\x18\xC4", 4);
  frame.resize(144, '\0');
  std::string out;
  for (std::uint32_t i = framesFor(duration_ms, 36); i > 0; --i) out += frame;
  return out;
}

/// ADTS (MPEG-4 AAC-LC, 24 kHz, mono, no CRC), each frame one raw block of 1024 samples: a
/// single-channel element with no spectral data (silence), then the end element.
std::string aac(std::uint32_t duration_ms) {
  constexpr unsigned char kSilentBlock[] = {0x00, 0xC8, 0x00, 0x07};
  constexpr std::uint64_t kFrameBytes = 7 + sizeof(kSilentBlock);
  std::uint64_t header = 0;
  auto bits = [&header](std::uint64_t value, int count) { header = (header << count) | value; };
  bits(0xFFF, 12);  // syncword
  bits(0, 1);       // MPEG-4
  bits(0, 2);       // layer
  bits(1, 1);       // no CRC
  bits(1, 2);       // profile: AAC-LC
  bits(6, 4);       // 24000 Hz
  bits(0, 1);       // private
  bits(1, 3);       // one channel
  bits(0, 4);       // original, home, copyright bits
  bits(kFrameBytes, 13);
  bits(0x7FF, 11);  // variable bit rate
  bits(0, 2);       // one raw data block
  std::string frame;
  putBigEndian(frame, header, 7);
  frame.append(reinterpret_cast<char const*>(kSilentBlock), sizeof(kSilentBlock));
  std::string out;
  std::uint64_t samples = std::uint64_t{duration_ms} * kPcmRate / 1000;
  for (std::uint32_t i = framesFor(samples, 1024); i > 0; --i) out += frame;
  return out;
}

/// FLAC's UTF-8-like coding of a frame number (up to 2^16 here).
void putFrameNumber(std::string& out, std::uint32_t n) {
  if (n < 0x80) {
    out.push_back(static_cast<char>(n));
  } else if (n < 0x800) {
    out.push_back(static_cast<char>(0xC0 | (n >> 6)));
    out.push_back(static_cast<char>(0x80 | (n & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xE0 | (n >> 12)));
    out.push_back(static_cast<char>(0x80 | ((n >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (n & 0x3F)));
  }
}

/// FLAC, 24 kHz 16-bit mono, fixed blocks of 4096 samples, each a constant subframe of 0.
std::string flac(std::uint32_t duration_ms) {
  constexpr std::uint64_t kBlock = 4096;
  std::uint32_t frames = framesFor(std::uint64_t{duration_ms} * kPcmRate / 1000, kBlock);
  std::string out = "fLaC";
  out.push_back('\x80');  // the last metadata block: STREAMINFO
  putBigEndian(out, 34, 3);
  putBigEndian(out, kBlock, 2);  // minimum and maximum block size
  putBigEndian(out, kBlock, 2);
  putBigEndian(out, 0, 3);  // frame sizes unknown
  putBigEndian(out, 0, 3);
  // sample rate (20 bits), channels - 1 (3), bits per sample - 1 (5), total samples (36)
  putBigEndian(out, (std::uint64_t{kPcmRate} << 44) | (std::uint64_t{15} << 36) | (frames * kBlock),
               8);
  out.append(16, '\0');  // MD5 of the audio: unknown
  for (std::uint32_t n = 0; n < frames; ++n) {
    // sync + fixed blocking, 4096 samples + 24 kHz, mono + 16 bits
    std::string frame("\xFF\xF8\xC7\x08", 4);
    putFrameNumber(frame, n);
    frame.push_back(static_cast<char>(flacCrc8(frame)));
    frame += std::string("\x00\x00\x00", 3);  // a constant subframe, value 0
    putBigEndian(frame, flacCrc16(frame), 2);
    out += frame;
  }
  return out;
}

/// One Ogg page holding whole `packets` (each under 255 bytes).
void putOggPage(std::string& out, std::uint8_t flags, std::uint64_t granule, std::uint32_t serial,
                std::uint32_t sequence, std::vector<std::string> const& packets) {
  std::string page = "OggS";
  page.push_back('\0');  // version
  page.push_back(static_cast<char>(flags));
  putLittleEndian(page, granule, 8);
  putLittleEndian(page, serial, 4);
  putLittleEndian(page, sequence, 4);
  putLittleEndian(page, 0, 4);  // the CRC, filled in below
  page.push_back(static_cast<char>(packets.size()));
  for (auto const& packet : packets) page.push_back(static_cast<char>(packet.size()));
  for (auto const& packet : packets) page += packet;
  std::uint32_t crc = oggCrc32(page);
  for (int i = 0; i < 4; ++i) page[22 + i] = static_cast<char>(crc >> (8 * i));
  out += page;
}

/// Ogg Opus (RFC 7845), mono: 20 ms packets that are a lone TOC byte (CELT, fullband): a frame
/// of zero bytes, which decoders play as silence.
std::string opus(std::uint32_t duration_ms, std::uint64_t seed) {
  constexpr std::uint16_t kPreSkip = 312;
  constexpr std::uint32_t kPacketsPerPage = 50;
  auto serial = static_cast<std::uint32_t>(seed);
  std::string head = "OpusHead";
  head.push_back('\x01');  // version
  head.push_back('\x01');  // one channel
  putLittleEndian(head, kPreSkip, 2);
  putLittleEndian(head, kPcmRate, 4);
  putLittleEndian(head, 0, 2);  // output gain
  head.push_back('\0');         // channel mapping family 0
  std::string tags = "OpusTags";
  std::string vendor = "llmux-mock";
  putLittleEndian(tags, vendor.size(), 4);
  tags += vendor;
  putLittleEndian(tags, 0, 4);  // no comments
  std::string out;
  std::uint32_t sequence = 0;
  putOggPage(out, 0x02, 0, serial, sequence++, {head});
  putOggPage(out, 0x00, 0, serial, sequence++, {tags});
  std::uint32_t packets = framesFor(duration_ms, 20);
  std::uint64_t granule = 0;
  for (std::uint32_t done = 0; done < packets;) {
    std::uint32_t count = std::min(kPacketsPerPage, packets - done);
    done += count;
    granule += std::uint64_t{count} * 960;  // 20 ms at 48 kHz
    putOggPage(out, done == packets ? 0x04 : 0x00, granule, serial, sequence++,
               std::vector<std::string>(count, std::string("\xF8", 1)));
  }
  return out;
}

}  // namespace

std::optional<AudioFormat> audioFormatNamed(std::string_view name) {
  if (name == "mp3") return AudioFormat::Mp3;
  if (name == "opus") return AudioFormat::Opus;
  if (name == "aac") return AudioFormat::Aac;
  if (name == "flac") return AudioFormat::Flac;
  if (name == "wav") return AudioFormat::Wav;
  if (name == "pcm") return AudioFormat::Pcm;
  return std::nullopt;
}

std::string_view audioContentType(AudioFormat format) {
  switch (format) {
    case AudioFormat::Mp3:
      return "audio/mpeg";
    case AudioFormat::Opus:
      return "audio/opus";
    case AudioFormat::Aac:
      return "audio/aac";
    case AudioFormat::Flac:
      return "audio/flac";
    case AudioFormat::Wav:
      return "audio/wav";
    case AudioFormat::Pcm:
      return "audio/pcm";
  }
  return "application/octet-stream";
}

std::string fakeAudio(AudioFormat format, std::uint32_t duration_ms, std::uint64_t seed) {
  switch (format) {
    case AudioFormat::Mp3:
      return mp3(duration_ms);
    case AudioFormat::Opus:
      return opus(duration_ms, seed);
    case AudioFormat::Aac:
      return aac(duration_ms);
    case AudioFormat::Flac:
      return flac(duration_ms);
    case AudioFormat::Wav:
      return wav(pcmTone(duration_ms, seed));
    case AudioFormat::Pcm:
      return pcmTone(duration_ms, seed);
  }
  return {};
}

}  // namespace llmux::mock
