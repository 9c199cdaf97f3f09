// calibrate.cpp - device results against the kernel re-simulated from its bundle: the model-error table.
#include "api/calibrate.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "api/bundle.h"
#include "isa/diagnostic.h"

namespace nkisim::api {

namespace fs = std::filesystem;
using nlohmann::ordered_json;

namespace {

constexpr const char* kResultsFormat = "nki-sim-device-results";

const ordered_json& need(const ordered_json& j, const char* key, const std::string& where) {
  if (!j.is_object() || !j.contains(key)) throw Error(std::string("missing key '") + key + "'", SourceLoc{where, 0, 0});
  return j.at(key);
}

std::string shape_text(const Manifest& m) {
  std::string s;
  for (const BundleTensor& t : m.inputs) {
    if (!s.empty()) s += ",";
    for (size_t i = 0; i < t.shape.size(); ++i) s += (i ? "x" : "") + std::to_string(t.shape[i]);
  }
  return s.empty() ? "-" : s;
}

CalibrationRow calibrate_one(const std::string& path) {
  const fs::path results = fs::is_directory(path) ? fs::path(path) / "device_results.json" : fs::path(path);
  const std::string where = results.string();
  const std::string text = read_regular_file(where, uint64_t(64) << 20, "cannot read device results");
  const ordered_json j = ordered_json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) throw Error("not valid JSON", SourceLoc{where, 0, 0});
  const ordered_json& format = need(j, "format", where);
  if (!format.is_string() || format.get<std::string>() != kResultsFormat)
    throw Error(std::string("not a device results file (format is not '") + kResultsFormat + "')",
                SourceLoc{where, 0, 0});
  const ordered_json& kernel = need(j, "kernel", where);
  const ordered_json& sha = need(j, "manifest_sha256", where);
  const ordered_json& lat = need(need(j, "latency", where), "latency_us", where);
  const ordered_json& p50 = need(lat, "p50", where);
  const ordered_json& numerics = need(j, "numerics", where);
  const ordered_json& all_match = need(numerics, "all_match", where);
  if (!kernel.is_string() || !sha.is_string() || !p50.is_number() || !(p50.get<double>() > 0) ||
      !all_match.is_boolean())
    throw Error("'kernel' and 'manifest_sha256' must be strings, 'latency.latency_us.p50' a positive number and "
                "'numerics.all_match' true or false",
                SourceLoc{where, 0, 0});

  const std::string dir = results.parent_path().empty() ? "." : results.parent_path().string();
  BundleRun r = run_bundle(dir);  // checks every file of the bundle against its manifest first
  const Manifest& m = r.manifest;
  if (kernel.get<std::string>() != m.function)
    throw Error("results for kernel '" + kernel.get<std::string>() + "', but the bundle " + dir + " holds kernel '" +
                    m.function + "'",
                SourceLoc{where, 0, 0});
  if (sha.get<std::string>() != m.sha256)
    throw Error("results recorded with another bundle (manifest sha256 " + sha.get<std::string>() +
                    "), but the manifest in " + dir + " has sha256 " + m.sha256,
                SourceLoc{where, 0, 0});

  CalibrationRow row;
  row.results_file = where;
  row.bundle = dir;
  row.kernel = m.function;
  row.shape = shape_text(m);
  row.target = m.target;
  row.lnc = m.lnc;
  row.device_us = p50.get<double>();
  const ordered_json& latency = j.at("latency");
  row.method = latency.contains("method") && latency.at("method").is_string() ? latency.at("method").get<std::string>()
                                                                             : "?";
  row.simulated_us = r.run.total_ns() / 1000.0;
  row.error_percent = (row.simulated_us - row.device_us) / row.device_us * 100.0;
  row.numerics_match = all_match.get<bool>();
  if (numerics.contains("outputs") && numerics.at("outputs").is_array())
    for (const ordered_json& o : numerics.at("outputs"))
      if (o.is_object() && o.contains("max_abs_error") && o.at("max_abs_error").is_number())
        row.max_abs_error = std::max(row.max_abs_error, o.at("max_abs_error").get<double>());
  return row;
}

std::string fmt(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

}  // namespace

Calibration calibrate(const std::vector<std::string>& results_paths) {
  Calibration c;
  std::vector<double> errors;
  for (const std::string& p : results_paths) {
    c.rows.push_back(calibrate_one(p));
    errors.push_back(std::fabs(c.rows.back().error_percent));
    c.numerics_agree += c.rows.back().numerics_match;
  }
  if (!errors.empty()) {
    std::sort(errors.begin(), errors.end());
    const size_t n = errors.size();
    c.median_abs_error_percent = n % 2 ? errors[n / 2] : (errors[n / 2 - 1] + errors[n / 2]) / 2;
    c.max_abs_error_percent = errors.back();
  }
  return c;
}

std::string format_calibration(const Calibration& c) {
  std::vector<std::vector<std::string>> cells = {
      {"kernel", "shape", "target", "device us", "simulated us", "error", "numerics"}};
  for (const CalibrationRow& r : c.rows)
    cells.push_back({r.kernel, r.shape, r.target + (r.lnc > 1 ? " lnc" + std::to_string(r.lnc) : ""),
                     fmt("%.3f", r.device_us), fmt("%.3f", r.simulated_us), fmt("%+.1f%%", r.error_percent),
                     r.numerics_match ? "match" : "DIFFER (max abs " + fmt("%.3g", r.max_abs_error) + ")"});
  std::vector<size_t> width(cells[0].size(), 0);
  for (auto& row : cells)
    for (size_t i = 0; i < row.size(); ++i) width[i] = std::max(width[i], row[i].size());
  std::string out;
  for (auto& row : cells) {
    std::string line;
    for (size_t i = 0; i < row.size(); ++i) {
      const bool number = i >= 3 && i <= 5;  // right-aligned columns
      const std::string pad(width[i] - row[i].size(), ' ');
      line += (i ? "  " : "") + (number ? pad + row[i] : row[i] + (i + 1 < row.size() ? pad : ""));
    }
    out += line + "\n";
  }
  out += "error |simulated - device| / device: median " + fmt("%.1f%%", c.median_abs_error_percent) + ", max " +
         fmt("%.1f%%", c.max_abs_error_percent) + " over " + std::to_string(c.rows.size()) + " kernel run" +
         (c.rows.size() == 1 ? "" : "s") + "\n";
  out += "numerics: " + std::to_string(c.numerics_agree) + " of " + std::to_string(c.rows.size()) +
         " device runs match nki-sim's outputs\n";
  return out;
}

std::string calibration_json(const Calibration& c) {
  ordered_json rows = ordered_json::array();
  for (const CalibrationRow& r : c.rows)
    rows.push_back(ordered_json{{"results", r.results_file},   {"bundle", r.bundle},
                                {"kernel", r.kernel},          {"shape", r.shape},
                                {"target", r.target},          {"lnc", r.lnc},
                                {"device_us", r.device_us},    {"device_method", r.method},
                                {"simulated_us", r.simulated_us}, {"error_percent", r.error_percent},
                                {"numerics_match", r.numerics_match}, {"max_abs_error", r.max_abs_error}});
  ordered_json j{{"rows", rows},
                 {"median_abs_error_percent", c.median_abs_error_percent},
                 {"max_abs_error_percent", c.max_abs_error_percent},
                 {"numerics_agree", c.numerics_agree},
                 {"runs", c.rows.size()}};
  return j.dump(2) + "\n";
}

}  // namespace nkisim::api
