// test_compile.cpp - compiling kernels to Kernel IR: the examples, nki surface, parameter binding, errors.
#include <chrono>
#include <set>

#include "helpers.h"
#include "ir/passes.h"
#include "isa/target.h"

using nkisim::isa::ActFunc;
using nkisim::isa::AluOp;
using nkisim::isa::DType;
using nkisim::isa::Opcode;
namespace ir = nkisim::ir;

static std::string example(const char* name) { return std::string(NKISIM_SOURCE_DIR) + "/examples/" + name; }

static std::vector<std::pair<int64_t, int64_t>> dims(const ir::View& v) {
  std::vector<std::pair<int64_t, int64_t>> out;
  for (auto& d : v.dims) out.emplace_back(d.stride, d.count);
  return out;
}
using Dims = std::vector<std::pair<int64_t, int64_t>>;

TEST_CASE("compile: examples/tensor_add.py") {
  fe::CompileOptions o;
  o.inputs = {spec({256, 1024}), spec({256, 1024})};
  ir::Kernel k = fe::compile_to_ir(example("tensor_add.py"), o);
  CHECK(k.name == "tensor_add");
  CHECK(k.file == example("tensor_add.py"));
  REQUIRE(k.params.size() == 2);
  CHECK(k.tensors[k.params[0]].name == "a_input");
  CHECK(k.tensors[k.params[0]].role == ir::Tensor::Role::Param);
  CHECK(k.tensors[k.params[0]].buffer == ir::Buffer::hbm);
  CHECK(k.tensors[k.params[1]].param_index == 1);
  REQUIRE(k.outputs.size() == 1);
  const ir::Tensor& out = k.tensors[k.outputs[0]];
  CHECK(out.name == "c_output");
  CHECK(out.buffer == ir::Buffer::shared_hbm);
  CHECK(out.shape == std::vector<int64_t>{256, 1024});
  // 2 x 2 tiles, each: dma a, dma b, tensor_tensor, dma out
  REQUIRE(k.ops.size() == 16);
  for (int t = 0; t < 4; ++t) {
    CHECK(k.ops[4 * t].opcode == Opcode::dma_copy);
    CHECK(k.ops[4 * t + 1].opcode == Opcode::dma_copy);
    CHECK(k.ops[4 * t + 2].opcode == Opcode::tensor_tensor);
    CHECK(k.ops[4 * t + 3].opcode == Opcode::dma_copy);
    CHECK(k.ops[4 * t + 2].params.op0 == AluOp::add);
  }
  // tile (m=1, n=1): a_input[128:256, 512:1024]
  const ir::Op& dma = k.ops[12];
  REQUIRE(dma.operands[1].has_value());
  const ir::View& src = *dma.operands[1];
  CHECK(src.tensor == k.params[0]);
  CHECK(src.offset == 128 * 1024 + 512);
  CHECK(dims(src) == Dims{{1024, 128}, {1, 512}});
  const ir::View& dst = *dma.operands[0];
  CHECK(k.tensors[dst.tensor].name.rfind("a_tile", 0) == 0);
  CHECK(k.tensors[dst.tensor].buffer == ir::Buffer::sbuf);
  CHECK(dims(dst) == Dims{{512, 128}, {1, 512}});
  CHECK(dst.offset == 0);
  // store: c_output[128:256, 512:1024] <- c_tile
  CHECK(k.ops[15].operands[0]->tensor == k.outputs[0]);
  CHECK(k.ops[15].operands[0]->offset == 128 * 1024 + 512);
  // locations: the call lines in the example
  CHECK(dma.loc.file == example("tensor_add.py"));
  CHECK(dma.loc.line == 23);
  CHECK(dma.loc.col == 13);
  CHECK(k.ops[14].loc.line == 27);
  CHECK(dma.call_chain.empty());
  // tile tensors get unique names derived from their variables
  std::set<std::string> names;
  for (auto& t : k.tensors) names.insert(t.name);
  CHECK(names.size() == k.tensors.size());
  CHECK(names.count("a_tile_3"));
}

TEST_CASE("compile: examples/tensor_add.py shape assertion") {
  fe::CompileOptions o;
  o.inputs = {spec({256, 1000}), spec({256, 1000})};
  TempKernel dummy("");
  try {
    fe::compile_to_ir(example("tensor_add.py"), o);
    FAIL("expected an error");
  } catch (nkisim::Error& e) {
    REQUIRE(e.loc);
    CHECK(e.loc->line == 15);
    CHECK(e.loc->col == 5);
    CHECK(std::string(e.what()) == "assertion failed: shape (256, 1000) does not tile by (128, 512)");
  }
}

