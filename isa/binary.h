// binary.h - the nki-sim binary program format (.nkibin; layout in docs/binary-format.md).
#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "isa/program.h"

namespace nkisim::isa {

inline constexpr uint32_t kBinaryFormatVersion = 7;  // 2: register/branch params; 3: STRS, device_print, dup_idx; 4: CORE (LNC=2); 5: operand dynamic offsets; 6: tensor constant data; 7: only the fields each instruction takes (docs/binary-format.md)
inline constexpr size_t kMaxBinaryCores = 2;          // LNC=2: a file holds one program per physical core

// Serialises a program: magic "NKISIMB\0", format version, then the header, HBM tensor, location and
// five stream sections. Little-endian, fixed-width fields, length-prefixed strings and arrays.
// Deterministic: equal programs give equal bytes. An instruction stores only the fields it takes (PARAMS);
// one that sets another field (isa::untaken_param) throws Error naming the instruction and the field.
std::vector<uint8_t> encode_program(const Program& p);

// The inverse: decode_program(encode_program(p), f) == p for every well-formed program p (see the doc).
// Any malformed input (truncated, bad magic or version, counts or lengths beyond the remaining bytes,
// enum values or indices out of range, trailing bytes) throws nkisim::Error located at
// SourceLoc{filename} with the byte offset in the message. Never reads out of bounds; allocation is
// bounded by a constant times the input size.
// A file holding exactly one core's program; an LNC=2 file is an Error (use decode_programs).
Program decode_program(std::span<const uint8_t> bytes, const std::string& filename);

// LNC=2 programs (docs/lnc.md): cores[c] is physical core c's program. encode_programs writes core 0's
// sections, then per further core a CORE section (its index) and that core's sections; a single core
// encodes exactly like encode_program. decode_programs reads 1 or 2 cores with the same checks as above.
std::vector<uint8_t> encode_programs(std::span<const Program> cores);
std::vector<Program> decode_programs(std::span<const uint8_t> bytes, const std::string& filename);

}  // namespace nkisim::isa
