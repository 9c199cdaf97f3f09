// _nkisim.cpp - the pybind11 module under the nkisim package: compile a kernel from host values and simulate it
// on numpy arrays, in process (no files), the GIL released and Ctrl-C honoured while the work runs.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <signal.h>

#include <atomic>
#include <cstring>
#include <exception>
#include <fstream>
#include <sstream>

#include "api/run.h"
#include "isa/binary.h"
#include "isa/diagnostic.h"
#include "sim/memory.h"
#include "sim/npy.h"
#include "sim/staged_output.h"

namespace py = pybind11;
using namespace nkisim;

namespace {

// Raised for kernel, input and run-time errors; str() is the located diagnostic (nkisim.KernelError).
py::object kernel_error_type;

// Ctrl-C while nki-sim works: SIGINT sets the run's stop flag (the compiler and the simulator poll it).
std::atomic<std::atomic<bool>*> g_stop{nullptr};
volatile sig_atomic_t g_sigint = 0;
extern "C" void on_sigint(int) {
  g_sigint = 1;
  if (std::atomic<bool>* s = g_stop.load()) s->store(true);
}

// Runs `work` on the calling thread with the GIL released. On Python's main thread SIGINT is caught meanwhile
// (the previous handler is restored after) and turns into KeyboardInterrupt once the work stopped; elsewhere
// Python would not deliver it anyway. No thread hop: a small kernel's call costs what its simulation costs.
template <class Work>
void run_interruptibly(std::atomic<bool>& stop, Work&& work) {
  const bool main_thread = _PyOS_IsMainThread() != 0;  // (CPython: signals are handled on the main thread)
  struct sigaction mine {}, old {};
  if (main_thread) {
    g_sigint = 0;
    g_stop.store(&stop);
    mine.sa_handler = on_sigint;
    sigemptyset(&mine.sa_mask);
    sigaction(SIGINT, &mine, &old);
  }
  std::exception_ptr error;
  {
    py::gil_scoped_release nogil;
    try {
      work();
    } catch (...) {
      error = std::current_exception();
    }
  }
  if (main_thread) {
    sigaction(SIGINT, &old, nullptr);
    g_stop.store(nullptr);
    if (g_sigint) {
      PyErr_SetNone(PyExc_KeyboardInterrupt);
      throw py::error_already_set();
    }
  }
  if (error) std::rethrow_exception(error);
}

// Translates nkisim errors: out-of-bounds indices -> IndexError (numpy's wording), the rest -> KernelError.
void raise_error(const Error& e) {
  if (!e.index_error.empty()) {
    PyErr_SetString(PyExc_IndexError, e.index_error.c_str());
    throw py::error_already_set();
  }
  const std::string text = format_diagnostic(e, read_source_line);
  PyErr_SetString(kernel_error_type.ptr(), text.c_str());
  throw py::error_already_set();
}

template <class F>
auto guarded(F&& f) -> decltype(f()) {
  try {
    return f();
  } catch (const Error& e) {
    raise_error(e);
  } catch (const std::bad_alloc&) {
    PyErr_SetString(PyExc_MemoryError, "nki-sim: out of memory");
    throw py::error_already_set();
  }
  throw std::logic_error("unreachable");
}

// ("n",) ("b", v) ("i", v) ("f", v) ("s", v) ("t", [..]) ("l", [..]) ("d", [k, v, ...]) ("T", index, name)
// ("a", module, file, path) ("o", module, file, path, [names], [values]) ("S", index, name)
// ("O", name, shape, dtype, split axis or -1) -> HostValue (python/nkisim/_host.py).
frontend::HostValue to_host_value(const py::handle& o) {
  using K = frontend::HostValue::Kind;
  auto t = py::reinterpret_borrow<py::tuple>(o);
  const std::string tag = t[0].cast<std::string>();
  frontend::HostValue h;
  auto items = [&](const py::handle& seq) {
    for (auto x : seq) h.items.push_back(to_host_value(x));
  };
  switch (tag[0]) {
    case 'n': h.kind = K::None; break;
    case 'b': h.kind = K::Bool; h.b = t[1].cast<bool>(); break;
    case 'i': h.kind = K::Int; h.i = t[1].cast<int64_t>(); break;
    case 'f': h.kind = K::Float; h.f = t[1].cast<double>(); break;
    case 's': h.kind = K::Str; h.s = t[1].cast<std::string>(); break;
    case 't': h.kind = K::Tuple; items(t[1]); break;
    case 'l': h.kind = K::List; items(t[1]); break;
    case 'd': h.kind = K::Dict; items(t[1]); break;
    case 'T': h.kind = K::Tensor; h.i = t[1].cast<int64_t>(); h.s = t[2].cast<std::string>(); break;
    case 'S': h.kind = K::SbufIn; h.i = t[1].cast<int64_t>(); h.s = t[2].cast<std::string>(); break;
    case 'O':
      h.kind = K::SbufOut;
      h.s = t[1].cast<std::string>();
      h.shape = t[2].cast<std::vector<int64_t>>();
      h.dtype = t[3].cast<std::string>();
      h.i = t[4].cast<int64_t>();
      break;
    case 'a':
    case 'o':
      h.kind = tag[0] == 'a' ? K::Attr : K::Object;
      h.module = t[1].cast<std::string>();
      h.file = t[2].cast<std::string>();
      h.s = t[3].cast<std::string>();
      if (tag[0] == 'o') {
        h.keys = t[4].cast<std::vector<std::string>>();
        items(t[5]);
      }
      break;
    default:
      throw std::invalid_argument("bad host value tag '" + tag + "'");
  }
  return h;
}

struct Program {
  api::Compiled compiled;
  isa::TargetDesc target;
};

isa::TargetDesc target_of(const std::string& name) {
  std::optional<isa::TargetDesc> t = isa::find_target(name);
  if (!t) throw Error("unknown target '" + name + "' (expected trn1, trn2 or trn3)");
  return *t;
}

std::shared_ptr<Program> compile(const std::string& path, const std::string& kernel, const std::string& module,
                                 int api_kind, const py::list& args, const std::vector<std::pair<std::vector<int64_t>, std::string>>& inputs,
                                 const std::string& target, std::optional<int> lnc, std::vector<int64_t> grid,
                                 std::vector<std::string> include_dirs, std::vector<std::string> import_packages,
                                 const std::vector<std::tuple<std::string, std::string, std::vector<int64_t>,
                                                              std::vector<double>>>& host_files) {
  return guarded([&] {
    api::CompileRequest req;
    req.kernel_path = path;
    req.target = target_of(target);
    req.lnc = lnc.value_or(1);
    frontend::CompileOptions& c = req.copts;
    c.kernel_name = kernel;
    c.module_name = module;
    c.api = frontend::CompileOptions::Api(api_kind);
    c.host_call = true;
    c.grid = std::move(grid);
    c.include_dirs = std::move(include_dirs);
    c.import_packages = std::move(import_packages);
    for (auto& [name, dt, shape, data] : host_files) c.host_files.push_back({name, dt, shape, data});
    for (auto a : args) {
      auto pair = py::reinterpret_borrow<py::tuple>(a);
      c.host_args.push_back({pair[0].cast<std::string>(), to_host_value(pair[1])});
    }
    for (auto& [shape, dt] : inputs) {
      std::optional<isa::DType> d = isa::parse_dtype(dt);
      if (!d) throw Error("unknown dtype '" + dt + "'");
      c.inputs.push_back({*d, shape});
    }
    std::atomic<bool> stop{false};
    c.interrupt = &stop;
    auto p = std::make_shared<Program>();
    run_interruptibly(stop, [&] {
      p->compiled = api::compile_kernel(std::move(req));
      p->target = p->compiled.target;
    });
    if (!p->compiled.notes.empty()) {
      py::object err = py::module_::import("sys").attr("stderr");
      for (const std::string& n : p->compiled.notes) py::print(n, py::arg("file") = err);
    }
    return p;
  });
}

// A numpy array's bytes, read straight into simulated HBM when the simulator binds the input.
class ArraySource final : public sim::ByteSource {
 public:
  ArraySource(const uint8_t* p, size_t n) : p_(p), n_(n) {}
  size_t size() const override { return n_; }
  void read_into(uint8_t* dst) const override { std::memcpy(dst, p_, n_); }