TEST_CASE("compile: examples/exp_affine.py") {
  fe::CompileOptions o;
  o.inputs = {spec({64, 256}, DType::bfloat16), spec({64, 1})};
  o.args = {{"scale", "0.25"}};
  ir::Kernel k = fe::compile_to_ir(example("exp_affine.py"), o);
  CHECK(k.name == "exp_affine");
  REQUIRE(k.ops.size() == 5);
  CHECK(k.ops[0].opcode == Opcode::dma_copy);
  CHECK(k.ops[1].opcode == Opcode::dma_copy);
  const ir::Op& act = k.ops[2];
  CHECK(act.opcode == Opcode::activation);
  CHECK(act.params.func == ActFunc::exp);
  CHECK(act.params.scale == 0.25f);
  REQUIRE(act.operands[2].has_value());  // bias tile in slot 2
  CHECK(k.tensors[act.operands[2]->tensor].name == "bias_tile");
  CHECK(dims(*act.operands[2]) == Dims{{1, 64}, {1, 1}});
  CHECK(!act.operands[3].has_value());
  CHECK(act.operands[0]->dtype == DType::float32);
  const ir::Op& ts = k.ops[3];
  CHECK(ts.opcode == Opcode::tensor_scalar);
  CHECK(ts.params.op0 == AluOp::multiply);
  CHECK(ts.params.imm0 == 2.0f);
  CHECK(ts.params.op1 == AluOp::add);
  CHECK(ts.params.imm1 == 1.0f);
  CHECK(ts.operands[0]->dtype == DType::bfloat16);
  CHECK(k.ops[4].opcode == Opcode::dma_copy);
  REQUIRE(k.outputs.size() == 1);
  CHECK(k.tensors[k.outputs[0]].dtype == DType::bfloat16);
  CHECK(k.tensors[k.outputs[0]].shape == std::vector<int64_t>{64, 256});
  // default scale when no --arg is given
  o.args.clear();
  CHECK(fe::compile_to_ir(example("exp_affine.py"), o).ops[2].params.scale == 0.5f);
  // the assert in the example
  o.inputs = {spec({256, 8}), spec({256, 1})};
  CHECK(compile_error("", o) != "");
}

TEST_CASE("compile: kernel selection and parameter binding errors") {
  const char* two = "import nki\n@nki.jit\ndef a(x):\n  return x\n@nki.jit(mode='trace')\ndef b(x):\n  return x\n";
  CHECK(compile_error(two) == "?:?: several @nki.jit kernels in file: a, b; choose one with -k NAME");
  fe::CompileOptions o;
  o.kernel_name = "b";
  o.inputs = {spec({4, 4})};
  TempKernel k2(two);
  CHECK(fe::compile_to_ir(k2.path, o).name == "b");
  CHECK(compile_error("def f(x):\n  return x\n").find("no @nki.jit kernel in file") != std::string::npos);
  const char* one = "import nki\n@nki.jit\ndef k(a, b, n=2):\n  return a\n";
  fe::CompileOptions bad;
  bad.inputs = {spec({4, 4})};
  CHECK(compile_error(one, bad) == "3:1: kernel 'k' takes 2 tensor inputs (a, b) but 1 was given");
  bad.args = {{"zz", "1"}};
  CHECK(compile_error(one, bad) == "?:?: --arg zz: kernel 'k' has no parameter 'zz' (parameters: a, b, n)");
  bad.args = {{"b", "(1, 2"}};
  CHECK(compile_error(one, bad).find("--arg b: '(1, 2' is not a Python literal") != std::string::npos);
  CHECK(compile_error("import nki\n@nki.jit\ndef k(a, *, b=1):\n  return a\n", bad)
            .find("3:13: kernel 'k': keyword-only parameters") == 0);
}

TEST_CASE("compile: --arg literals bind by name") {
  const char* src = R"PY(
import nki
import nki.language as nl
import nki.isa as nisa

@nki.jit
def k(x, n, shape=(1, 1), flag=False, name=None, f=1.0):
    assert n == 3 and shape == (2, 4) and flag == True and name == "hi" and f == -2.5, "bad args"
    out = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
    nisa.dma_copy(dst=out, src=x)
    return out
)PY";
  TempKernel t(src);
  fe::CompileOptions o;
  o.inputs = {spec({2, 4})};
  o.args = {{"n", "3"}, {"shape", "(2, 4)"}, {"flag", "True"}, {"name", "'hi'"}, {"f", "-2.5"}};
  CHECK(fe::compile_to_ir(t.path, o).ops.size() == 1);
}

