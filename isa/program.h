// program.h - what the hardware runs: per-engine instruction streams, HBM tensors, semaphores.
#pragma once
#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "isa/diagnostic.h"
#include "isa/instruction.h"

namespace nkisim::isa {

// A tensor that lives in HBM for the whole run (kernel inputs, outputs, internal HBM scratch).
struct HbmTensor {
  enum class Kind : uint8_t { Input, Output, Internal };
  std::string name;
  Kind kind = Kind::Internal;
  DType dtype = DType::float32;
  std::vector<int64_t> shape;
  uint64_t address = 0;  // byte address in the HBM space
  uint64_t bytes = 0;
  int32_t param_index = -1;   // Input: position among the kernel's tensor parameters
  int32_t output_index = -1;  // Output (or an Input that is also returned): position in the return tuple
  // Constant data (nl.shared_constant): an Internal tensor's initial contents, loaded into HBM before the
  // run. Empty (no initial contents) or exactly `bytes` long (check_constant_data).
  std::vector<uint8_t> init;
  bool operator==(const HbmTensor&) const = default;
};

// Contract: streams[e] is executed in order by engine e. Cross-engine order exists only through the
// semaphore waits/updates on instructions. Semaphores start at 0. locations[0] is the unknown location.
struct Program {
  std::string target = "trn2";
  std::string kernel_name;
  std::array<std::vector<Instruction>, kNumEngines> streams;
  uint32_t num_semaphores = 0;
  std::vector<HbmTensor> hbm_tensors;
  uint64_t hbm_bytes = 0;  // size of the HBM space the program uses
  std::vector<SourceLoc> locations{SourceLoc{}};
  std::vector<std::string> strings;  // device_print prefixes; instructions refer to them by index (params.text)
  bool operator==(const Program&) const = default;

  size_t num_instructions() const {
    size_t n = 0;
    for (auto& s : streams) n += s.size();
    return n;
  }
  uint32_t add_location(const SourceLoc& l);  // interns a location, returns its index
};

// Text assembly (docs/asm.md describes the grammar). print_asm is deterministic.
std::string print_asm(const Program& p);
// LNC=2 (docs/lnc.md): one program per physical core, each after a `.core C` directive; a single core prints
// exactly like print_asm.
std::string print_asm_cores(std::span<const Program> cores);
std::string print_instruction(const Instruction& ins);

// Throws a located-free Error when a tensor's constant data is not `bytes` long or belongs to a non-Internal
// tensor. The asm parser, the binary decoder and the simulator call it.
void check_constant_data(const HbmTensor& t);

}  // namespace nkisim::isa
