// compile.cpp - frontend::compile_to_ir: run the kernel file's meta-program and collect the Kernel IR.
#include "frontend/compile.h"

#include <pthread.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <exception>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "frontend/host_args.h"
#include "frontend/interp.h"
#include "frontend/ndarray.h"
#include "frontend/nki.h"
#include "frontend/nl_ops.h"
#include "ir/view.h"

namespace nkisim::frontend {
namespace {

std::string join_names(const std::vector<std::string>& names) {
  std::string s;
  for (size_t i = 0; i < names.size(); ++i) s += (i ? ", " : "") + names[i];
  return s;
}

FunctionObj* find_kernel(Interp& in, ModuleObj* m, const CompileOptions& opts, const std::string& path) {
  SourceLoc file_loc{path, 0, 0};
  std::vector<FunctionObj*> jits;
  for (auto& [k, v] : m->globals)
    if (v.is(VK::Function) && v.as<FunctionObj>()->jit && v.as<FunctionObj>()->module.obj() == m)
      jits.push_back(v.as<FunctionObj>());
  std::sort(jits.begin(), jits.end(), [](FunctionObj* a, FunctionObj* b) { return a->code->line < b->code->line; });
  std::vector<std::string> names;
  for (auto* f : jits) names.push_back(sym_str(f->code->name));
  if (!opts.kernel_name.empty()) {
    auto it = m->globals.find(intern(opts.kernel_name));
    if (it == m->globals.end() || !it->second.is(VK::Function))
      throw Error("no kernel function named '" + opts.kernel_name + "' in file" +
                      (names.empty() ? std::string() : " (@nki.jit kernels: " + join_names(names) + ")"),
                  file_loc);
    return it->second.as<FunctionObj>();
  }
  if (jits.empty())
    throw Error("no @nki.jit kernel in file; decorate the kernel with @nki.jit or choose a function with -k NAME",
                file_loc);
  if (jits.size() > 1)
    throw Error("several @nki.jit kernels in file: " + join_names(names) + "; choose one with -k NAME", file_loc);
  return jits[0];
}

// A host-read .npy file (CompileOptions::host_files) as a compile-time array.
Value host_file_array(const CompileOptions::HostFile& f) {
  NdArrayObj::Wide wide = f.dtype == "float64" ? NdArrayObj::Wide::F64
                          : f.dtype == "int64" ? NdArrayObj::Wide::I64
                                               : NdArrayObj::Wide::None;
  std::optional<isa::DType> dt = isa::parse_dtype(f.dtype);
  if (wide == NdArrayObj::Wide::None && !dt)
    throw Error("host file '" + f.name + "': unsupported dtype '" + f.dtype + "'");
  Value v = new_ndarray(f.shape, wide, dt.value_or(isa::DType::float32));
  NdArrayObj* a = v.as<NdArrayObj>();
  if (a->data.size() != f.data.size()) throw Error("host file '" + f.name + "': data does not match its shape");
  a->data = f.data;
  return v;
}

// A Python call (CompileOptions::host_call): the arguments from their host values, the defaults for the rest.
// Input tensor i becomes the kernel's parameter tensor i, named after where the host found it.
std::vector<Value> bind_host_args(Interp& in, FunctionObj* fn, const CompileOptions& opts, HostSbuf* sbuf) {
  const FuncCode* code = fn->code;
  const std::string kname = sym_str(code->name);
  auto* fn_module = fn->module.as<ModuleObj>();
  const SourceLoc def_loc{fn_module->path, code->line, code->col};
  std::vector<std::string> names(opts.inputs.size());
  for (auto& [n, h] : opts.host_args) host_tensor_names(h, names);
  if (names.size() != opts.inputs.size())
    throw Error("kernel '" + kname + "': a host argument refers to input " + std::to_string(names.size() - 1) +
                    " but " + std::to_string(opts.inputs.size()) + " were given",
                def_loc);
  std::vector<Value> tensors;
  for (size_t k = 0; k < opts.inputs.size(); ++k) {
    const TensorArgSpec& spec = opts.inputs[k];
    ir::Tensor t;
    t.name = names[k].empty() ? "input" + std::to_string(k) : names[k];
    t.dtype = spec.dtype;
    t.shape = spec.shape;
    t.buffer = ir::Buffer::hbm;
    t.role = ir::Tensor::Role::Param;
    t.param_index = int(k);
    t.loc = def_loc;
    if (t.shape.empty()) throw Error("input '" + t.name + "' must have at least one dimension", t.loc);
    for (auto d : t.shape)
      if (d <= 0) throw Error("input '" + t.name + "' has an invalid shape " + shape_str(t.shape), t.loc);
    tensors.push_back(new_tensor(in, std::move(t)));
    in.kernel.params.push_back(tensors.back().as<TensorObj>()->id);
  }
  auto tensor = [&](int64_t k) { return tensors[size_t(k)]; };
  std::vector<std::string> all_names;
  for (auto& p : code->params) all_names.push_back(sym_str(p.name));
  for (auto& [name, h] : opts.host_args)
    if (std::find(all_names.begin(), all_names.end(), name) == all_names.end())
      throw Error("kernel '" + kname + "' got an unexpected keyword argument '" + name + "' (parameters: " +
                      join_names(all_names) + ")",
                  def_loc);
  std::vector<Value> args;
  ModuleScope ms(in, fn_module);
  for (size_t i = 0; i < code->params.size(); ++i) {
    const Param& p = code->params[i];
    const std::string name = sym_str(p.name);
    if (p.kind == ParamKind::VarArgs || p.kind == ParamKind::VarKw)
      throw Error("kernel '" + kname + "': variadic parameters (*args, **kwargs) are not supported in NKI kernel "
                  "signatures", SourceLoc{fn_module->path, p.line, p.col});
    const HostValue* h = nullptr;
    for (auto& [n, v] : opts.host_args)
      if (n == name) h = &v;
    if (h) {
      try {
        args.push_back(host_to_value(in, *h, tensor, "kernel '" + kname + "': argument '" + name + "'", sbuf));
      } catch (Error& e) {
        if (!e.loc) e.loc = SourceLoc{fn_module->path, p.line, p.col};  // at the parameter
        throw;
      }
    }
    else if (!fn->defaults[i].is_unbound()) args.push_back(fn->defaults[i]);
    else
      throw Error("kernel '" + kname + "' missing required argument '" + name + "'",
                  SourceLoc{fn_module->path, p.line, p.col});
  }
  return args;
}

ir::Kernel run(const std::string& path, const CompileOptions& opts, size_t stack_bytes, int* launched_lnc) {
  // A FIFO, device or directory is refused, not waited on or read forever (kMaxSourceBytes bounds a file).
  std::stringstream ss;
  ss << read_regular_file(path, kMaxSourceBytes, "cannot read kernel file");

  InterpOptions io;
  io.include_dirs = opts.include_dirs;
  io.import_packages = opts.import_packages;
  io.step_budget = opts.max_steps;
  io.instruction_budget = opts.max_instructions;
  io.max_frames = opts.max_recursion;
  io.memory_budget = opts.max_compile_memory;
  io.stack_bytes = stack_bytes;
  io.interrupt = opts.interrupt;
  Interp in(io);
  in.kernel.file = path;
  // Address space for the ops up front: untouched pages cost nothing, and a large kernel then never copies
  // its op list while growing (the copying dominated compiling a million instructions).
  try {
    in.kernel.ops.reserve(size_t(std::min<uint64_t>(opts.max_instructions + 1, uint64_t(1) << 20)));
    in.kernel.tensors.reserve(size_t(1) << 16);  // the same for the tensors (one per nl.ndarray: ~160 bytes)
  } catch (std::bad_alloc&) {
  }
  in.kernel.target = opts.target;
  std::optional<isa::TargetDesc> target = isa::find_target(opts.target);
  if (!target) throw Error("unknown target '" + opts.target + "' (expected trn1, trn2 or trn3)");
  in.nki->hbm_capacity_override = opts.hbm_capacity_bytes;
  set_target_constants(in, *target);
  in.nki->lnc = opts.lnc ? opts.lnc : 1;  // 0: the file decides (below)
  in.nki->lnc_core = opts.lnc_core;
  std::string stem = std::filesystem::path(path).stem().string();
  if (!opts.module_name.empty() && opts.module_name != "__main__") stem = opts.module_name;
  if (stem.empty() || stem == "__main__") stem = "kernel";
  Value mv = in.load_main(path, ss.str(), stem);
  auto* m = mv.as<ModuleObj>();

  FunctionObj* fn = find_kernel(in, m, opts, path);
  if (opts.target_from_kernel && !fn->platform_target.empty() && fn->platform_target != opts.target) {
    target = isa::find_target(fn->platform_target);  // validated by the decorator
    in.kernel.target = fn->platform_target;
    set_target_constants(in, *target);
  }
  const FuncCode* code = fn->code;
  std::string kname = sym_str(code->name);
  in.kernel.name = kname;
  auto param_loc = [&](const Param& p) { return SourceLoc{m->path, p.line, p.col}; };
  auto fn_module = fn->module.as<ModuleObj>();

  // Parameters: --arg values, then defaults, and the rest are tensor inputs in order.
  std::vector<std::string> all_names, tensor_names;
  for (auto& p : code->params) all_names.push_back(sym_str(p.name));
  for (auto& [name, text] : opts.args) {
    bool found = false;
    for (auto& p : code->params) found |= sym_str(p.name) == name;
    if (!found)
      throw Error("--arg " + name + ": kernel '" + kname + "' has no parameter '" + name +
                  "' (parameters: " + join_names(all_names) + ")");
  }
  std::vector<Value> args;
  HostSbuf sbuf;  // SBUF-resident host arguments: their tiles are DMA'd to HBM outputs after the call
  if (opts.host_call) {
    // (as for the call below: SBUF arguments emit their allocations and DMAs while binding)
    in.nki->current_api = opts.api == CompileOptions::Api::from_decorator ? fn->jit && !fn->legacy_jit
                                                                          : opts.api == CompileOptions::Api::current;
    args = bind_host_args(in, fn, opts, &sbuf);
    for (const CompileOptions::HostFile& f : opts.host_files) in.virtual_files[f.name] = host_file_array(f);
  } else
  for (size_t i = 0; i < code->params.size(); ++i) {
    const Param& p = code->params[i];
    SourceLoc pl{fn_module->path, p.line, p.col};
    if (p.kind == ParamKind::KwOnly)
      throw Error("kernel '" + kname +
                      "': keyword-only parameters (after '*') are not supported in NKI kernel "
                      "signatures",
                  pl);
    if (p.kind == ParamKind::VarArgs || p.kind == ParamKind::VarKw)
      throw Error("kernel '" + kname +
                      "': variadic parameters (*args, **kwargs) are not supported in NKI kernel "
                      "signatures",
                  pl);
    std::string name = sym_str(p.name);
    const std::string* text = nullptr;
    for (auto& [n, t] : opts.args)
      if (n == name) text = &t;
    auto no_list = [&](const Value& v, const std::string& how) {
      if (v.is(VK::List))
        throw Error("kernel '" + kname + "': argument '" + name + "' " + how +
                        " a list; NKI kernels do not accept list arguments (use a tuple)",
                    pl);
      return v;
    };
    if (text) {
      args.push_back(no_list(in.parse_literal(*text, "--arg " + name), "(--arg) is"));
      continue;
    }
    if (!fn->defaults[i].is_unbound()) {
      args.push_back(no_list(fn->defaults[i], "defaults to"));
      continue;
    }
    tensor_names.push_back(name);
    args.push_back(Value());  // filled below
  }
  if (!opts.host_call && tensor_names.size() != opts.inputs.size())
    throw Error("kernel '" + kname + "' takes " + std::to_string(tensor_names.size()) + " tensor input" +
                    (tensor_names.size() == 1 ? "" : "s") +
                    (tensor_names.empty() ? "" : " (" + join_names(tensor_names) + ")") + " but " +
                    std::to_string(opts.inputs.size()) + (opts.inputs.size() == 1 ? " was" : " were") + " given",
                SourceLoc{fn_module->path, code->line, code->col});
  size_t next = 0;
  for (size_t i = 0; i < code->params.size(); ++i) {
    if (!args[i].is_none() ||
        std::find(tensor_names.begin(), tensor_names.end(), sym_str(code->params[i].name)) == tensor_names.end())
      continue;
    const TensorArgSpec& spec = opts.inputs[next];
    ir::Tensor t;
    t.name = sym_str(code->params[i].name);
    t.dtype = spec.dtype;
    t.shape = spec.shape;
    t.buffer = ir::Buffer::hbm;
    t.role = ir::Tensor::Role::Param;
    t.param_index = int(next);
    t.loc = param_loc(code->params[i]);
    if (t.shape.empty()) throw Error("input '" + t.name + "' must have at least one dimension", t.loc);
    for (auto d : t.shape)
      if (d <= 0) throw Error("input '" + t.name + "' has an invalid shape " + shape_str(t.shape), t.loc);
    Value tv = new_tensor(in, std::move(t));
    in.kernel.params.push_back(tv.as<TensorObj>()->id);
    args[i] = tv;
    ++next;
  }

  CallArgs a{args.data(), args.size(), nullptr, 0, nullptr};
  Value result;
  bool one_instance = true;  // no launch grid: a legacy kernel may return private (nl.hbm) tensors
  std::vector<int64_t> launch_grid;
  {
    ModuleScope ms(in, fn_module);
    in.nki->current_api = opts.api == CompileOptions::Api::from_decorator ? fn->jit && !fn->legacy_jit
                                                                          : opts.api == CompileOptions::Api::current;
    in.in_kernel = true;
    // A launch spelled in the file (`kernel[2, 2](a, b)` in its __main__ block): for a legacy kernel a grid
    // that counts as --grid; for an nki.jit kernel `kernel[N]` is the logical core size, used when the
    // command line gives none (opts.lnc == 0). The command line wins.
    std::vector<int64_t> grid = opts.grid;
    int lnc = opts.lnc ? opts.lnc : 1;
    if (grid.empty() && !opts.host_call && (fn->legacy_jit || opts.lnc == 0)) {
      std::vector<int64_t> g = file_launch_grid(in, m, fn, *target);
      if (fn->legacy_jit) grid = std::move(g);
      else if (!g.empty()) lnc = int(g[0]);
    }
    in.nki->lnc = lnc;
    if (launched_lnc) *launched_lnc = lnc;
    // A legacy launch kernel[0] (in the file or from Python) runs one instance: nki-samples' contributed
    // pipelined_attention launches flash_fwd[0] and reads nl.program_id(0) as its batch (docs/compatibility.md).
    for (int64_t& g : grid) {
      if (g < 0)
        throw Error(kname + "[...]: launch grid sizes must not be negative, got " + std::to_string(g),
                    SourceLoc{fn_module->path, code->line, code->col});
      if (g == 0 && fn->legacy_jit) g = 1;
    }
    for (int64_t g : grid) one_instance &= g == 1;
    launch_grid = grid;
    if (grid.empty()) {
      result = in.call_function(fn, a);
    } else {
      result = run_grid(in, fn, a, grid);
    }
    in.in_kernel = false;
  }
  std::vector<Value> sbuf_outs;
  if (!sbuf.outputs.empty()) {
    ModuleScope ms(in, fn_module);
    try {
      sbuf_outs = host_sbuf_outputs(in, sbuf);
    } catch (Error& e) {
      if (!e.loc) e.loc = SourceLoc{fn_module->path, code->line, code->col};
      throw;
    }
  }

  // Outputs: a tensor or a tuple/list of tensors.
  SourceLoc def_loc{fn_module->path, code->line, code->col};
  std::vector<Value> outs;
  if (result.is(VK::Tensor))
    outs.push_back(result);
  else if (result.is(VK::Tuple) || result.is(VK::List))
    outs = items_of(result);
  else if (!result.is_none())
    throw Error("kernel '" + kname + "' must return a tensor or a tuple of tensors, not '" + type_name(result) + "'",
                def_loc);
  // An SBUF output tile the function returns comes back in that place (its HBM copy); the others follow.
  std::vector<bool> sbuf_returned(sbuf_outs.size());
  for (auto& o : outs)
    for (size_t k = 0; k < sbuf_outs.size(); ++k)
      if (o.is(VK::Tensor) && o.obj() == sbuf.outputs[k].first.obj() && !sbuf_returned[k]) {
        o = sbuf_outs[k];
        sbuf_returned[k] = true;
        break;
      }
  for (size_t k = 0; k < sbuf_outs.size(); ++k)
    if (!sbuf_returned[k]) outs.push_back(sbuf_outs[k]);
  for (auto& o : outs) {
    if (!o.is(VK::Tensor))
      throw Error("kernel '" + kname + "' must return tensors, but its result contains a '" + type_name(o) + "'",
                  def_loc);
    ir::Tensor& t = in.kernel.tensors[o.as<TensorObj>()->id];
    // nl.hbm is private to one instance: a legacy kernel may return it when it runs as a single instance.
    const bool private_ok = fn->legacy_jit && one_instance && t.buffer == ir::Buffer::hbm;
    if (t.role != ir::Tensor::Role::Param && t.buffer != ir::Buffer::shared_hbm && !private_ok)
      throw Error(
          "kernel output '" + t.name + "' must be allocated in nl.shared_hbm, but it is in " + buffer_str(t.buffer),
          t.loc);
    if (private_ok) t.buffer = ir::Buffer::shared_hbm;  // one instance: its private HBM is the output
    // `return out.reshape(shape)` (nki-samples' contributed interpolation kernels): a view of the whole tensor in
    // row-major order has the same bytes, so the output takes the view's shape.
    const ir::View& v = o.as<TensorObj>()->view;
    if (t.role != ir::Tensor::Role::Param && v.shape() != t.shape && v.dtype == t.dtype && v.offset == 0 &&
        v.num_elements() == t.num_elements() && ir::is_contiguous(v))
      t.shape = v.shape();
    in.kernel.outputs.push_back(o.as<TensorObj>()->id);
  }
  for (const Value& mv : in.loaded_modules) in.kernel.source_files.push_back(mv.as<ModuleObj>()->path);
  in.kernel.launch_grid = std::move(launch_grid);
  return std::move(in.kernel);
}


// The evaluator runs on a thread of its own with a large stack (only the pages it touches are committed), so
// the recursion limit does not depend on the caller's stack size or on sanitizer frame sizes.
constexpr size_t kEvalStackBytes = size_t(512) << 20;
constexpr size_t kEvalStackReserve = size_t(16) << 20;  // kept free below the evaluator's limit

struct EvalJob {
  const std::string* path;
  const CompileOptions* opts;
  int* launched_lnc;
  std::optional<ir::Kernel> result;
  std::exception_ptr error;
};

void* eval_thread(void* p) {
  auto* job = static_cast<EvalJob*>(p);
  try {
    job->result = run(*job->path, *job->opts, kEvalStackBytes - kEvalStackReserve, job->launched_lnc);
  } catch (...) {
    job->error = std::current_exception();
  }
  return nullptr;
}

ir::Kernel run_on_big_stack(const std::string& path, const CompileOptions& opts, int* launched_lnc) {
  EvalJob job{&path, &opts, launched_lnc, std::nullopt, nullptr};
  pthread_attr_t attr;
  pthread_t th;
  bool started = pthread_attr_init(&attr) == 0 && pthread_attr_setstacksize(&attr, kEvalStackBytes) == 0 &&
                 pthread_create(&th, &attr, eval_thread, &job) == 0;
  pthread_attr_destroy(&attr);
  if (!started) return run(path, opts, 0, launched_lnc);  // no thread: evaluate here with the default stack limit
  pthread_join(th, nullptr);
  if (job.error) std::rethrow_exception(job.error);
  return std::move(*job.result);
}

}  // namespace

namespace {

void list_namespace(Interp& in, const std::string& name, const ModuleObj* m,
                    std::vector<std::pair<std::string, std::vector<BuiltinName>>>& out) {
  std::vector<BuiltinName> names;
  for (auto& [k, v] : m->globals) {
    const std::string n = sym_str(k);
    if (n.empty() || n[0] == '_') continue;
    BuiltinName b{n, 'v'};
    if (v.is(VK::Module)) {
      b.kind = 'm';
      const std::string inner = name + "." + n;  // a namespace that is no importable module: listed here
      if (!in.module_cache.count(intern(inner)) && v.as<ModuleObj>()->path.empty() &&
          v.as<ModuleObj>()->name != name)
        list_namespace(in, inner, v.as<ModuleObj>(), out);
    } else if (v.is(VK::Class)) {
      b.kind = 'c';
    } else if (v.is(VK::Function) || v.is(VK::Builtin)) {
      b.kind = 'f';
    } else if (v.is(VK::Int)) {
      b.kind = 'i';
      b.number = double(v.i());
    } else if (v.is(VK::Float)) {
      b.kind = 'x';
      b.number = v.f();
    }
    names.push_back(b);
  }
  std::sort(names.begin(), names.end(), [](auto& a, auto& b) { return a.name < b.name; });
  out.push_back({name, std::move(names)});
}

}  // namespace

std::vector<std::pair<std::string, std::vector<BuiltinName>>> builtin_namespaces(const isa::TargetDesc& target) {
  Interp in{InterpOptions{}};
  set_target_constants(in, target);
  std::vector<std::pair<std::string, std::vector<BuiltinName>>> out;
  for (auto& [sym, mv] : in.module_cache)
    if (mv.is(VK::Module) && mv.as<ModuleObj>()->path.empty()) list_namespace(in, sym_str(sym), mv.as<ModuleObj>(), out);
  std::sort(out.begin(), out.end(), [](auto& a, auto& b) { return a.first < b.first; });
  return out;
}

ir::Kernel compile_to_ir(const std::string& path, const CompileOptions& opts, int* launched_lnc) {
  try {
    return run_on_big_stack(path, opts, launched_lnc);
  } catch (Error&) {
    throw;
  } catch (std::bad_alloc&) {
    throw Error("out of memory while evaluating the kernel", SourceLoc{path, 0, 0});
  } catch (std::exception& e) {
    throw Error(std::string("internal error in the front end: ") + e.what(), SourceLoc{path, 0, 0});
  }
}

}  // namespace nkisim::frontend