static ir::Kernel compile_src(const std::string& src, std::vector<fe::TensorArgSpec> inputs = {}) {
  TempKernel t(src);
  fe::CompileOptions o;
  o.inputs = std::move(inputs);
  return fe::compile_to_ir(t.path, o);
}

static const char* kPrelude = "import nki\nimport nki.language as nl\nimport nki.isa as nisa\n";

TEST_CASE("compile: indexing rules, nl.ds, views") {
  std::string src = std::string(kPrelude) + R"PY(
@nki.jit
def k(h):
    s = nl.ndarray((128, 32, 64), dtype=nl.float32, buffer=nl.sbuf)
    assert s[0].shape == (1, 32, 64) and s[:, 1].shape == (128, 64) and s[0, 0, 10].shape == (1, 1)
    assert s[..., 3].shape == (128, 32) and s[:, nl.ds(8, 16), -1].shape == (128, 16)
    assert h[0].shape == (32,) and h[1, 2].shape == (1,) and h[:, ::2].shape == (16, 16) and h[-1, -3:].shape == (3,)
    assert s.reshape((128, 2048)).shape == (128, 2048) and s[:, 1:3].reshape((128, 128)).shape == (128, 128)
    assert h.shape == (16, 32) and h.ndim == 2 and h.size == 512 and h.dtype == nl.float32 and h.buffer == nl.hbm
    v = s[:, 2, 8:24:2]
    assert v.offset == 2 * 64 + 8 and v.strides == (2048, 2) and v.shape == (128, 8), f"{v.offset} {v.strides} {v.shape}"
    w = h.reshape((4, 4, 32)).slice(1, 1, 3).select(2, 5)
    assert w.shape == (4, 2) and w.offset == 32 + 5, f"{w.shape} {w.offset}"
    assert s.permute((0, 2, 1)).shape == (128, 64, 32) and s[:, 0:1].broadcast(1, 8).shape == (128, 8, 64)
    assert s.expand_dim(1).shape == (128, 1, 32, 64) and s[:, 0:1].squeeze_dim(1).shape == (128, 64)
    nisa.memset(dst=s[:, :, 0:32], value=0.0)
    return None
)PY";
  ir::Kernel k = compile_src(src, {spec({16, 32})});
  REQUIRE(k.ops.size() == 1);
  CHECK(dims(*k.ops[0].operands[0]) == Dims{{2048, 128}, {64, 32}, {1, 32}});
  CHECK(compile_error(std::string(kPrelude) + "@nki.jit\ndef k():\n    s = nl.ndarray((128, 64), dtype=nl.float32)\n"
                                              "    t = s[0:128:2]\n") ==
        "7:9: the partition dimension cannot be sliced with a step (got step 2)");
  CHECK(compile_error(std::string(kPrelude) + "@nki.jit\ndef k():\n    s = nl.ndarray((128, 64), dtype=nl.float32)\n"
                                              "    t = s.reshape((64, 128))\n") ==
        "7:9: reshape of an on-chip tensor must keep the partition dimension (128), got shape (64, 128)");
  CHECK(compile_error(std::string(kPrelude) + "@nki.jit\ndef k():\n    s = nl.ndarray((128, 64), dtype=nl.float32)\n"
                                              "    t = s.reshape((128, 65))\n") ==
        "7:9: cannot reshape tensor of shape (128, 64) into shape (128, 65)");
}

