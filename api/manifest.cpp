// manifest.cpp - writing and checking a device bundle's manifest.json.
#include "api/manifest.h"

#include <filesystem>
#include <nlohmann/json.hpp>

#include "api/sha256.h"
#include "isa/diagnostic.h"
#include "isa/target.h"

#ifndef NKISIM_VERSION
#define NKISIM_VERSION "unknown"
#endif

namespace nkisim::api {

namespace fs = std::filesystem;
using nlohmann::ordered_json;

std::string nki_sim_version() { return NKISIM_VERSION; }

namespace {

ordered_json tensor_json(const BundleTensor& t) {
  return ordered_json{{"name", t.name}, {"file", t.file}, {"dtype", t.dtype}, {"shape", t.shape}};
}

// A manifest is checked before any of it is used: a missing key or a wrong type is an error naming the key.
struct Reader {
  std::string where;  // DIR/manifest.json
  [[noreturn]] void fail(const std::string& msg) const { throw Error(msg, SourceLoc{where, 0, 0}); }
  const ordered_json& at(const ordered_json& j, const char* key) const {
    if (!j.is_object() || !j.contains(key)) fail(std::string("missing key '") + key + "'");
    return j.at(key);
  }
  std::string str(const ordered_json& j, const char* key) const {
    const ordered_json& v = at(j, key);
    if (!v.is_string()) fail(std::string("'") + key + "' must be a string");
    return v.get<std::string>();
  }
  // A path inside the bundle: relative, no "..", no empty or "." parts.
  std::string path(const ordered_json& j, const char* key) const { return checked_path(str(j, key), key); }
  std::string checked_path(const std::string& p, const std::string& what) const {
    const fs::path fp(p);
    bool ok = !p.empty() && fp.is_relative() && p.find('\\') == std::string::npos;
    for (const fs::path& part : fp) ok = ok && part != ".." && part != "." && !part.empty();
    if (!ok) fail("'" + what + "': '" + p + "' is not a path inside the bundle");
    return p;
  }
  std::vector<int64_t> ints(const ordered_json& j, const char* key) const {
    const ordered_json& v = at(j, key);
    std::vector<int64_t> out;
    if (!v.is_array()) fail(std::string("'") + key + "' must be a list of integers");
    for (auto& x : v) {
      if (!x.is_number_integer()) fail(std::string("'") + key + "' must be a list of integers");
      out.push_back(x.get<int64_t>());
    }
    return out;
  }
  std::vector<std::string> paths(const ordered_json& j, const char* key) const {
    const ordered_json& v = at(j, key);
    if (!v.is_array()) fail(std::string("'") + key + "' must be a list of paths");
    std::vector<std::string> out;
    for (auto& s : v) out.push_back(checked_path(s.is_string() ? s.get<std::string>() : "", key));
    return out;
  }
  std::vector<BundleTensor> tensors(const ordered_json& j, const char* key) const {
    const ordered_json& v = at(j, key);
    if (!v.is_array()) fail(std::string("'") + key + "' must be a list");
    std::vector<BundleTensor> out;
    for (auto& t : v) out.push_back({str(t, "name"), path(t, "file"), str(t, "dtype"), ints(t, "shape")});
    return out;
  }
};

}  // namespace

std::string manifest_json(const Manifest& m) {
  ordered_json j;
  j["format"] = kBundleFormat;
  j["format_version"] = kBundleFormatVersion;
  j["nki_sim_version"] = m.nki_sim_version;
  j["kernel"] = ordered_json{{"file", m.kernel_file}, {"function", m.function}, {"sources", m.sources},
                             {"include_dirs", m.include_dirs}};
  j["target"] = m.target;
  j["lnc"] = m.lnc;
  j["grid"] = m.grid;
  ordered_json inputs = ordered_json::array(), outputs = ordered_json::array(), written = ordered_json::array();
  for (auto& t : m.inputs) inputs.push_back(tensor_json(t));
  for (auto& t : m.outputs) outputs.push_back(tensor_json(t));
  for (auto& t : m.written_inputs) written.push_back(tensor_json(t));
  j["inputs"] = inputs;
  ordered_json args = ordered_json::array();
  for (auto& [name, text] : m.arguments) args.push_back(ordered_json{{"name", name}, {"value", text}});
  j["arguments"] = args;
  j["budgets"] = ordered_json{{"max_steps", m.max_steps},
                              {"max_instructions", m.max_instructions},
                              {"max_recursion", m.max_recursion},
                              {"max_loop_iterations", m.max_loop_iterations}};
  j["nki_sim"] = ordered_json{{"outputs", outputs}, {"written_inputs", written}, {"simulated_ns", m.simulated_ns},
                              {"program", m.program}, {"stats", m.stats}, {"profile", m.profile}};
  ordered_json files = ordered_json::object();
  for (auto& [path, hash] : m.files) files[path] = hash;
  j["files"] = files;
  return j.dump(2) + "\n";
}

Manifest read_manifest(const std::string& dir) {
  const std::string where = (fs::path(dir) / "manifest.json").string();
  if (!fs::is_directory(dir)) throw Error("not a bundle folder (no such directory)", SourceLoc{dir, 0, 0});
  const std::string text = read_regular_file(where, uint64_t(64) << 20, "cannot read bundle manifest");
  Reader r{where};
  ordered_json j = ordered_json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) r.fail("not valid JSON");
  if (r.str(j, "format") != kBundleFormat) r.fail(std::string("not an nki-sim bundle manifest (format is not '") +
                                                  kBundleFormat + "')");
  const ordered_json& version = r.at(j, "format_version");
  if (!version.is_number_integer() || version.get<int64_t>() != kBundleFormatVersion)
    r.fail("bundle format_version " + version.dump() + " is not supported (this nki-sim reads version " +
           std::to_string(kBundleFormatVersion) + ")");
  Manifest m;
  m.dir = dir;
  m.sha256 = sha256_hex(text);
  m.nki_sim_version = r.str(j, "nki_sim_version");
  const ordered_json& k = r.at(j, "kernel");
  m.kernel_file = r.path(k, "file");
  m.function = r.str(k, "function");
  if (m.function.empty()) r.fail("'function' must name the kernel function");
  m.sources = r.paths(k, "sources");
  m.include_dirs = r.paths(k, "include_dirs");
  m.target = r.str(j, "target");
  const ordered_json& lnc = r.at(j, "lnc");
  if (!lnc.is_number_integer()) r.fail("'lnc' must be an integer");
  if (std::optional<isa::TargetDesc> t = isa::find_target(m.target)) isa::check_lnc(*t, lnc.get<int64_t>(), SourceLoc{r.where});
  m.lnc = int(lnc.get<int64_t>());
  m.grid = r.ints(j, "grid");
  m.inputs = r.tensors(j, "inputs");
  const ordered_json& args = r.at(j, "arguments");
  if (!args.is_array()) r.fail("'arguments' must be a list");
  for (auto& a : args) m.arguments.push_back({r.str(a, "name"), r.str(a, "value")});
  const ordered_json& budgets = r.at(j, "budgets");
  auto budget = [&](const char* key, uint64_t max) {
    const ordered_json& v = r.at(budgets, key);
    if (!v.is_number_unsigned() || v.get<uint64_t>() < 1 || v.get<uint64_t>() > max)
      r.fail(std::string("'budgets': '") + key + "' must be a positive whole number up to " + std::to_string(max));
    return v.get<uint64_t>();
  };
  m.max_steps = budget("max_steps", uint64_t(INT64_MAX));
  m.max_instructions = budget("max_instructions", uint64_t(INT64_MAX));
  m.max_recursion = int(budget("max_recursion", uint64_t(INT32_MAX)));
  m.max_loop_iterations = budget("max_loop_iterations", uint64_t(INT64_MAX));
  const ordered_json& ns = r.at(j, "nki_sim");
  m.outputs = r.tensors(ns, "outputs");
  m.written_inputs = r.tensors(ns, "written_inputs");
  const ordered_json& sim_ns = r.at(ns, "simulated_ns");
  if (!sim_ns.is_number()) r.fail("'simulated_ns' must be a number");
  m.simulated_ns = sim_ns.get<double>();
  m.program = r.path(ns, "program");
  m.stats = r.path(ns, "stats");
  m.profile = r.path(ns, "profile");
  const ordered_json& files = r.at(j, "files");
  if (!files.is_object()) r.fail("'files' must be an object of path: sha256");
  for (auto& [path, hash] : files.items()) {
    r.checked_path(path, "files");
    if (!hash.is_string()) r.fail("'files': the hash of '" + path + "' must be a string");
    m.files[path] = hash.get<std::string>();
  }
  // Everything the bundle is run from must be listed, and every listed file must be as recorded.
  std::vector<std::string> needed = {m.kernel_file, m.program};
  for (auto& s : m.sources) needed.push_back(s);
  for (auto& t : m.inputs) needed.push_back(t.file);
  for (auto& t : m.outputs) needed.push_back(t.file);
  for (auto& t : m.written_inputs) needed.push_back(t.file);
  for (const std::string& f : needed)
    if (!m.files.count(f)) r.fail("'" + f + "' is used but not listed under 'files' with its sha256");
  // No part of a path may be a symbolic link: everything read stays inside the bundle folder.
  auto check_no_links = [&](const std::string& rel) {
    fs::path p = dir;
    for (const fs::path& part : fs::path(rel)) {
      p /= part;
      if (fs::is_symlink(fs::symlink_status(p)))
        throw Error("a symbolic link; a bundle holds regular files and folders only", SourceLoc{p.string(), 0, 0});
    }
  };
  for (const std::string& inc : m.include_dirs) {
    check_no_links(inc);
    if (!fs::is_directory(fs::path(dir) / inc))
      throw Error("missing from the bundle (an include folder manifest.json lists)",
                  SourceLoc{(fs::path(dir) / inc).string(), 0, 0});
  }
  for (auto& [path, hash] : m.files) {
    const std::string full = (fs::path(dir) / path).string();
    check_no_links(path);
    if (!fs::exists(fs::symlink_status(full)))
      throw Error("missing from the bundle (listed in manifest.json)", SourceLoc{full, 0, 0});
    const std::string actual = sha256_file(full);
    if (actual != hash)
      throw Error("sha256 " + actual + " does not match the manifest's " + hash +
                      " (the file was changed after the bundle was made)",
                  SourceLoc{full, 0, 0});
  }
  return m;
}

}  // namespace nkisim::api