 private:
  const uint8_t* p_;
  size_t n_;
};

// A C-contiguous array -> HostArray; `dtype` (an NKI dtype name) converts or reinterprets as FILE:DTYPE does.
sim::HostArray host_array(const py::array& a, const std::string& dtype) {
  std::vector<int64_t> shape(a.shape(), a.shape() + a.ndim());
  const auto* data = static_cast<const uint8_t*>(a.data());
  const size_t bytes = size_t(a.nbytes());
  const std::string descr = py::str(a.dtype().attr("str"));
  std::optional<isa::DType> want;
  if (!dtype.empty()) {
    want = isa::parse_dtype(dtype);
    if (!want) throw Error("unknown dtype '" + dtype + "'");
  }
  for (int k = 0; k < isa::kNumDTypes; ++k) {
    const auto t = static_cast<isa::DType>(k);
    if (isa::is_numpy_native(t) && isa::dtype_numpy_descr(t) == descr && (!want || *want == t)) {
      sim::HostArray h;
      h.dtype = t;
      h.shape = shape;
      h.source = std::make_shared<ArraySource>(data, bytes);
      return h;
    }
  }
  sim::NpyFile f{descr, shape, std::vector<uint8_t>(data, data + bytes)};
  return sim::to_host_array(std::move(f), want);
}

py::array to_numpy(const sim::HostArray& h) {
  std::vector<py::ssize_t> shape(h.shape.begin(), h.shape.end());
  const uint8_t* src = h.bytes();
  std::vector<uint8_t> owned;
  if (!src) {
    owned = h.materialize();
    src = owned.data();
  }
  const size_t n = h.elements(), size = isa::dtype_size(h.dtype);
  if (isa::is_numpy_native(h.dtype) && h.view && h.owner) {  // the run's HBM (Options::outputs_in_place): no copy
    auto* keep = new std::shared_ptr<const void>(h.owner);
    py::capsule base(keep, [](void* p) { delete static_cast<std::shared_ptr<const void>*>(p); });
    return py::array(py::dtype(std::string(isa::dtype_numpy_descr(h.dtype))), shape, {},
                     const_cast<uint8_t*>(h.view), base);
  }
  if (isa::is_numpy_native(h.dtype)) {
    py::array out(py::dtype(std::string(isa::dtype_numpy_descr(h.dtype))), shape);
    std::memcpy(out.mutable_data(), src, n * size);
    return out;
  }
  if (isa::dtype_kind(h.dtype) == isa::DTypeKind::Packed) {  // raw bits, as --raw-low-precision writes them
    py::array out(py::dtype(size == 4 ? "<u4" : "<u2"), shape);
    std::memcpy(out.mutable_data(), src, n * size);
    return out;
  }
  py::array_t<float> out(shape);  // bfloat16, tfloat32, fp8: exact in float32
  float* dst = out.mutable_data();
  for (size_t k = 0; k < n; ++k) dst[k] = isa::to_f32(h.dtype, isa::load_bits(src + k * size, size));
  return out;
}

// Writes a file the caller asked for to its staged temporary file (sim/staged_output.h: a failed call leaves no
// new or changed file), errors naming the caller's path.
template <class Writer>
void write_staged(sim::StagedOutputs& files, const std::string& path, Writer&& writer) {
  errno = 0;
  std::ofstream f(files.stage(path), std::ios::binary);
  if (f) writer(f);
  if (!f || !f.flush())
    throw Error("cannot write file" + (errno ? std::string(": ") + std::strerror(errno) : ""), SourceLoc{path});
}

py::dict simulate(const std::shared_ptr<Program>& p, const std::vector<std::pair<py::array, std::string>>& inputs,
                  const std::string& mode, bool timeline, const std::string& trace_path,
                  const std::string& html_path, const std::string& check) {
  return guarded([&] {
    std::vector<sim::HostArray> arrays;
    for (auto& [a, dt] : inputs) arrays.push_back(host_array(a, dt));
    sim::Options o;  // api::run_compiled sets the target and the --check names
    o.functional = mode == "functional";
    o.timing_only = mode == "timing-only";
    o.outputs_in_place = true;  // native-dtype outputs become numpy arrays over the run's HBM (to_numpy)
    o.huge_pages = sim::HugePages::Always;  // the memories are reused call after call (module init below)
    o.timeline = timeline;
    o.trace = !trace_path.empty() || !html_path.empty();
    if (!check.empty()) {  // --check (sim/check.h): "init,race,sync", "all", "error", ...
      const sim::CheckSpec c = sim::parse_check_spec(check);
      o.checks = c.checks;
      o.check_errors = c.errors;
    }
    std::ostringstream printed;
    o.print_sink = &printed;
    std::atomic<bool> stop{false};
    o.interrupt = &stop;
    std::optional<api::Run> run;
    const auto& programs = p->compiled.programs;
    std::string stats, profile;
    run_interruptibly(stop, [&] {
      run = api::run_compiled(p->compiled, arrays, o);
      std::ostringstream s;
      run->write_stats_json(s);
      stats = s.str();
      if (timeline) profile = run->profile(programs, &p->target);  // the run's parameters: the verdict's peaks
      sim::StagedOutputs files;  // renamed into place once every file is written (else removed)
      if (!trace_path.empty())
        write_staged(files, trace_path, [&](std::ostream& f) { run->write_trace_json(programs, f); });
      if (!html_path.empty())  // --html (docs/html.md)
        write_staged(files, html_path, [&](std::ostream& f) {
          run->write_html(programs, p->target, programs[0].kernel_name, true, f);
        });
      if (stop.load()) return;  // Ctrl-C meanwhile: KeyboardInterrupt follows, and no file goes into place
      files.commit();
    });
    py::dict d;
    py::list outs, written;
    py::list dtypes;
    for (auto& h : run->outputs()) {
      outs.append(to_numpy(h));
      dtypes.append(std::string(isa::dtype_name(h.dtype)));
    }
    d["output_dtypes"] = dtypes;
    for (auto& [name, h] : run->written_inputs()) written.append(py::make_tuple(name, to_numpy(h)));
    d["outputs"] = outs;
    d["written_inputs"] = written;
    d["total_ns"] = run->total_ns();
    d["instructions"] = run->instructions();
    d["stats"] = stats;
    d["engine_busy_ns"] = run->engine_busy_ns();
    d["profile"] = profile;
    d["printed"] = printed.str();
    py::list findings;  // --check
    for (const sim::Finding& f : run->findings()) {
      py::dict x;
      x["kind"] = f.kind;
      x["severity"] = f.severity;
      x["core"] = f.core;
      x["engine"] = f.engine >= 0 ? std::string(isa::engine_name(isa::Engine(f.engine))) : std::string();
      x["index"] = f.index;
      x["opcode"] = f.opcode;
      x["file"] = f.loc ? f.loc->file : std::string();
      x["line"] = f.loc ? f.loc->line : 0;
      x["col"] = f.loc ? f.loc->col : 0;
      x["tensor"] = f.tensor;
      x["message"] = f.message;
      x["text"] = sim::format_findings({f}, read_registered_source_line);
      findings.append(x);
    }
    d["findings"] = findings;
    return d;
  });
}

}  // namespace