TEST_CASE("compile: nki ops, enums, tile_size, engines") {
  std::string src = std::string(kPrelude) + R"PY(
@nki.jit
def k():
    assert nl.tile_size.pmax == 128 and nl.tile_size.psum_bank_fmax == 512 and nl.tile_size.gemm_moving_fmax == 512
    assert nl.tile_size.gemm_stationary_fmax == 128 and nl.tile_size.bn_stats_fmax == 512 and nl.tile_size.psum_num_banks == 8
    assert nl.program_id(0) == 0 and nl.num_programs() == 1 and nl.program_ndim() == 0
    a = nl.ndarray((128, 64), dtype="bfloat16", buffer=nl.sbuf)
    b = nl.ndarray((128, 64), dtype=nl.float32)
    assert a.dtype == nl.bfloat16 and a.dtype == "bfloat16" and b.buffer == nl.sbuf
    c = nl.ndarray((128, 1), dtype=nl.float32, buffer=nl.sbuf)
    nisa.tensor_tensor(dst=b, data1=a, data2=b, op=nl.maximum, engine=nisa.engine.gpsimd)
    nisa.tensor_scalar(b, a, nl.abs, 0.0)
    nisa.tensor_scalar(dst=b, data=a, op0=nl.subtract, operand0=c, reverse0=True)
    nisa.activation(dst=b, op=nl.abs, data=a, scale=c)
    nisa.activation(b, nl.copy, a)
    nisa.tensor_copy(dst=a, src=b, engine=nisa.engine.scalar)
    nisa.memset(b, -3)
    for i in nl.affine_range(2):
        for j in nl.sequential_range(1, 3):
            for q in nl.static_range(0, 4, 2):
                nisa.memset(dst=a[:, nl.ds(i * 32, 32)], value=float(j + q))
    return None
)PY";
  ir::Kernel k = compile_src(src);
  REQUIRE(k.ops.size() == 7 + 8);
  CHECK(k.ops[0].params.op0 == AluOp::maximum);
  CHECK(k.ops[0].engine == nkisim::isa::Engine::GpSimd);
  CHECK(k.ops[1].params.op0 == AluOp::abs);
  CHECK(k.ops[1].params.op1 == AluOp::bypass);
  CHECK(k.ops[2].operands[2].has_value());
  CHECK(k.ops[2].params.reverse0);
  CHECK(k.ops[3].params.func == ActFunc::abs);
  CHECK(k.ops[3].operands[3].has_value());
  CHECK(k.ops[4].params.func == ActFunc::copy);
  CHECK(k.ops[5].engine == nkisim::isa::Engine::Scalar);
  CHECK(k.ops[6].params.imm0 == -3.0f);
  CHECK(k.ops.back().params.imm0 == 4.0f);
  CHECK(k.ops.back().operands[0]->offset == 32);
}

TEST_CASE("compile: helper calls record the call chain, errors in helpers carry notes") {
  std::string src = std::string(kPrelude) + R"PY(
def load(dst, src):
    nisa.dma_copy(dst=dst, src=src)

def twice(dst, src):
    load(dst, src)
    load(dst, src)

@nki.jit
def k(x):
    t = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.sbuf)
    twice(t, x)
    out = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
    nisa.dma_copy(dst=out, src=t)
    return out
)PY";
  ir::Kernel k = compile_src(src, {spec({128, 8})});
  REQUIRE(k.ops.size() == 3);
  CHECK(k.ops[0].loc.line == 6);
  REQUIRE(k.ops[0].call_chain.size() == 2);
  CHECK(k.ops[0].call_chain[0].line == 9);   // innermost first: load(...) in twice
  CHECK(k.ops[0].call_chain[1].line == 15);  // twice(...) in the kernel
  CHECK(k.ops[1].call_chain[0].line == 10);
  CHECK(k.ops[2].call_chain.empty());

  std::string bad = std::string(kPrelude) + R"PY(
def helper(t):
    return t[0:256]

@nki.jit
def k(x):
    t = nl.ndarray((128, 8), dtype=x.dtype, buffer=nl.sbuf)
    helper(t)
)PY";
  TempKernel tk(bad);
  fe::CompileOptions o;
  o.inputs = {spec({128, 8})};
  try {
    fe::compile_to_ir(tk.path, o);
    FAIL("expected an error");
  } catch (nkisim::Error& e) {
    CHECK(std::string(e.what()) == "slice [0:256] is out of bounds for dimension 0 of size 128");
    CHECK(e.loc->line == 6);
    CHECK(e.loc->col == 12);
    REQUIRE(e.notes.size() == 1);
    CHECK(e.notes[0].first.line == 11);
    CHECK(e.notes[0].second == "called from here");
  }
}

