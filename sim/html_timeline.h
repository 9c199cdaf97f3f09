// html_timeline.h - --html: one self-contained HTML file (inline JS and CSS, canvas drawing, no network) with the
// timeline of a timed run: rows per engine and DMA queue (DMA engines folded into their queue), zoom and pan,
// hover details (opcode, operands, times, source line, cost formula), semaphore dependency arrows, SBUF/PSUM
// usage tracks and a per-source-line panel; one section per core. Format of the embedded data: docs/html.md.
#pragma once
#include <functional>
#include <iosfwd>
#include <span>
#include <string>

#include "isa/program.h"
#include "isa/target.h"
#include "sim/simulate.h"

namespace nkisim::sim {

// The text of line `line` of kernel source file `file` ("" when unknown); called once per distinct location.
using SourceLineFn = std::function<std::string(const std::string& file, uint32_t line)>;

// Writes the page for programs[c] run as cores[c] (one core, or the cores of an LNC run). Each Result must come
// from a timed run with Options::trace (the slices, flows and counters --trace writes, plus the timeline
// records). `title` heads the page (e.g. the kernel file); `source` may be empty (no source text shown).
void write_html_timeline(std::span<const isa::Program> programs, std::span<const Result* const> cores,
                         const isa::TargetDesc& t, const std::string& title, const SourceLineFn& source,
                         std::ostream& os);

}  // namespace nkisim::sim
