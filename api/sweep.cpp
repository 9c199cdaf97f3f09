// sweep.cpp - what-if sweeps (docs/profile.md "Sweeps"): the grid of settings, the arguments of one point,
// and the table of the points' results.
#include "isa/printf.h"
#include "api/sweep.h"

#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "isa/diagnostic.h"
#include "isa/target.h"

namespace nkisim::api {
using json = nlohmann::ordered_json;

namespace {

using isa::printf_string;

bool is_target_param(const std::string& name) {
  for (const isa::TargetParam& p : isa::target_params())
    if (name == p.name) return true;
  return false;
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::string item;
  std::stringstream ss(s);
  while (std::getline(ss, item, sep)) out.push_back(item);
  if (!s.empty() && s.back() == sep) out.push_back("");
  return out;
}

// The numbers of one point (a core's documents; LNC: the later core's end, the busiest core per engine).
struct PointNumbers {
  std::string target, verdict;
  double end_ns = 0, dma_bytes_per_ns = 0, mfu = 0;
  std::vector<std::pair<std::string, double>> active;  // engine -> active %
};

const char* const kEngines[] = {"tensor", "vector", "scalar", "gpsimd", "sync", "dma"};

PointNumbers numbers(const SweepResult& r) {
  PointNumbers n;
  const json stats = json::parse(r.stats_json), prof = json::parse(r.profile_json);
  n.target = stats.value("target", "");
  n.end_ns = stats.value("total_ns", 0.0);
  for (const char* e : kEngines) {
    double best = 0;
    for (const json& c : stats["cores"]) best = std::max(best, c["engines"][e].value("utilization_percent", 0.0));
    n.active.push_back({e, best});
  }
  for (const json& c : stats["cores"]) n.mfu = std::max(n.mfu, c.value("mfu_estimated_percent", 0.0));
  for (const json& c : prof["cores"]) {
    const json& v = c["verdict"];
    std::string e = v.value("engine", "");
    n.verdict += (n.verdict.empty() ? "" : "/") + v.value("kind", "") + (e.empty() ? "" : "(" + e + ")");
    n.dma_bytes_per_ns += c["dma"].value("bytes_per_ns", 0.0);
  }
  return n;
}

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

}  // namespace

std::vector<SweepAxis> parse_sweep(const std::vector<std::string>& specs, bool target_all) {
  std::vector<SweepAxis> axes;
  std::set<std::string> names;
  if (target_all) {
    axes.push_back({SweepAxis::Target, "target", {"trn1", "trn2", "trn3"}});
    names.insert("target");
  }
  size_t points = target_all ? 3 : 1;
  for (const std::string& spec : specs) {
    const size_t eq = spec.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == spec.size())
      throw Error("--sweep expects NAME=V1,V2,..., got '" + spec + "'");
    SweepAxis a;
    a.name = spec.substr(0, eq);
    a.values = split(spec.substr(eq + 1), ',');
    for (const std::string& v : a.values)
      if (v.empty()) throw Error("--sweep " + spec + ": an empty value");
    if (!names.insert(a.name).second)
      throw Error("--sweep " + a.name + ": swept twice (with --target all, 'target' is swept already)");
    if (a.name == "target") {
      a.kind = SweepAxis::Target;
      for (const std::string& v : a.values)
        if (!isa::find_target(v)) throw Error("--sweep target: unknown target '" + v + "' (expected trn1, trn2 or trn3)");
    } else if (is_target_param(a.name)) {
      a.kind = SweepAxis::Param;
      isa::TargetDesc probe = *isa::find_target("trn2");
      for (const std::string& v : a.values) {
        char* end = nullptr;
        const double x = std::strtod(v.c_str(), &end);
        if (*end != '\0') throw Error("--sweep " + a.name + ": '" + v + "' is not a number");
        isa::set_target_param(probe, a.name, x);  // range check: throws naming the parameter and its range
      }
    } else {
      a.kind = SweepAxis::Arg;
    }
    points *= a.values.size();
    if (points > kMaxSweepPoints)
      throw Error("--sweep: more than " + std::to_string(kMaxSweepPoints) + " points in the grid");
    axes.push_back(std::move(a));
  }
  return axes;
}

std::vector<std::vector<std::string>> sweep_points(const std::vector<SweepAxis>& axes) {
  std::vector<std::vector<std::string>> out{{}};
  for (const SweepAxis& a : axes) {
    std::vector<std::vector<std::string>> next;
    for (const auto& p : out)
      for (const std::string& v : a.values) {
        next.push_back(p);
        next.back().push_back(v);
      }
    out = std::move(next);
  }
  return out;
}

std::vector<std::string> sweep_point_args(const std::vector<SweepAxis>& axes, const std::vector<std::string>& point) {
  std::vector<std::string> args;
  for (size_t i = 0; i < axes.size() && i < point.size(); ++i) {
    if (axes[i].kind == SweepAxis::Target) args.insert(args.end(), {"--target", point[i]});
    else args.insert(args.end(), {axes[i].kind == SweepAxis::Param ? "--param" : "--arg", axes[i].name + "=" + point[i]});
  }
  return args;
}

