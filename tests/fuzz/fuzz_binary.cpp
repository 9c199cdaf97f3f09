// fuzz_binary.cpp - libFuzzer target: decode_programs (one or two cores; docs/binary-format.md, docs/lnc.md)
// must decode or throw nkisim::Error, never crash; what it decodes must re-encode to the same bytes and
// print/parse back to the same programs. A one-core file must also decode with decode_program.
#include <cstdlib>

#include "isa/asm_parse.h"
#include "isa/binary.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace nkisim::isa;
  const std::span<const uint8_t> bytes(data, size);
  std::vector<Program> cores;
  try {
    cores = decode_programs(bytes, "fuzz.nkibin");
  } catch (const nkisim::Error&) {
    return 0;
  }
  // Decoded programs are well formed, so every round trip must be exact (compared as bytes: NaN != NaN).
  const std::vector<uint8_t> in(data, data + size);
  if (encode_programs(cores) != in) std::abort();
  if (encode_programs(parse_asm_cores(print_asm_cores(cores), "fuzz.s")) != in) std::abort();
  if (cores.size() == 1) {
    Program p;
    try {
      p = decode_program(bytes, "fuzz.nkibin");
    } catch (const nkisim::Error&) {
      std::abort();  // decode_programs accepted it as one core
    }
    if (encode_program(p) != in) std::abort();
    if (encode_program(parse_asm(print_asm(p), "fuzz.s")) != in) std::abort();
  }
  return 0;
}
