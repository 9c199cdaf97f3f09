// bundle.cpp - writing a device bundle into place, and running one back from the bundle alone.
#include "api/bundle.h"

#include <stdlib.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "api/run_on_device_py.h"  // generated from api/run_on_device.py: kRunOnDevicePy
#include "api/sha256.h"
#include "isa/binary.h"
#include "isa/diagnostic.h"
#include "sim/npy.h"
#include "sim/staged_output.h"

namespace nkisim::api {

namespace fs = std::filesystem;

namespace {

void write_file(const fs::path& path, const std::string& bytes) {
  fs::create_directories(path.parent_path());
  std::ofstream f(path, std::ios::binary);
  if (!f || !(f << bytes) || !f.flush()) throw Error(path.string() + ": cannot write file");
}

// The deepest folder holding every one of `paths` (absolute, normalised).
fs::path common_root(const std::vector<fs::path>& paths) {
  fs::path root = paths.front();
  for (const fs::path& p : paths) {
    fs::path common;
    auto a = root.begin(), b = p.begin();
    for (; a != root.end() && b != p.end() && *a == *b; ++a, ++b) common /= *a;
    root = common;
  }
  return root;
}

bool inside(const fs::path& dir, const fs::path& p) {
  auto mis = std::mismatch(dir.begin(), dir.end(), p.begin(), p.end());
  return mis.first == dir.end();
}

// A written input's file name keeps only [A-Za-z0-9_.-] of the tensor name (as the CLI's -o folder).
std::string safe_name(std::string name) {
  for (char& c : name)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-' && c != '.') c = '_';
  return name;
}

BundleTensor tensor_entry(const std::string& name, const std::string& file, const sim::HostArray& a) {
  return {name, file, std::string(isa::dtype_name(a.dtype)), a.shape};
}

// Runs with the options every bundle run uses: timed, the bundle's target, outputs copied out.
Run simulate_bundle(const Compiled& c, const std::vector<sim::HostArray>& inputs, bool timeline,
                    uint64_t max_loop_iterations) {
  sim::Options o;
  o.target = c.target;
  o.timeline = timeline;
  o.max_loop_iterations = max_loop_iterations;
  return api::simulate(c.programs, inputs, o);
}

// Moves the finished temporary folder to `out`: an existing bundle (or empty folder) there is replaced.
void move_into_place(const fs::path& tmp, const fs::path& out) {
  std::error_code ec;
  if (fs::exists(fs::symlink_status(out))) {
    const bool empty_dir = fs::is_directory(fs::symlink_status(out)) && fs::is_empty(out, ec);
    const bool bundle = fs::is_directory(fs::symlink_status(out)) && fs::is_regular_file(out / "manifest.json");
    if (!empty_dir && !bundle) {
      fs::remove_all(tmp, ec);
      throw Error("exists and is not a bundle folder (no manifest.json); not replaced", SourceLoc{out.string(), 0, 0});
    }
    if (fs::exists(fs::symlink_status(out / "device_results.json"))) {  // a device's answers are not thrown away
      fs::remove_all(tmp, ec);
      throw Error("holds device_results.json from a device run; not replaced (move it away or bundle elsewhere)",
                  SourceLoc{out.string(), 0, 0});
    }
    fs::path old = tmp;
    old += ".old";
    fs::rename(out, old, ec);
    if (ec) {
      fs::remove_all(tmp, ec);
      throw Error("cannot replace: " + ec.message(), SourceLoc{out.string(), 0, 0});
    }
    fs::rename(tmp, out, ec);
    if (ec) {
      fs::rename(old, out);
      fs::remove_all(tmp);
      throw Error("cannot replace: " + ec.message(), SourceLoc{out.string(), 0, 0});
    }
    fs::remove_all(old, ec);
    return;
  }
  fs::rename(tmp, out, ec);
  if (ec) {
    fs::remove_all(tmp, ec);
    throw Error("cannot create: " + ec.message(), SourceLoc{out.string(), 0, 0});
  }
}

// Everything written into the temporary folder `tmp` (removed again on failure).
Manifest fill_bundle(const BundleRequest& req, const fs::path& tmp) {
  // The inputs exactly as the simulator binds them (FILE:DTYPE conversions applied).
  std::vector<sim::HostArray> inputs;
  CompileRequest creq = req.compile;
  for (const BundleInput& in : req.inputs) {
    sim::NpyFile f = sim::read_npy(in.path);
    try {
      inputs.push_back(sim::to_host_array(std::move(f), in.dtype));
    } catch (const Error& e) {
      throw Error(in.path + ": " + e.what());
    }
    creq.copts.inputs.push_back({inputs.back().dtype, inputs.back().shape});
  }
  const Compiled c = compile_kernel(creq);
  const Run r = simulate_bundle(c, inputs, true, req.max_loop_iterations);

  Manifest m;
  m.nki_sim_version = nki_sim_version();
  m.function = c.kernel_name;
  m.target = c.target.name;
  m.lnc = c.lnc();
  m.grid = c.launch_grid;
  m.arguments = req.compile.copts.args;
  m.max_steps = req.compile.copts.max_steps;
  m.max_instructions = req.compile.copts.max_instructions;
  m.max_recursion = req.compile.copts.max_recursion;
  m.max_loop_iterations = req.max_loop_iterations;
  m.simulated_ns = r.total_ns();

  // Sources keep their layout relative to the deepest folder holding them all and the -I folders they came
  // from; the package markers (__init__.py) of the folders in between come along.
  std::vector<fs::path> sources, roots;
  for (const std::string& s : c.source_files) sources.push_back(fs::weakly_canonical(fs::absolute(s)));
  for (const fs::path& s : sources) roots.push_back(s.parent_path());
  std::vector<fs::path> includes;
  for (const std::string& d : req.compile.copts.include_dirs) {
    const fs::path inc = fs::weakly_canonical(fs::absolute(d));
    for (const fs::path& s : sources)
      if (inside(inc, s) && std::find(includes.begin(), includes.end(), inc) == includes.end()) {
        includes.push_back(inc);
        roots.push_back(inc);
      }
  }
  const fs::path root = common_root(roots);
  auto rel = [&](const fs::path& p) {
    const fs::path r = p.lexically_relative(root);
    return r == "." ? std::string("kernel") : (fs::path("kernel") / r).lexically_normal().generic_string();
  };
  std::vector<fs::path> copied = sources;
  for (const fs::path& s : sources)
    for (fs::path d = s.parent_path(); inside(root, d); d = d.parent_path()) {
      const fs::path init = d / "__init__.py";
      if (fs::is_regular_file(init) && std::find(copied.begin(), copied.end(), init) == copied.end())
        copied.push_back(init);
      if (d == root) break;
    }
  for (size_t i = 0; i < copied.size(); ++i) {
    const std::string text = read_regular_file(copied[i].string(), frontend::kMaxSourceBytes, "cannot read");
    write_file(tmp / rel(copied[i]), text);
    if (i < sources.size()) m.sources.push_back(rel(copied[i]));
  }
  m.kernel_file = m.sources.front();
  for (const fs::path& inc : includes) m.include_dirs.push_back(rel(inc));

  fs::create_directories(tmp / "inputs");
  fs::create_directories(tmp / "nki-sim");
  for (size_t i = 0; i < inputs.size(); ++i) {
    const std::string name = i < c.tensor_params.size() ? c.tensor_params[i] : "input" + std::to_string(i);
    const std::string file = "inputs/" + std::to_string(i) + "_" + safe_name(name) + ".npy";
    sim::write_npy((tmp / file).string(), inputs[i], /*raw_low_precision=*/true);
    m.inputs.push_back(tensor_entry(name, file, inputs[i]));
  }
  for (size_t i = 0; i < r.outputs().size(); ++i) {
    const std::string file = "nki-sim/output_" + std::to_string(i) + ".npy";
    sim::write_npy((tmp / file).string(), r.outputs()[i]);
    m.outputs.push_back(tensor_entry("output_" + std::to_string(i), file, r.outputs()[i]));
  }
  for (auto& [name, a] : r.written_inputs()) {
    const std::string file = "nki-sim/input_" + safe_name(name) + ".npy";
    sim::write_npy((tmp / file).string(), a);
    m.written_inputs.push_back(tensor_entry(name, file, a));
  }
  std::ostringstream stats;
  r.write_stats_json(stats);
  m.stats = "nki-sim/stats.json";
  write_file(tmp / m.stats, stats.str());
  m.profile = "nki-sim/profile.txt";
  write_file(tmp / m.profile, r.profile(c.programs));
  m.program = "program.nkibin";
  const std::vector<uint8_t> bin = isa::encode_programs(c.programs);
  write_file(tmp / m.program, std::string(bin.begin(), bin.end()));
  write_file(tmp / "run_on_device.py", kRunOnDevicePy);

  for (const auto& e : fs::recursive_directory_iterator(tmp))
    if (e.is_regular_file())
      m.files[e.path().lexically_relative(tmp).generic_string()] = sha256_file(e.path().string());
  write_file(tmp / "manifest.json", manifest_json(m));
  return m;
}

}  // namespace

Manifest write_bundle(const BundleRequest& req) {
  fs::path out = fs::absolute(req.out_dir).lexically_normal();
  if (!out.has_filename()) out = out.parent_path();  // "DIR/"
  const fs::path parent = out.parent_path();
  std::error_code ec;
  fs::create_directories(parent, ec);
  if (ec) throw Error("cannot create folder: " + ec.message(), SourceLoc{parent.string(), 0, 0});
  std::string templ = (parent / ("." + out.filename().string() + ".tmp-XXXXXX")).string();
  if (!mkdtemp(templ.data())) throw Error("cannot create a temporary folder here", SourceLoc{parent.string(), 0, 0});
  const fs::path tmp = templ;
  Manifest m;
  try {
    m = fill_bundle(req, tmp);
  } catch (...) {
    fs::remove_all(tmp, ec);
    throw;
  }
  move_into_place(tmp, out);
  m.dir = out.string();
  m.sha256 = sha256_file((out / "manifest.json").string());
  return m;
}

BundleRun run_bundle(const std::string& dir, bool timeline) {
  Manifest m = read_manifest(dir);
  const fs::path d = dir;
  std::optional<isa::TargetDesc> target = isa::find_target(m.target);
  if (!target)
    throw Error("unknown target '" + m.target + "'", SourceLoc{(d / "manifest.json").string(), 0, 0});
  CompileRequest req;
  req.kernel_path = (d / m.kernel_file).string();
  req.copts.kernel_name = m.function;
  req.copts.args = m.arguments;
  for (const std::string& inc : m.include_dirs) req.copts.include_dirs.push_back((d / inc).string());
  req.copts.grid = m.grid;
  req.copts.max_steps = m.max_steps;
  req.copts.max_instructions = m.max_instructions;
  req.copts.max_recursion = m.max_recursion;
  req.target = *target;
  req.lnc = m.lnc;
  std::vector<sim::HostArray> inputs;
  for (const BundleTensor& t : m.inputs) {
    const std::string path = (d / t.file).string();
    std::optional<isa::DType> dtype = isa::parse_dtype(t.dtype);
    if (!dtype) throw Error("unknown dtype '" + t.dtype + "' in manifest.json", SourceLoc{path, 0, 0});
    try {
      inputs.push_back(sim::to_host_array(sim::read_npy(path), dtype));
    } catch (const Error& e) {
      throw Error(path + ": " + e.what());
    }
    if (inputs.back().shape != t.shape)
      throw Error("shape differs from the one manifest.json records", SourceLoc{path, 0, 0});
    req.copts.inputs.push_back({inputs.back().dtype, inputs.back().shape});
  }
  BundleRun r{m, compile_kernel(req), {}};
  // From the bundle alone: every source the compile read is one of the bundle's hashed files.
  const fs::path root = fs::weakly_canonical(fs::absolute(d));
  for (const std::string& s : r.compiled.source_files) {
    const fs::path rel = fs::weakly_canonical(fs::absolute(s)).lexically_relative(root);
    if (rel.empty() || *rel.begin() == ".." || !m.files.count(rel.generic_string()))
      throw Error("the kernel read this file, which is not one of the bundle's files in manifest.json",
                  SourceLoc{s, 0, 0});
  }
  r.run = simulate_bundle(r.compiled, inputs, timeline, m.max_loop_iterations);
  return r;
}

namespace {

// "output_0.npy: differs from the bundle's nki-sim/output_0.npy" lines for files whose bytes differ.
void compare_file(const std::string& mine, const std::string& theirs, std::vector<std::string>& diffs) {
  if (read_regular_file(mine, uint64_t(64) << 30, "cannot read") !=
      read_regular_file(theirs, uint64_t(64) << 30, "cannot read"))
    diffs.push_back(mine + ": differs from the bundle's " + theirs);
}

std::vector<std::string> compare_outputs(const Manifest& m, const std::vector<sim::HostArray>& outputs,
                                         const std::vector<std::pair<std::string, sim::HostArray>>& written,
                                         const fs::path& out) {
  std::vector<std::string> diffs;
  if (outputs.size() != m.outputs.size() || written.size() != m.written_inputs.size()) {
    diffs.push_back(std::to_string(outputs.size()) + " outputs and " + std::to_string(written.size()) +
                    " written inputs, but the bundle holds " + std::to_string(m.outputs.size()) + " and " +
                    std::to_string(m.written_inputs.size()));
    return diffs;
  }
  std::error_code ec;
  fs::create_directories(out, ec);
  if (ec) throw Error("cannot create output directory: " + ec.message(), SourceLoc{out.string(), 0, 0});
  // Each file is staged (sim/staged_output.h: renamed into place once all are written) and compared with the
  // bundle's; none may be one of the bundle's own files (-o BUNDLE/nki-sim would overwrite the reference and
  // then compare it with itself).
  sim::StagedOutputs files;
  auto one = [&](const std::string& file, const sim::HostArray& a, const std::string& theirs) {
    if (fs::equivalent(file, theirs, ec))
      throw Error("is the bundle's own " + theirs + " (it would be overwritten)", SourceLoc{file, 0, 0});
    const std::string temp = files.stage(file);
    try {
      sim::write_npy(temp, a);
    } catch (const Error& e) {  // "TEMP: cannot write: File too large" -> located at the user's path
      const std::string msg = e.what();
      const size_t at = msg.find("cannot write");
      throw Error(at == std::string::npos ? "cannot write file" : msg.substr(at), SourceLoc{file, 0, 0});
    }
    const size_t before = diffs.size();
    compare_file(temp, theirs, diffs);
    if (diffs.size() > before) diffs.back() = file + ": differs from the bundle's " + theirs;
  };
  for (size_t i = 0; i < outputs.size(); ++i)
    one((out / ("output_" + std::to_string(i) + ".npy")).string(), outputs[i],
        (fs::path(m.dir) / m.outputs[i].file).string());
  for (size_t i = 0; i < written.size(); ++i)
    one((out / ("input_" + safe_name(written[i].first) + ".npy")).string(), written[i].second,
        (fs::path(m.dir) / m.written_inputs[i].file).string());
  files.commit();
  return diffs;
}

}  // namespace

std::vector<std::string> compare_with_bundle(const BundleRun& r, const std::string& out_dir) {
  return compare_outputs(r.manifest, r.run.outputs(), r.run.written_inputs(), out_dir);
}

std::vector<std::string> check_bundle_program(const BundleRun& r) {
  const Manifest& m = r.manifest;
  const std::string path = (fs::path(m.dir) / m.program).string();
  const std::string bytes = read_regular_file(path, uint64_t(4) << 30, "cannot read");
  const std::vector<isa::Program> programs =
      isa::decode_programs(std::span(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()), path);
  std::vector<sim::HostArray> inputs;
  for (const BundleTensor& t : m.inputs) {
    const std::string in = (fs::path(m.dir) / t.file).string();
    inputs.push_back(sim::to_host_array(sim::read_npy(in), isa::parse_dtype(t.dtype)));
  }
  sim::Options o;
  o.target = r.compiled.target;
  o.max_loop_iterations = m.max_loop_iterations;
  const Run run = api::simulate(programs, inputs, o);
  char tmpl[] = "/tmp/nkisim-bundle-program-XXXXXX";
  if (!mkdtemp(tmpl)) throw Error("cannot create a temporary folder in /tmp");
  std::vector<std::string> diffs;
  try {
    diffs = compare_outputs(m, run.outputs(), run.written_inputs(), tmpl);
  } catch (...) {
    fs::remove_all(tmpl);
    throw;
  }
  fs::remove_all(tmpl);
  for (std::string& d : diffs) d = m.program + ": " + d.substr(d.find(": ") + 2);
  if (run.total_ns() != m.simulated_ns)
    diffs.push_back(m.program + ": simulated " + std::to_string(run.total_ns()) + " ns, the manifest records " +
                    std::to_string(m.simulated_ns) + " ns");
  return diffs;
}

}  // namespace nkisim::api
