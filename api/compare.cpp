// compare.cpp - `nki-sim compare`: reads two --stats / --profile-json documents and prints B against A
// (docs/profile.md "Compare").
#include "isa/printf.h"
#include "api/compare.h"

#include <algorithm>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <set>

#include "isa/diagnostic.h"

namespace nkisim::api {
using json = nlohmann::ordered_json;

namespace {

constexpr size_t kTableRows = 25;  // opcode / source-line rows in the text (the JSON lists all)

using isa::printf_string;

double num(const json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_number() ? it->get<double>() : 0.0;
}

// One core's document (stats or profile) into `d`, its keys prefixed by `prefix`.
void read_core(const json& j, const std::string& prefix, RunDoc& d) {
  auto engines = j.find("engines");
  if (engines == j.end() || !engines->is_object()) throw Error(d.label + ": not an nki-sim stats or profile document");
  for (auto& [name, e] : engines->items())
    if (e.is_object()) d.engine_busy_ns.push_back({prefix + name, num(e, "busy_ns")});
  d.instructions += num(j, "instructions");
  if (j.contains("target") && j["target"].is_string()) d.target = j["target"].get<std::string>();
  if (auto v = j.find("verdict"); v != j.end() && v->is_object()) {
    std::string kind = v->value("kind", ""), engine = v->value("engine", "");
    std::string text = engine.empty() ? kind : kind + " (" + engine + ")";
    d.verdict += (d.verdict.empty() ? "" : ", ") + (prefix.empty() ? text : prefix.substr(0, prefix.size() - 1) + " " + text);
  }
  for (auto [field, table, key] : {std::tuple{"opcodes", &d.opcodes, "opcode"}, std::tuple{"lines", &d.lines, "line"}}) {
    auto rows = j.find(field);
    if (rows == j.end() || !rows->is_array()) continue;
    d.has_tables = true;
    for (const json& row : *rows) {
      if (!row.is_object() || !row.contains(key) || !row[key].is_string()) continue;
      RunDoc::Row& r = (*table)[prefix + row[key].get<std::string>()];
      r.count += num(row, "count");
      r.busy_ns += num(row, "busy_ns");
    }
  }
}

// "file.py:12" -> file.py; keys without a colon -> "".
std::string file_of(const std::string& key) {
  const size_t c = key.rfind(':');
  return c == std::string::npos ? "" : key.substr(0, c);
}

// Two single-file kernels of different names: match their source lines by number ("line 12").
void match_lines(std::map<std::string, RunDoc::Row>& a, std::map<std::string, RunDoc::Row>& b) {
  auto files = [](const std::map<std::string, RunDoc::Row>& m) {
    std::set<std::string> s;
    for (auto& [k, r] : m)
      if (k != "?") s.insert(file_of(k));
    return s;
  };
  const std::set<std::string> fa = files(a), fb = files(b);
  if (fa.size() != 1 || fb.size() != 1 || fa == fb) return;
  for (auto* m : {&a, &b}) {
    std::map<std::string, RunDoc::Row> out;
    for (auto& [k, r] : *m) {
      RunDoc::Row& o = out[k == "?" ? k : "line " + k.substr(k.rfind(':') + 1)];
      o.count += r.count;
      o.busy_ns += r.busy_ns;
    }
    *m = std::move(out);
  }
}

struct Delta {
  std::string key;
  double a = 0, b = 0, a_count = 0, b_count = 0;
};

// Rows of both maps, largest |B - A| first (ties: key order).
std::vector<Delta> deltas(const std::map<std::string, RunDoc::Row>& a, const std::map<std::string, RunDoc::Row>& b) {
  std::map<std::string, Delta> m;
  for (auto& [k, r] : a) m[k].a = r.busy_ns, m[k].a_count = r.count;
  for (auto& [k, r] : b) m[k].b = r.busy_ns, m[k].b_count = r.count;
  std::vector<Delta> out;
  for (auto& [k, d] : m) {
    out.push_back(d);
    out.back().key = k;
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const Delta& x, const Delta& y) { return std::fabs(x.b - x.a) > std::fabs(y.b - y.a); });
  return out;
}

std::vector<Delta> engine_deltas(const RunDoc& a, const RunDoc& b) {
  std::vector<Delta> out;
  auto row = [&](const std::string& k) -> Delta& {
    for (Delta& d : out)
      if (d.key == k) return d;
    out.push_back(Delta{k});
    return out.back();
  };
  for (auto& [k, ns] : a.engine_busy_ns) row(k).a = ns;
  for (auto& [k, ns] : b.engine_busy_ns) row(k).b = ns;
  return out;
}

std::string ratio_text(double a, double b) { return a != 0 ? printf_string("%.3f", b / a) : "-"; }
json ratio_json(double a, double b) { return a != 0 ? json(b / a) : json(nullptr); }

std::string us_row(const std::string& key, double a, double b, const std::string& extra = "") {
  return printf_string("  %-28s %12.3f %12.3f %+12.3f %8s%s\n", key.c_str(), a / 1000.0, b / 1000.0, (b - a) / 1000.0,
             ratio_text(a, b).c_str(), extra.c_str());
}

std::string header(const char* key) {
  return printf_string("  %-28s %12s %12s %12s %8s", key, "A", "B", "B - A", "B / A");
}

}  // namespace