TEST_CASE("compile: nki.isa argument and shape errors are located at the call") {
  std::string head = std::string(kPrelude) + "@nki.jit\ndef k(x):\n";
  auto err = [&](const std::string& body) {
    return compile_error(head + body, [] {
      fe::CompileOptions o;
      o.inputs = {spec({128, 512})};
      return o;
    }());
  };
  CHECK(err("    a = nl.ndarray((128, 512), dtype=nl.float32)\n    b = nl.ndarray((128, 256), dtype=nl.float32)\n"
            "    nisa.tensor_tensor(dst=a, data1=b, data2=a, op=nl.add)\n") ==
        "8:5: tensor_tensor: operand 'data1' has 128 partitions x 256 elements but 'dst' has 128 partitions x 512 elements");
  CHECK(err("    a = nl.ndarray((128, 512), dtype=nl.float32)\n    nisa.tensor_tensor(dst=a, data1=a, data2=a, "
            "op=nl.add, foo=1)\n") == "7:5: tensor_tensor() got an unexpected keyword argument 'foo'");
  CHECK(err("    a = nl.ndarray((128, 512), dtype=nl.float32)\n    nisa.tensor_tensor(dst=a, data1=a, op=nl.add)\n") ==
        "7:5: tensor_tensor() missing required argument 'data2'");
  CHECK(err("    a = nl.ndarray((256, 512), dtype=nl.float32)\n") ==
        "6:9: Size of partition dimension 256 exceeds architecture limitation of 128");
  CHECK(err("    a = nl.ndarray((128, 512), dtype=nl.float32)\n    nisa.tensor_tensor(dst=a, data1=a, data2=a, "
            "op=nl.exp)\n") == "7:5: tensor_tensor: op must be an ALU operator such as nl.add, got nl.exp");
  CHECK(err("    a = nl.ndarray((128, 512), dtype=nl.float32)\n    nisa.activation(dst=a, op=nl.add, data=a)\n") ==
        "7:5: activation: op must be an activation function such as nl.exp, got nl.add");
  CHECK(err("    nisa.tensor_copy(dst=x, src=x)\n") ==
        "6:5: tensor_copy: operand 'dst' must be in SBUF or PSUM, but 'x' is in HBM");
  CHECK(err("    a = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.psum)\n    nisa.dma_copy(dst=x, src=a)\n") ==
        "7:5: dma_copy: operand 'src' must be in HBM or SBUF, but 'a' is in PSUM");
  CHECK(err("    a = nl.ndarray((128, 512), dtype=nl.float32)\n    nisa.dma_copy(dst=a, src=x[0:64])\n") ==
        "7:5: dma_copy: operand 'dst' has 128 x 512 = 65536 elements but 'src' has 64 x 512 = 32768");
  CHECK(err("    a = nl.ndarray((128, 512), dtype=nl.float32)\n    nisa.tensor_copy(dst=a, src=a, "
            "engine=nisa.engine.tensor)\n") ==
        "7:5: tensor_copy: engine=tensor cannot execute this instruction (allowed: vector, scalar, gpsimd)");
  CHECK(err("    a = nl.ndarray((128, 512), dtype=nl.float32, buffer='sbuf')\n") ==
        "6:9: ndarray: buffer must be nl.sbuf, nl.psum, nl.hbm, nl.private_hbm or nl.shared_hbm, got 'sbuf' (string "
        "buffer names are not accepted)");
  CHECK(err("    a = nl.ndarray((128, 512), dtype=nl.float32)\n    b = nl.ndarray((128, 4), dtype=nl.float32)\n"
            "    nisa.activation(dst=a, op=nl.exp, data=a, bias=b)\n") ==
        "8:5: activation: operand 'bias' must be a [128, 1] tile (one value per partition), got 128 partitions x 4 "
        "elements");
  CHECK(err("    y = x[0, 0, 0]\n") == "6:9: too many indices for tensor: tensor is 2-dimensional, but 3 were indexed");
  CHECK(err("    y = x[128:129]\n") == "6:9: slice [128:129] is out of bounds for dimension 0 of size 128");
  CHECK(err("    a = nl.ndarray((128, 512), dtype=nl.int32)\n    nisa.memset(dst=a, value=0.5)\n") ==
        "7:5: memset: value 0.5 is not an integer but dst has dtype int32");
  CHECK(err("    a = nl.ndarray((128, 512), dtype=nl.float32)\n    return a\n") ==
        "6:9: kernel output 'a' must be allocated in nl.shared_hbm, but it is in sbuf");
  CHECK(err("    return 3\n") == "5:1: kernel 'k' must return a tensor or a tuple of tensors, not 'int'");
  CHECK(err("    y = x + x\n").find("6:9: tensor operator '+' is not supported") == 0);
}

