// Record signatures and fixed sizes of the zip format (PKWARE APPNOTE.TXT), shared by zip_reader and zip_writer.
#pragma once

#include <cstddef>
#include <cstdint>

namespace hone::zip {

constexpr uint32_t kLocalHeaderSig = 0x04034b50;     // "PK\3\4"
constexpr uint32_t kCentralHeaderSig = 0x02014b50;   // "PK\1\2"
constexpr uint32_t kEndSig = 0x06054b50;             // "PK\5\6"
constexpr uint32_t kZip64EndSig = 0x06064b50;        // "PK\6\6"
constexpr uint32_t kZip64LocatorSig = 0x07064b50;    // "PK\6\7"

constexpr size_t kLocalHeaderSize = 30;
constexpr size_t kCentralHeaderSize = 46;
constexpr size_t kEndSize = 22;
constexpr size_t kZip64EndSize = 56;
constexpr size_t kZip64LocatorSize = 20;
constexpr size_t kMaxCommentSize = 0xFFFF;

constexpr uint16_t kZip64ExtraId = 0x0001;
constexpr uint16_t kMethodStored = 0;
constexpr uint16_t kMethodDeflate = 8;
constexpr uint16_t kFlagEncrypted = 0x0001;
constexpr uint16_t kFlagStrongEncryption = 0x0040;
constexpr uint16_t kFlagUtf8 = 0x0800;

// A 32-bit (16-bit) field holding this value means "the real value is in the zip64 extra field (record)".
constexpr uint32_t kZip64Marker32 = 0xFFFFFFFF;
constexpr uint16_t kZip64Marker16 = 0xFFFF;

}  // namespace hone::zip
