// check_report.cpp - findings as compiler-style text (the diagnostic printer of isa/diagnostic.h) and as JSON.
#include <map>
#include <nlohmann/json.hpp>
#include <ostream>
#include <sstream>

#include "sim/check.h"

namespace nkisim::sim {

CheckSpec parse_check_spec(const std::string& spec) {
  CheckSpec c;
  std::stringstream ss(spec);
  std::string item;
  while (std::getline(ss, item, ',')) {
    if (item == "init") c.checks |= kCheckInit;
    else if (item == "race") c.checks |= kCheckRace;
    else if (item == "sync") c.checks |= kCheckSync;
    else if (item == "all") c.checks |= kCheckAll;
    else if (item == "error") c.errors = true;
    else if (item == "warn") c.errors = false;
    else throw Error("--check: unknown item '" + item + "' (expected init, race, sync, all, error or warn)");
  }
  if (!c.checks) c.checks = kCheckAll;
  return c;
}

std::string format_findings(const std::vector<Finding>& findings,
                            const std::function<std::optional<std::string>(const std::string&, uint32_t)>& read_line,
                            size_t full, const char* tool) {
  std::string out;
  std::map<std::string, size_t> rest;  // kind -> findings not printed in full
  for (size_t i = 0; i < findings.size(); ++i) {
    const Finding& f = findings[i];
    if (i >= full) {
      ++rest[f.kind];
      continue;
    }
    out += format_located(f.loc, f.severity.c_str(), f.kind + ": " + f.message, f.notes, read_line, tool);
  }
  for (const auto& [kind, n] : rest)
    out += std::string(tool) + ": note: " + std::to_string(n) + " more " + kind + " finding" + (n == 1 ? "" : "s") +
           " not shown (--check-json FILE lists them all)\n";
  return out;
}

void write_findings_json(const std::vector<Finding>& findings, std::ostream& os) {
  using json = nlohmann::ordered_json;
  auto where = [](json& j, const std::optional<SourceLoc>& l) {
    j["file"] = l ? l->file : "";
    j["line"] = l ? l->line : 0;
    j["col"] = l ? l->col : 0;
  };
  json all = json::array();
  std::map<std::string, size_t> counts;
  for (const Finding& f : findings) {
    json j;
    j["kind"] = f.kind;
    j["severity"] = f.severity;
    j["core"] = f.core;
    j["engine"] = f.engine >= 0 ? std::string(isa::engine_name(isa::Engine(f.engine))) : std::string();
    j["index"] = f.index;
    j["opcode"] = f.opcode;
    where(j, f.loc);
    j["tensor"] = f.tensor;
    j["message"] = f.message;
    json notes = json::array();
    for (const auto& [loc, text] : f.notes) {
      json n;
      where(n, loc);
      n["message"] = text;
      notes.push_back(std::move(n));
    }
    j["notes"] = std::move(notes);
    all.push_back(std::move(j));
    ++counts[f.kind];
  }
  json top;
  top["findings"] = std::move(all);
  top["counts"] = counts;
  os << top.dump(2) << "\n";
}

}  // namespace nkisim::sim