TEST_CASE("compile: imports of nki namespaces and project modules") {
  auto dir = std::filesystem::temp_directory_path() / ("nkisim_fe_imp_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir / "pkg");
  std::ofstream(dir / "pkg" / "__init__.py") << "";
  std::ofstream(dir / "pkg" / "helpers.py") << "import nki.isa as nisa\nTILE = 64\ndef copy(d, s):\n"
                                               "    nisa.dma_copy(dst=d, src=s)\n";
  std::ofstream(dir / "kern.py") << "from nki import language as nl\nfrom nki.isa import engine\n"
                                    "from pkg.helpers import copy, TILE\n"
                                    "from pkg import helpers\nimport nki\n@nki.jit\ndef k(x):\n"
                                    "    assert engine.vector.name == 'vector' and TILE == helpers.TILE\n"
                                    "    t = nl.ndarray((TILE, 8), dtype=x.dtype, buffer=nl.sbuf)\n    copy(t, x)\n"
                                    "    nl.ds(0, 1)\n    return None\n";
  fe::CompileOptions o;
  o.inputs = {spec({64, 8})};
  ir::Kernel k = fe::compile_to_ir((dir / "kern.py").string(), o);
  REQUIRE(k.ops.size() == 1);
  CHECK(k.ops[0].loc.file == (dir / "pkg" / "helpers.py").string());
  CHECK(k.ops[0].loc.line == 4);
  CHECK(k.ops[0].call_chain[0].file == (dir / "kern.py").string());
  std::filesystem::remove_all(dir);
}

// Correctness of a large unrolled compile; its speed is measured by the benchmark in bench/, not here
// (a timed unit test would fail on a loaded machine).
TEST_CASE("compile: a kernel unrolling to 100,000 instructions") {
  std::string src = std::string(kPrelude) + R"PY(
@nki.jit
def k(x):
    a = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.sbuf)
    b = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.sbuf)
    for i in nl.affine_range(N):
        for j in nl.affine_range(1000):
            nisa.tensor_tensor(dst=a[:, 0:256], data1=b[:, 256:512], data2=a[:, 0:256], op=nl.add)
    return None
)PY";
  const int n = 100;  // 100,000 instructions
  src.replace(src.find("range(N)"), 8, "range(" + std::to_string(n) + ")");
  ir::Kernel k = compile_src(src, {spec({128, 512})});
  REQUIRE(k.ops.size() == size_t(n) * 1000);
  CHECK(k.ops.back().opcode == nkisim::isa::Opcode::tensor_tensor);
  CHECK(k.ops.back().operands[1]->offset == 256);
}

TEST_CASE("compile: budgets (steps, instructions, recursion) come from CompileOptions") {
  std::string src = std::string(kPrelude) +
                    "@nki.jit\ndef k():\n    t = nl.ndarray((128, 8), dtype=nl.float32)\n"
                    "    for i in range(100):\n        nisa.memset(dst=t, value=1.0)\n";
  fe::CompileOptions o;
  o.max_instructions = 50;
  CHECK(compile_error(src, o) ==
        "8:9: instruction budget exceeded: the kernel emits more than 50 instructions (raise the limit with "
        "--max-instructions N)");
  o.max_instructions = 100;
  CHECK(compile_error(src, o) == "no error");
  fe::CompileOptions s;
  s.max_steps = 20;
  CHECK(compile_error(src, s).find("evaluation step budget exceeded (20 steps)") != std::string::npos);
  fe::CompileOptions r;
  r.max_recursion = 10;
  CHECK(compile_error(std::string(kPrelude) + "def f(n):\n    return f(n + 1)\n@nki.jit\ndef k():\n    f(0)\n", r) ==
        "5:12: maximum recursion depth exceeded (10 Python frames; raise the limit with --max-recursion N)");
}

TEST_CASE("compile: kernel-only restrictions do not apply to module-level host code") {
  const char* src = R"PY(
import nki
import nki.language as nl
import neuronxcc.nki.language as legacy

class Host:
    pass

COUNT = 0
def bump():
    global COUNT
    COUNT += 1
bump()
H = Host()
SAME = H is H and legacy.float32 is not None

@nki.jit
def k():
    assert COUNT == 1 and SAME
    return None
)PY";
  CHECK(compile_error(src) == "no error");
  // ...but the kernel itself may use none of them.
  fe::CompileOptions o;
  o.kernel_name = "k2";
  CHECK(compile_error(std::string(src) + "\n@nki.jit\ndef k2():\n    x = H.field\n", o) ==
        "24:9: an instance of 'Host' cannot be used in an NKI kernel: classes must inherit NKIObject (class "
        "Host(nl.NKIObject): ...)");
  CHECK(compile_error(std::string(src) + "\n@nki.jit\ndef k2():\n    bump()\n", o) ==
        "11:5: the 'global' statement is not supported in NKI kernels (in bump()); pass the value as an argument or "
        "return it");
}