std::vector<std::string> strip_options(const std::vector<std::string>& args, const std::vector<std::string>& with_value,
                                       const std::vector<std::string>& flags) {
  std::vector<std::string> out;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    bool drop = false;
    for (const std::string& o : with_value) {
      if (a == o) {
        drop = true;
        ++i;  // its value
      } else if (o.rfind("--", 0) == 0 && a.rfind(o + "=", 0) == 0) {
        drop = true;
      }
      if (drop) break;
    }
    for (const std::string& f : flags) drop = drop || a == f;
    if (!drop) out.push_back(a);
  }
  return out;
}

std::string format_sweep(const std::vector<SweepAxis>& axes, const std::vector<SweepResult>& rows,
                         const std::string& format) {
  if (format != "text" && format != "csv" && format != "json")
    throw Error("--sweep-format: expected text, csv or json, got '" + format + "'");
  std::vector<std::string> head{"target"};
  for (const SweepAxis& a : axes)
    if (a.kind != SweepAxis::Target) head.push_back(a.name);
  const size_t fixed = head.size();
  head.insert(head.end(), {"end_us", "verdict"});
  for (const char* e : kEngines) head.push_back(std::string(e) + "_active_pct");
  head.insert(head.end(), {"dma_bytes_per_ns", "mfu_pct"});

  std::vector<std::vector<std::string>> table;
  json doc = json::array();
  for (const SweepResult& r : rows) {
    std::vector<std::string> cells(fixed);
    json row = json::object();
    for (size_t i = 0; i < axes.size() && i < r.point.size(); ++i)
      if (axes[i].kind == SweepAxis::Target) cells[0] = r.point[i];
    for (size_t i = 0, c = 1; i < axes.size() && i < r.point.size(); ++i)
      if (axes[i].kind != SweepAxis::Target) cells[c++] = r.point[i];
    if (cells[0].empty()) cells[0] = r.target;
    if (!r.error.empty()) {
      for (size_t c = 0; c < fixed; ++c) row[head[c]] = cells[c];
      row["error"] = r.error;
      cells.push_back("error");
      cells.push_back(r.error);
      table.push_back(cells);
      doc.push_back(row);
      continue;
    }
    PointNumbers n;
    try {
      n = numbers(r);
    } catch (const json::exception& e) {
      throw Error(std::string("sweep: a run's documents do not parse: ") + e.what());
    }
    if (cells[0].empty()) cells[0] = n.target;
    for (size_t c = 0; c < fixed; ++c) row[head[c]] = cells[c];
    row["end_ns"] = n.end_ns;
    row["verdict"] = n.verdict;
    cells.push_back(printf_string("%.3f", n.end_ns / 1000.0));
    cells.push_back(n.verdict);
    json active = json::object();
    for (auto& [e, pct] : n.active) {
      cells.push_back(printf_string("%.1f", pct));
      active[e] = pct;
    }
    row["active_percent"] = std::move(active);
    row["dma_bytes_per_ns"] = n.dma_bytes_per_ns;
    row["mfu_percent"] = n.mfu;
    cells.push_back(printf_string("%.1f", n.dma_bytes_per_ns));
    cells.push_back(printf_string("%.2f", n.mfu));
    table.push_back(cells);
    doc.push_back(std::move(row));
  }
  if (format == "json") {
    json axes_j = json::array();
    for (const SweepAxis& a : axes)
      axes_j.push_back({{"name", a.name},
                        {"kind", a.kind == SweepAxis::Target ? "target" : a.kind == SweepAxis::Param ? "param" : "arg"},
                        {"values", a.values}});
    return json{{"schema", "nki-sim-sweep/1"}, {"axes", std::move(axes_j)}, {"rows", std::move(doc)}}.dump(2) + "\n";
  }
  std::string s;
  if (format == "csv") {
    for (size_t c = 0; c < head.size(); ++c) s += (c ? "," : "") + csv_field(head[c]);
    s += "\n";
    for (const auto& cells : table) {
      for (size_t c = 0; c < cells.size(); ++c) s += (c ? "," : "") + csv_field(cells[c]);
      s += "\n";
    }
    return s;
  }
  // Text: columns as wide as their widest cell; numbers right-aligned. An error row's message runs on.
  std::vector<size_t> width(head.size());
  for (size_t c = 0; c < head.size(); ++c) width[c] = head[c].size();
  for (const auto& cells : table)
    if (cells.size() == head.size())
      for (size_t c = 0; c < cells.size(); ++c) width[c] = std::max(width[c], cells[c].size());
  auto line = [&](const std::vector<std::string>& cells) {
    std::string l;
    for (size_t c = 0; c < cells.size(); ++c) {
      const bool left = c < fixed || c == fixed + 1 || cells.size() != head.size();
      const size_t w = c < width.size() && (cells.size() == head.size() || c < fixed) ? width[c] : 0;
      l += (c ? "  " : "") + (left ? cells[c] + std::string(w - std::min(w, cells[c].size()), ' ')
                                   : std::string(w - std::min(w, cells[c].size()), ' ') + cells[c]);
    }
    while (!l.empty() && l.back() == ' ') l.pop_back();
    return l + "\n";
  };
  s += line(head);
  for (const auto& cells : table) s += line(cells);
  return s;
}

}  // namespace nkisim::api