PYBIND11_MODULE(_nkisim, m) {
  m.doc() = "nki-sim in process: compile NKI kernels from host values and simulate them on numpy arrays";
  // Call after call: the simulated memories of a finished run are reused (no fresh page faults and zeroing).
  sim::MemorySpace::reuse_freed_memory(true);
  kernel_error_type = py::reinterpret_borrow<py::object>(
      PyErr_NewExceptionWithDoc("nkisim.KernelError", "a kernel, input or run-time error located in the kernel",
                                PyExc_Exception, nullptr));
  m.attr("KernelError") = kernel_error_type;
  py::class_<Program, std::shared_ptr<Program>>(m, "Program")
      .def_property_readonly("lnc", [](const Program& p) { return p.compiled.lnc(); })
      .def_property_readonly("target", [](const Program& p) { return p.target.name; })
      .def_property_readonly("asm", [](const Program& p) { return isa::print_asm_cores(p.compiled.programs); })
      .def("encode", [](const Program& p) {
        std::vector<uint8_t> b = isa::encode_programs(p.compiled.programs);
        return py::bytes(reinterpret_cast<const char*>(b.data()), b.size());
      })
      .def("save", [](const Program& p, const std::string& path) {  // Program.save: the binary program, staged
        guarded([&] {
          const std::vector<uint8_t> b = isa::encode_programs(p.compiled.programs);
          sim::StagedOutputs files;
          write_staged(files, path, [&](std::ostream& f) { f.write(reinterpret_cast<const char*>(b.data()), std::streamsize(b.size())); });
          files.commit();
        });
      }, py::arg("path"));
  m.def("namespaces", [](const std::string& target) {
    return guarded([&] {
      py::dict d;
      for (auto& [mod, names] : frontend::builtin_namespaces(target_of(target))) {
        py::dict n;
        for (auto& b : names) {
          py::object value = py::none();
          if (b.kind == 'i') value = py::int_(int64_t(b.number));
          if (b.kind == 'x') value = py::float_(b.number);
          n[py::str(b.name)] = py::make_tuple(std::string(1, b.kind), value);
        }
        d[py::str(mod)] = n;
      }
      return d;
    });
  }, py::arg("target") = "trn2");
  m.def("compile", &compile, py::arg("path"), py::arg("kernel"), py::arg("module"), py::arg("api"), py::arg("args"),
        py::arg("inputs"), py::arg("target"), py::arg("lnc"), py::arg("grid"), py::arg("include_dirs"),
        py::arg("import_packages") = std::vector<std::string>{},
        py::arg("host_files") =
            std::vector<std::tuple<std::string, std::string, std::vector<int64_t>, std::vector<double>>>{});
  m.def("simulate", &simulate, py::arg("program"), py::arg("inputs"), py::arg("mode"), py::arg("timeline"),
        py::arg("trace_path"), py::arg("html_path") = "", py::arg("check") = "");
}