// Unique tensor names (frontend/nki_lang.cpp, new_tensor): a name taken again gets the next free number, a name
// made that way is taken like one given, and a given name that only looks made (a_01, a_9 before a_9) is not.
TEST_CASE("compile: unique tensor names") {
  std::string src = std::string(kPrelude) + R"PY(
@nki.jit
def k():
    for i in range(4):
        a = nl.ndarray((128, 4), dtype=nl.float32, buffer=nl.sbuf)
    for n in ("a_1", "a_2", "a", "a_1", "a_01", "a_1_1", "a_3", "a_9", "a", "a", "a"):
        t = nl.ndarray((128, 4), dtype=nl.float32, buffer=nl.sbuf, name=n)
    return None
)PY";
  ir::Kernel k = compile_src(src);
  std::vector<std::string> names;
  for (const ir::Tensor& t : k.tensors) names.push_back(t.name);
  // As the names were before new_tensor kept made names apart (nki-sim 2bf8504, --emit ir).
  CHECK(names == std::vector<std::string>{"a", "a_1", "a_3", "a_5", "a_1_1", "a_2", "a_7", "a_1_3", "a_01", "a_1_1_1",
                                          "a_3_1", "a_9", "a_10", "a_12", "a_14"});
}

TEST_CASE("compile: with nl.no_reorder() keeps the block's ops in program order (ir::Op::keep_order)") {
  // Two row blocks of three accumulation groups of two steps, step s over stationary tile ws[s], which the second
  // block loads again: the first block's groups are interleaved (ir/interleave.cpp), so ws[0]'s last read comes
  // sooner, unless the groups are in a no_reorder block.
  auto body = [](bool pinned) {
    std::string b =
        "    out = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.shared_hbm)\n"
        "    for r in range(2):\n"
        "        ws = []\n"
        "        for s in range(2):\n"
        "            w = nl.ndarray((128, 128), dtype=nl.float32, buffer=nl.sbuf)\n"
        "            nisa.dma_copy(dst=w, src=x[:, 0:128])\n"
        "            ws.append(w)\n"
        "        v = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.sbuf)\n"
        "        nisa.dma_copy(dst=v, src=x)\n";
    std::string groups =
        "        for g in range(3):\n"
        "            p = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.psum)\n"
        "            for s in range(2):\n"
        "                nisa.nc_matmul(dst=p, stationary=ws[s], moving=v)\n"
        "            o = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.sbuf)\n"
        "            nisa.tensor_copy(dst=o, src=p)\n"
        "            nisa.dma_copy(dst=out, src=o)\n";
    if (pinned) {
      b += "        with nl.no_reorder():\n";
      for (size_t at = 0; at < groups.size();) {  // indent the groups one level into the with block
        b += "    ";
        const size_t e = groups.find('\n', at);
        b += groups.substr(at, e + 1 - at);
        at = e + 1;
      }
    } else {
      b += groups;
    }
    return b + "    return out\n";
  };
  // The PSUM tensor of each multiply, numbered in order of first appearance.
  auto psum_order = [](const ir::Kernel& k) {
    std::vector<int> ids, seen;
    for (const ir::Op& o : k.ops)
      if (o.opcode == Opcode::multiply_moving) {
        const int t = o.operands[0]->tensor;
        auto it = std::find(seen.begin(), seen.end(), t);
        if (it == seen.end()) seen.push_back(t), it = seen.end() - 1;
        ids.push_back(int(it - seen.begin()));
      }
    return ids;
  };
  const nkisim::isa::TargetDesc t = *nkisim::isa::find_target("trn2");
  const ir::Kernel free = compile_body(body(false));
  for (const ir::Op& o : free.ops) CHECK_FALSE(o.keep_order);
  const auto moved = ir::interleave_accumulation_groups(free, t);
  REQUIRE(moved);
  CHECK(psum_order(*moved) == std::vector<int>{0, 1, 2, 0, 1, 2, 3, 3, 4, 4, 5, 5});
  const ir::Kernel pinned = compile_body(body(true));
  size_t kept = 0;
  for (const ir::Op& o : pinned.ops) kept += o.keep_order;
  CHECK(kept == 2 * 3 * (2 * 2 + 2));  // per group: 2 matmuls (load_stationary + multiply_moving), the copy, the store
  CHECK_FALSE(ir::interleave_accumulation_groups(pinned, t));
}

