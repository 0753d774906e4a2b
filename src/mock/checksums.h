#pragma once

// The checksums the mock's fake media files need to be valid files: a player or a parser that
// checks them accepts the mock's PNG, FLAC and Ogg bytes.

#include <cstdint>
#include <string_view>

namespace llmux::mock {

/// CRC-32 of zlib and PNG (reflected, polynomial 0xEDB88320).
std::uint32_t crc32(std::string_view bytes, std::uint32_t crc = 0);
/// Adler-32, the zlib stream's trailer.
std::uint32_t adler32(std::string_view bytes);
/// Ogg's page CRC-32 (not reflected, polynomial 0x04C11DB7, initial value 0).
std::uint32_t oggCrc32(std::string_view bytes);
/// FLAC's frame header CRC-8 (polynomial 0x07).
std::uint8_t flacCrc8(std::string_view bytes);
/// FLAC's frame CRC-16 (polynomial 0x8005).
std::uint16_t flacCrc16(std::string_view bytes);

}  // namespace llmux::mock
