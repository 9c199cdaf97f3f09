// fuzz_binary.cpp - libFuzzer target: decode_program must decode or throw nkisim::Error, never crash; what
// it decodes must re-encode to the same bytes and print/parse back to the same program.
#include <cstdlib>

#include "isa/asm_parse.h"
#include "isa/binary.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace nkisim::isa;
  Program p;
  try {
    p = decode_program(std::span<const uint8_t>(data, size), "fuzz.nkibin");
  } catch (const nkisim::Error&) {
    return 0;
  }
  // A decoded program is well formed, so every round trip must be exact (compared as bytes: NaN != NaN).
  const std::vector<uint8_t> in(data, data + size);
  if (encode_program(p) != in) std::abort();
  const std::string text = print_asm(p);
  if (encode_program(parse_asm(text, "fuzz.s")) != in) std::abort();
  return 0;
}
