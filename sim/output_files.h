// output_files.h - outputs written straight into their files (Options::output_file): each file's pages are
// mapped over the output's simulated HBM before the run, so the kernel's writes land in the file (its page
// cache) and nothing is copied after the run; the partial pages at both ends are written when it ends.
#pragma once
#include <vector>

#include "sim/memory.h"
#include "sim/simulate.h"

namespace nkisim::sim {

struct OutputFileMap {
  size_t tensor = 0;  // index in program.hbm_tensors
  size_t output = 0;  // position in the run's outputs (output_index order)
  OutputFile file;
};

// The files opts.output_file gives for the outputs that may be written in place (see Options::output_file).
std::vector<OutputFileMap> open_output_files(const isa::Program& p, const Options& opts);
// The HBM host offset (MemorySpace::init) that makes `f`'s file page-congruent with its output.
uint64_t output_host_offset(const isa::Program& p, const OutputFileMap& f);
// Maps each file over its output's HBM where hbm's layout allows it (output_host_offset); drops the others.
void map_output_files(MemorySpace& hbm, const isa::Program& p, std::vector<OutputFileMap>& files);
// After the run, once the outputs' bytes are final (collect_results): writes the unmapped bytes at both ends
// of each output and marks outputs[f.output].in_file. A file whose write fails stays unmarked (write_npy then
// writes the whole file again and reports the error).
void finish_output_files(MemorySpace& hbm, const isa::Program& p, const std::vector<OutputFileMap>& files,
                         std::vector<HostArray>& outputs);

}  // namespace nkisim::sim
