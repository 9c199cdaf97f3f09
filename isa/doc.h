// doc.h - renders the ISA reference (docs/isa.md) from the instruction table.
#pragma once
#include <string>

namespace nkisim::isa {

// The Markdown text of docs/isa.md. A test fails when the checked-in file differs; regenerate it with
// `build/nki-isa-doc > docs/isa.md`.
std::string render_isa_markdown();

}  // namespace nkisim::isa
