// compare.h - `nki-sim compare A B` (docs/profile.md "Compare"): two runs' --stats or --profile-json documents
// side by side, with per-engine, per-opcode and per-source-line deltas, as text or JSON.
#pragma once
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace nkisim::api {

// One run as compare reads it. An LNC document's per-core entries are keyed "core<C>.<key>".
struct RunDoc {
  std::string label;  // how the text names it (the file or kernel path)
  std::string kind;   // "stats" or "profile"
  std::string target;
  double total_ns = 0, instructions = 0;
  std::string verdict;  // profile only: "engine-bound (tensor)", "dma-latency-bound", ...; "" for stats
  std::vector<std::pair<std::string, double>> engine_busy_ns;  // document order
  struct Row {
    double count = 0, busy_ns = 0;
  };
  bool has_tables = false;  // profile documents: opcodes and source lines
  std::map<std::string, Row> opcodes, lines;
};

// Parses a --stats or --profile-json document (one core or LNC). Throws nkisim::Error naming `label` when the
// text is not JSON or not one of those documents.
RunDoc load_run_document(const std::string& text, const std::string& label);

// The comparison of B against A: end time, instructions and verdicts; engines (busy time); opcodes and source
// lines (when both are profiles) ordered by the size of the change. Deltas are B - A, ratios B / A. Source
// lines of two different single-file kernels are matched by line number.
std::string compare_text(const RunDoc& a, const RunDoc& b);
std::string compare_json(const RunDoc& a, const RunDoc& b);

}  // namespace nkisim::api