RunDoc load_run_document(const std::string& text, const std::string& label) {
  json j;
  try {
    j = json::parse(text);
  } catch (const json::exception& e) {
    throw Error(label + ": not JSON: " + e.what());
  }
  if (!j.is_object()) throw Error(label + ": not an nki-sim stats or profile document");
  RunDoc d;
  d.label = label;
  const auto schema = j.find("schema");
  const bool profile = schema != j.end() && schema->is_string() && schema->get<std::string>().rfind("nki-sim-profile/", 0) == 0;
  d.kind = profile ? "profile" : "stats";
  d.total_ns = num(j, "total_ns");
  if (auto cores = j.find("cores"); cores != j.end() && cores->is_array()) {
    for (size_t c = 0; c < cores->size(); ++c) {
      if (!(*cores)[c].is_object()) throw Error(label + ": core " + std::to_string(c) + " is not a document");
      read_core((*cores)[c], cores->size() == 1 ? "" : "core" + std::to_string(c) + ".", d);
    }
    if (j.contains("target") && j["target"].is_string()) d.target = j["target"].get<std::string>();
  } else {
    read_core(j, "", d);
  }
  return d;
}

std::string compare_text(const RunDoc& a0, const RunDoc& b0) {
  RunDoc a = a0, b = b0;
  match_lines(a.lines, b.lines);
  std::string s = printf_string("Compare: A = %s (%s, %s); B = %s (%s, %s)\n", a.label.c_str(), a.kind.c_str(), a.target.c_str(),
                      b.label.c_str(), b.kind.c_str(), b.target.c_str());
  s += header("") + "\n";
  s += us_row("end time (us)", a.total_ns, b.total_ns);
  s += printf_string("  %-28s %12.0f %12.0f %+12.0f %8s\n", "instructions", a.instructions, b.instructions,
           b.instructions - a.instructions, ratio_text(a.instructions, b.instructions).c_str());
  if (!a.verdict.empty() || !b.verdict.empty())
    s += "  verdict: A " + (a.verdict.empty() ? "-" : a.verdict) + "; B " + (b.verdict.empty() ? "-" : b.verdict) + "\n";
  s += "\nEngines (busy us):\n" + header("engine") + "\n";
  for (const Delta& d : engine_deltas(a, b)) s += us_row(d.key, d.a, d.b);
  if (!a.has_tables || !b.has_tables) {
    s += "\n(opcodes and source lines: compare two --profile-json documents)\n";
    return s;
  }
  for (auto [title, key, am, bm] : {std::tuple{"Opcodes", "opcode", &a.opcodes, &b.opcodes},
                                    std::tuple{"Source lines", "source line", &a.lines, &b.lines}}) {
    const std::vector<Delta> rows = deltas(*am, *bm);
    s += printf_string("\n%s (busy us, largest change first; DMA transfers: data start to completion):\n", title);
    s += header(key) + "  count A -> B\n";
    for (size_t i = 0; i < rows.size() && i < kTableRows; ++i)
      s += us_row(rows[i].key, rows[i].a, rows[i].b, printf_string("  %.0f -> %.0f", rows[i].a_count, rows[i].b_count));
    if (rows.size() > kTableRows) s += printf_string("  ... %zu more (--json lists all)\n", rows.size() - kTableRows);
  }
  return s;
}

std::string compare_json(const RunDoc& a0, const RunDoc& b0) {
  RunDoc a = a0, b = b0;
  match_lines(a.lines, b.lines);
  json j;
  j["schema"] = "nki-sim-compare/1";
  j["a"] = {{"label", a.label}, {"kind", a.kind}, {"target", a.target}, {"verdict", a.verdict}};
  j["b"] = {{"label", b.label}, {"kind", b.kind}, {"target", b.target}, {"verdict", b.verdict}};
  auto pair = [](double x, double y) {
    return json{{"a", x}, {"b", y}, {"delta", y - x}, {"ratio", ratio_json(x, y)}};
  };
  j["total_ns"] = pair(a.total_ns, b.total_ns);
  j["instructions"] = pair(a.instructions, b.instructions);
  json engines = json::array();
  for (const Delta& d : engine_deltas(a, b)) {
    json row = {{"engine", d.key}};
    row.update(pair(d.a, d.b));
    engines.push_back(std::move(row));
  }
  j["engines_busy_ns"] = std::move(engines);
  if (a.has_tables && b.has_tables)
    for (auto [field, key, am, bm] : {std::tuple{"opcodes", "opcode", &a.opcodes, &b.opcodes},
                                      std::tuple{"lines", "line", &a.lines, &b.lines}}) {
      json rows = json::array();
      for (const Delta& d : deltas(*am, *bm)) {
        json row = {{key, d.key}, {"a_count", d.a_count}, {"b_count", d.b_count}};
        row.update(pair(d.a, d.b));
        rows.push_back(std::move(row));
      }
      j[field] = std::move(rows);
    }
  return j.dump(2) + "\n";
}

}  // namespace nkisim::api
