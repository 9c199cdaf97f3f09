// sha256.h - SHA-256 (FIPS 180-4) of bytes and files, as lowercase hex: the hashes a bundle's manifest records.
#pragma once
#include <string>
#include <string_view>

namespace nkisim::api {

std::string sha256_hex(std::string_view bytes);
// The hash of a regular file's contents; Error naming the file when it cannot be read.
std::string sha256_file(const std::string& path);

}  // namespace nkisim::api
