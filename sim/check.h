// check.h - run-time checks the hardware cannot give (docs/checks.md): initcheck (reads of never-written
// memory, outputs not fully written, PSUM accumulation onto never-written data), racecheck (unordered
// conflicting accesses) and synccheck (waits that can never be satisfied, semaphore overflow, semaphores left
// above every wait), reported as Findings.
#pragma once
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "isa/diagnostic.h"
#include "isa/program.h"

namespace nkisim::sim {

class ExecContext;

// Which checks a run does (sim::Options::checks). 0 = none: no shadow state, nothing is paid.
enum CheckBits : uint8_t { kCheckInit = 1, kCheckRace = 2, kCheckSync = 4, kCheckAll = 7 };
// The --check=SPEC option: a comma-separated list of init, race, sync, all (every check) and error (findings are
// errors: the run fails); naming no check means all of them ("error" alone = every check, as errors). Throws
// Error naming a bad item.
struct CheckSpec {
  uint8_t checks = 0;
  bool errors = false;
};
CheckSpec parse_check_spec(const std::string& spec);

// One problem a check found. Locations point at the kernel line of the instruction (like an Error).
struct Finding {
  std::string kind;              // "initcheck", "racecheck", "synccheck"
  std::string severity = "warning";  // "warning", or "error" with --check=error
  int core = 0;                  // physical core (LNC=2), else 0
  int engine = -1;               // isa::Engine of the instruction, -1 = none (e.g. an output at the end)
  int64_t index = -1;            // position of the instruction in its engine's stream (the program counter)
  std::string opcode;            // mnemonic, or "" when not about one instruction
  std::optional<SourceLoc> loc;  // the instruction's .loc, or the kernel file alone
  std::string tensor;            // "t[0:128, 448:512]" (the element range the finding is about), or ""
  std::string message;           // the text after "<kind>: "
  std::vector<std::pair<SourceLoc, std::string>> notes;  // e.g. the other instruction of a race
};

// Names for on-chip memory in findings: a region of SBUF or PSUM that the kernel called `name`, laid out as
// `shape` (shape[0] partitions from start_partition, the rest row-major from byte `offset` of each partition).
// The back end reuses on-chip memory, so several may cover one byte; the latest-declared one wins.
struct OnChipName {
  std::string name;
  isa::Memory mem = isa::Memory::SBUF;
  isa::DType dtype = isa::DType::float32;
  std::vector<int64_t> shape;
  uint32_t start_partition = 0;
  int64_t offset = 0;
};

// A deadlock (a wait that no remaining update can satisfy) as a located Error naming both sides: the waiting
// instruction, and as notes the instructions that update semaphore `sem` - those that ran and those that never
// will (`reached[e]` = how far engine e got). Always on: it costs nothing until a run is stuck.
[[noreturn]] void throw_deadlock(const ExecContext& ctx, const isa::Instruction& ins, const std::string& msg,
                                 uint16_t sem, std::span<const size_t> reached);

// Compiler-style text of findings: the first `full` in full (location, source line, caret, notes), then one
// line per kind with the count of the rest. "" when there are none.
std::string format_findings(const std::vector<Finding>& findings,
                            const std::function<std::optional<std::string>(const std::string&, uint32_t)>& read_line,
                            size_t full = 10, const char* tool = "nki-sim");
// --check-json: {"findings": [{kind, severity, core, engine, index, opcode, file, line, col, tensor, message,
// notes: [{file, line, col, message}]}], "counts": {kind: n}}.
void write_findings_json(const std::vector<Finding>& findings, std::ostream& os);

}  // namespace nkisim::sim