TEST_CASE("compile: sequential_range(directives=ncc.no_reorder()) keeps its body's ops in order") {
  auto source = [](const char* directives) {
    return std::string(
               "import neuronxcc.nki as nki\nimport neuronxcc.nki.language as nl\nimport neuronxcc.nki.isa as nisa\n"
               "import neuronxcc.nki.compiler as ncc\n@nki.jit\ndef k(x):\n"
               "    out = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.shared_hbm)\n"
               "    for r in nl.sequential_range(2") +
           directives +
           "):\n"
           "        p = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.psum)\n"
           "        nisa.memset(dst=p, value=0.0)\n"
           "    t = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.sbuf)\n"
           "    nisa.memset(dst=t, value=1.0)\n"
           "    nisa.dma_copy(dst=out, src=t)\n"
           "    return out\n";
  };
  auto kept = [&](const char* directives) {
    TempKernel t(source(directives));
    const ir::Kernel k = fe::compile_to_ir(t.path, kernel_options("trn2", spec({128, 512})));
    std::vector<bool> v;
    for (const ir::Op& o : k.ops) v.push_back(o.keep_order);
    return v;
  };
  CHECK(kept("") == std::vector<bool>{false, false, false, false});
  CHECK(kept(", directives=ncc.no_reorder()") == std::vector<bool>{true, true, false, false});
  CHECK(kept(", directives=[ncc.no_reorder()]") == std::vector<bool>{true, true, false, false});
}

TEST_CASE("compile: legacy psum += nisa.nc_matmul(..., perf_mode=) accumulates in PSUM; tensor_tensor broadcasts [P, 1]") {
  const std::string head =
      "import neuronxcc.nki as nki\nimport neuronxcc.nki.language as nl\nimport neuronxcc.nki.isa as nisa\n"
      "@nki.jit\ndef k(x):\n"
      "    out = nl.ndarray((4, 64), dtype=nl.float32, buffer=nl.shared_hbm)\n"
      "    a = nl.load(x[:, :, 0:4])\n"
      "    b = nl.load(x[:, :, 0:64])\n";
  auto opcodes = [&](const std::string& body) {
    TempKernel t(head + body);
    fe::TensorArgSpec s = spec({128, 2, 64}, nkisim::isa::DType::float8_e4m3);
    const ir::Kernel k = fe::compile_to_ir(t.path, kernel_options("trn2", s));
    std::vector<nkisim::isa::Opcode> v;
    for (const ir::Op& o : k.ops) v.push_back(o.opcode);
    return v;
  };
  using O = nkisim::isa::Opcode;
  // two double-row matmuls into one PSUM accumulator: both write it (no PSUM temporary, no Vector add)
  CHECK(opcodes("    acc = nl.zeros((4, 64), dtype=nl.float32, buffer=nl.psum)\n"
                "    for i in nl.affine_range(2):\n"
                "        acc[...] += nisa.nc_matmul(a, b, perf_mode='double_row_gen3')\n"
                "    nl.store(out, value=nl.copy(acc))\n    return out\n") ==
        std::vector<O>{O::dma_copy, O::dma_copy, O::memset, O::load_stationary, O::multiply_moving,
                       O::load_stationary, O::multiply_moving, O::tensor_copy, O::dma_copy});
  // nisa.tensor_tensor(t[P, F], s[P, 1], op): one tensor_tensor reading s through a stride-0 view
  TempKernel t(head + "    t = nl.copy(b[:, 0, :], dtype=nl.float32)\n"
                      "    s = nl.copy(b[:, 0, 0:1], dtype=nl.float32)\n"
                      "    r = nisa.tensor_tensor(t, s, nl.multiply)\n"
                      "    nl.store(out, value=r[0:4, :])\n    return out\n");
  const ir::Kernel k = fe::compile_to_ir(t.path, kernel_options("trn2", spec({128, 2, 64}, nkisim::isa::DType::float8_e4m3)));
  const auto tt = std::find_if(k.ops.begin(), k.ops.end(), [](const ir::Op& o) { return o.opcode == O::tensor_tensor; });
  REQUIRE(tt != k.ops.end());
  CHECK(tt->operands[2]->dims.back().stride == 0);
  CHECK(tt->operands[2]->dims.back().count == 64);
}
