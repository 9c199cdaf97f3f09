// compile_and_run.cpp - one run from a kernel file or a binary program file to its simulation (api/run.h): the
// policy the command line and the Python package share.
#include <cctype>

#include "api/run.h"
#include "isa/binary.h"

namespace nkisim::api {
namespace {

// "vector instruction 3 (memset)": the simulator's unlocated note naming the failing instruction.
bool names_instruction(const std::string& note) {
  const size_t at = note.find(" instruction ");
  return at != std::string::npos && at > 0 && note.find(' ') == at && at + 13 < note.size() &&
         std::isdigit(static_cast<unsigned char>(note[at + 13]));
}

// A binary program file's programs on their target: the one they were compiled for unless the caller chose one.
Compiled decode(const RunRequest& req) {
  const std::string& path = req.compile.kernel_path;
  Compiled c;
  c.programs = isa::decode_programs(*req.program, path);
  c.target = req.compile.target;
  if (!req.target_given && c.programs[0].target != c.target.name) {
    std::optional<isa::TargetDesc> t = isa::find_target(c.programs[0].target);
    if (!t) throw Error(path + ": unknown target '" + c.programs[0].target + "'");
    for (auto& [name, v] : req.compile.params) isa::set_target_param(*t, name, v);
    c.target = *t;
  }
  for (const isa::Program& p : c.programs) isa::check_program_fits(p, c.target, path);
  isa::check_lnc(c.target, c.lnc(), SourceLoc{path});
  return c;
}

}  // namespace

Run run_compiled(const Compiled& c, std::span<const sim::HostArray> inputs, sim::Options o) {
  o.target = c.target;
  if (o.checks) o.check_names = c.check_names;
  return api::simulate(c.programs, inputs, o);
}

Outcome compile_and_run(RunRequest req) {
  Outcome out;
  out.compiled = req.program ? decode(req) : compile_kernel(req.compile);
  if (req.before_run) req.before_run(out.compiled);
  try {
    out.run = run_compiled(out.compiled, req.inputs, std::move(req.options));
  } catch (Error& e) {
    // A program without .loc: a run-time error names the program file and the instruction (the simulator's
    // unlocated note), `prog.nkibin: error: vector instruction 3 (memset): ...`.
    if (!req.program || e.loc) throw;
    std::string msg = e.what();
    std::vector<std::pair<SourceLoc, std::string>> notes;
    bool named = false;  // the simulator's first unlocated note names the instruction; the rest stay notes
    for (auto& n : e.notes)
      if (!named && n.first.file.empty() && !n.first.known() && names_instruction(n.second)) {
        msg = n.second + ": " + msg;
        named = true;
      } else {
        notes.push_back(n);
      }
    Error located(msg, SourceLoc{req.compile.kernel_path});
    located.notes = std::move(notes);
    located.index_error = e.index_error;
    throw located;
  }
  return out;
}

}  // namespace nkisim::api
