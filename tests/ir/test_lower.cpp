// test_lower.cpp - the back end: allocation, access patterns, semaphore insertion, located errors.
#include <doctest/doctest.h>

#include "ir/lower.h"
#include "ir/passes.h"
#include "ir/print.h"

using namespace nkisim;
using namespace nkisim::ir;
using isa::DType;
using isa::Engine;
using isa::Opcode;

namespace {

// Program order: these tests are about the emitter; the list scheduler has its own (test_list_schedule.cpp).
isa::TargetDesc in_program_order(const char* name) {
  isa::TargetDesc t = *isa::find_target(name);
  t.list_schedule = 0;
  return t;
}

const isa::TargetDesc& trn1() {
  static isa::TargetDesc t = in_program_order("trn1");
  return t;
}

const isa::TargetDesc& trn2() {
  static isa::TargetDesc t = in_program_order("trn2");
  return t;
}

int add(Kernel& k, const char* name, std::vector<int64_t> shape, Buffer b, DType dt = DType::float32, int line = 0) {
  Tensor t;
  t.name = name;
  t.shape = std::move(shape);
  t.buffer = b;
  t.dtype = dt;
  t.loc = SourceLoc{"k.py", uint32_t(line), 5};
  return k.add_tensor(t);
}

View rows(const Kernel& k, int t, int64_t r0, int64_t nr, int64_t c0, int64_t nc) {
  View v = k.full_view(t);
  v.offset = r0 * v.dims[0].stride + c0;
  v.dims[0].count = nr;
  v.dims[1].count = nc;
  return v;
}

Op make(Opcode oc, std::initializer_list<std::optional<View>> ops, int line) {
  Op op;
  op.opcode = oc;
  size_t i = 0;
  for (auto& v : ops) op.operands[i++] = v;
  op.loc = SourceLoc{"k.py", uint32_t(line), 9};
  return op;
}

// a + b over two [128, 512] tiles of [128, 1024] inputs.
Kernel tensor_add_kernel() {
  Kernel k;
  k.name = "add";
  int a = add(k, "a", {128, 1024}, Buffer::hbm), b = add(k, "b", {128, 1024}, Buffer::hbm);
  k.tensors[size_t(a)].role = k.tensors[size_t(b)].role = Tensor::Role::Param;
  k.tensors[size_t(a)].param_index = 0;
  k.tensors[size_t(b)].param_index = 1;
  k.params = {a, b};
  int c = add(k, "c", {128, 1024}, Buffer::shared_hbm);
  for (int j = 0; j < 2; ++j) {
    int ta = add(k, "ta", {128, 512}, Buffer::sbuf), tb = add(k, "tb", {128, 512}, Buffer::sbuf);
    int tc = add(k, "tc", {128, 512}, Buffer::sbuf);
    k.ops.push_back(make(Opcode::dma_copy, {k.full_view(ta), rows(k, a, 0, 128, j * 512, 512)}, 10));
    k.ops.push_back(make(Opcode::dma_copy, {k.full_view(tb), rows(k, b, 0, 128, j * 512, 512)}, 11));
    Op tt = make(Opcode::tensor_tensor, {k.full_view(tc), k.full_view(ta), k.full_view(tb)}, 12);
    tt.params.op0 = isa::AluOp::add;
    k.ops.push_back(tt);
    k.ops.push_back(make(Opcode::dma_copy, {rows(k, c, 0, 128, j * 512, 512), k.full_view(tc)}, 13));
  }
  k.outputs = {c};
  return k;
}

std::string error_of(const Kernel& k) {
  try {
    lower(k, trn2());
  } catch (const Error& e) {
    std::string s = e.what();
    if (e.loc) s = std::to_string(e.loc->line) + ": " + s;
    return s;
  }
  return "no error";
}

}  // namespace

TEST_CASE("tensor_add lowers to DMA loads on Sync, adds on Vector, stores triggered by Vector (trn1)") {
  // trn1 (dma_trigger_spread 0): a DMA is triggered by the engine that produced its input, else by Sync.
  isa::Program p = lower(tensor_add_kernel(), trn1());
  auto& sync = p.streams[size_t(Engine::Sync)];
  auto& vec = p.streams[size_t(Engine::Vector)];
  REQUIRE(sync.size() == 4);
  REQUIRE(vec.size() == 4);  // add, store, add, store
  CHECK(vec[0].op == Opcode::tensor_tensor);
  CHECK(vec[1].op == Opcode::dma_copy);
  // HBM: a at 0, b after it, c after b.
  REQUIRE(p.hbm_tensors.size() == 3);
  CHECK(p.hbm_tensors[1].address == 128 * 1024 * 4);
  CHECK(p.hbm_tensors[2].kind == isa::HbmTensor::Kind::Output);
  CHECK(p.hbm_tensors[2].output_index == 0);
  // The first load of b reads row-strided HBM: partition pair (1024, 128), free [1, 512].
  const isa::AccessPattern& src = sync[1].operands[1];
  CHECK(src.mem == isa::Memory::HBM);
  CHECK(src.offset == int64_t(p.hbm_tensors[1].address));
  CHECK(src.partition_stride == 1024);
  CHECK(src.num_partitions == 128);
  CHECK(src.num_dims == 1);
  CHECK(src.dims[0].count == 512);
  // The add waits for both load queues; the loads signal their queues; the store needs no wait.
  CHECK(vec[0].waits.size() == 2);
  CHECK(sync[0].updates.size() == 1);
  CHECK(vec[1].waits.empty());
  // Locations point at the kernel lines.
  CHECK(p.locations[vec[0].loc].line == 12);
}

TEST_CASE("trn2 spreads DMA triggers: tensor_add's stores leave Vector for an engine with no compute work") {
  // trn2 (dma_trigger_spread 1): Vector only adds; the stores of its results are triggered by Scalar (no compute in
  // this kernel), waiting on Vector's semaphore; the loads stay on Sync, and none of them waits for a store.
  isa::Program p = lower(tensor_add_kernel(), trn2());
  auto& sync = p.streams[size_t(Engine::Sync)];
  auto& vec = p.streams[size_t(Engine::Vector)];
  auto& act = p.streams[size_t(Engine::Scalar)];
  REQUIRE(sync.size() == 4);
  REQUIRE(vec.size() == 2);
  REQUIRE(act.size() == 2);
  for (const isa::Instruction& ins : vec) CHECK(ins.op == Opcode::tensor_tensor);
  for (const isa::Instruction& ins : sync) {
    CHECK(ins.op == Opcode::dma_copy);
    CHECK(ins.operands[1].mem == isa::Memory::HBM);  // loads
  }
  for (size_t i = 0; i < act.size(); ++i) {
    CHECK(act[i].op == Opcode::dma_copy);
    CHECK(act[i].operands[0].mem == isa::Memory::HBM);  // stores
    bool waits_vector = false;
    for (const isa::SemWait& w : act[i].waits) waits_vector |= w.sem == uint32_t(Engine::Vector);
    CHECK(waits_vector);
  }
  CHECK(vec[0].updates.size() == 1);  // the add signals the store's trigger engine
  // An engine that computes triggers nothing it did not produce: with the first add on GpSimd, its store goes
  // to Scalar too, and GpSimd runs the add alone.
  Kernel k = tensor_add_kernel();
  for (Op& o : k.ops)
    if (o.opcode == Opcode::tensor_tensor) {
      o.engine = Engine::GpSimd;
      break;
    }
  p = lower(k, trn2());
  REQUIRE(p.streams[size_t(Engine::GpSimd)].size() == 1);
  CHECK(p.streams[size_t(Engine::GpSimd)][0].op == Opcode::tensor_tensor);
  CHECK(p.streams[size_t(Engine::Scalar)].size() == 2);
}

TEST_CASE("independent tiles get distinct SBUF addresses (next-fit) and no cross-tile waits") {
  isa::Program p = lower(tensor_add_kernel(), trn2());
  auto& sync = p.streams[size_t(Engine::Sync)];
  CHECK(sync[0].operands[0].offset != sync[2].operands[0].offset);
  // The second iteration's loads do not wait on the first iteration's work.
  CHECK(sync[2].waits.empty());
  CHECK(sync[3].waits.empty());
}

TEST_CASE("write-after-read on a reused SBUF address becomes a wait") {
  Kernel k;
  k.name = "war";
  int a = add(k, "a", {128, 64}, Buffer::hbm);
  k.tensors[size_t(a)].role = Tensor::Role::Param;
  k.tensors[size_t(a)].param_index = 0;
  k.params = {a};
  int t = add(k, "t", {128, 64}, Buffer::sbuf), u = add(k, "u", {128, 64}, Buffer::sbuf);
  k.tensors[size_t(t)].address = std::pair<int64_t, int64_t>{0, 0};  // placed (unplaced, the reload gets its own
                                                                      // buffer: tests/ir/test_rename.cpp)
  k.ops.push_back(make(Opcode::dma_copy, {k.full_view(t), k.full_view(a)}, 1));
  k.ops.push_back(make(Opcode::tensor_copy, {k.full_view(u), k.full_view(t)}, 2));  // Vector reads t
  k.ops.push_back(make(Opcode::dma_copy, {k.full_view(t), k.full_view(a)}, 3));     // overwrites t
  isa::Program p = lower(k, trn2());
  // Both loads read a kernel input no engine produced: Sync triggers them (docs/cost-model.md), and the
  // second waits for the Vector Engine's read of t (WAR) through Vector's semaphore.
  auto& vec = p.streams[size_t(Engine::Vector)];
  auto& sync = p.streams[size_t(Engine::Sync)];
  REQUIRE(vec.size() == 1);
  CHECK(vec[0].waits.size() == 1);  // the copy waits for the first load
  REQUIRE(sync.size() == 2);
  CHECK(sync[0].op == Opcode::dma_copy);
  CHECK(sync[0].waits.empty());
  CHECK(sync[1].op == Opcode::dma_copy);
  REQUIRE(vec[0].updates.size() == 1);
  // (and for the first load's queue: both write t)
  REQUIRE(sync[1].waits.size() == 2);
  CHECK((sync[1].waits[0].sem == vec[0].updates[0].sem || sync[1].waits[1].sem == vec[0].updates[0].sem));
}

TEST_CASE("SBUF capacity is checked with the live allocations named") {
  Kernel k;
  k.name = "big";
  int a = add(k, "a", {128, 40000}, Buffer::sbuf, DType::float32, 3);
  int b = add(k, "b", {128, 40000}, Buffer::sbuf, DType::float32, 4);
  k.ops.push_back(make(Opcode::memset, {k.full_view(a)}, 5));
  k.ops.push_back(make(Opcode::memset, {k.full_view(b)}, 6));
  // a += b (a copy of b into a would be forwarded into b's memset, and a's memset dropped: ir/forward.cpp)
  k.ops.push_back(make(Opcode::tensor_tensor, {k.full_view(a), k.full_view(a), k.full_view(b)}, 7));
  CHECK(error_of(k) ==
        "4: SBUF capacity exceeded: tensor 'b' needs 160000 bytes per partition; 160000 of 212728 bytes per "
        "partition (229376 less 16648 the compiler keeps) are in use by 1 live allocation(s): 'a' 160000 B (k.py:3)");
}

TEST_CASE("automatic SBUF allocation stays below what the compiler keeps; address= and --param may use it") {
  // 104000 + 108800 = 212800 bytes per partition: over the 212728 left for automatic allocation on trn2
  // (229376 less sbuf_reserved_bytes 16648), within the SBUF.
  Kernel k;
  k.name = "reserved";
  int a = add(k, "a", {128, 26000}, Buffer::sbuf, DType::float32, 3);
  int b = add(k, "b", {128, 27200}, Buffer::sbuf, DType::float32, 4);
  k.ops.push_back(make(Opcode::memset, {k.full_view(a)}, 5));
  k.ops.push_back(make(Opcode::memset, {k.full_view(b)}, 6));
  k.ops.push_back(make(Opcode::tensor_tensor, {k.full_view(a), k.full_view(a), rows(k, b, 0, 128, 0, 26000)}, 7));
  CHECK(error_of(k).find("4: SBUF capacity exceeded: tensor 'b' needs 108800 bytes per partition") == 0);
  isa::TargetDesc none = trn2();
  none.sbuf_reserved_bytes = 0;
  CHECK_NOTHROW(lower(k, none));
  k.tensors[size_t(b)].address = std::make_pair(int64_t(0), int64_t(104000));  // placed by the kernel: allowed
  CHECK(error_of(k) == "no error");
}

// The kernel of the two spilling tests below: five SBUF tiles in this order, each memset, then two copies
// between them (x0/x1, z/y), which keep x0, y, x1 and z live while w is placed.
struct Pieces {
  Kernel k;
  int x0, y, x1, z, w;
  explicit Pieces(const char* name) {
    k.name = name;
    x0 = add(k, "x0", {128, 256}, Buffer::sbuf, DType::float32, 1);
    y = add(k, "y", {128, 256}, Buffer::sbuf, DType::float32, 2);
    x1 = add(k, "x1", {128, 256}, Buffer::sbuf, DType::float32, 3);
    z = add(k, "z", {128, 256}, Buffer::sbuf, DType::float32, 4);
    w = add(k, "w", {128, 512}, Buffer::sbuf, DType::float32, 5);
    for (int ti : {x0, y, x1, z, w}) k.ops.push_back(make(Opcode::memset, {k.full_view(ti)}, 10));
    k.ops.push_back(make(Opcode::tensor_copy, {k.full_view(x0), k.full_view(x1)}, 11));
    k.ops.push_back(make(Opcode::tensor_copy, {k.full_view(z), k.full_view(y)}, 12));
  }
};

TEST_CASE("spilling: a victim whose block the failing tensor did not take goes back (the free space was in pieces)") {
  // SBUF of 4096 bytes per partition: x0 @0, y @1024, x1 @2048, z @3072, each 1024 B; w needs 2048 contiguous.
  // Victims x0, then x1 leave two 1 KiB holes; y goes too, and w takes [0, 2048): x1's block is free again, so
  // x1 goes back where it was and is not spilled.
  isa::TargetDesc t = trn2();
  t.sbuf_partition_bytes = 4096;
  t.sbuf_reserved_bytes = 0;
  Pieces pk("pieces");
  Kernel& k = pk.k;
  const int x0 = pk.x0, y = pk.y, x1 = pk.x1, w = pk.w;
  SpillChoice choice;
  std::vector<int> order{x0, x1, y};
  choice.choose = [&](const std::vector<std::pair<int, int64_t>>& live) {
    for (int ti : order)
      for (auto [l, bytes] : live)
        if (l == ti && std::find(choice.spilled.begin(), choice.spilled.end(), ti) == choice.spilled.end()) return ti;
    return -1;
  };
  isa::Program p;
  std::vector<Placement> pl = allocate(k, t, p, &choice);
  CHECK(choice.spilled == std::vector<int>{x0, y});
  CHECK(pl[size_t(w)].address == 0);
  CHECK(pl[size_t(x1)].allocated);
  CHECK(pl[size_t(x1)].address == 2048);
  CHECK_FALSE(pl[size_t(x0)].allocated);
}

TEST_CASE("spilling: when one victim leaves the free space in pieces, the cheapest contiguous window goes") {
  // As above; prices x0 1, y 5, x1 1, z 1, w 10. The first victim (x0) does not make room, so it goes back and
  // the window [2048, 4096) (x1 + z = 2, against 6 for the windows with y and 10 for w itself) is taken out.
  isa::TargetDesc t = trn2();
  t.sbuf_partition_bytes = 4096;
  t.sbuf_reserved_bytes = 0;
  Pieces pk("window");
  Kernel& k = pk.k;
  const int x0 = pk.x0, y = pk.y, x1 = pk.x1, z = pk.z, w = pk.w;
  SpillChoice choice;
  choice.choose = [&](const std::vector<std::pair<int, int64_t>>&) { return x0; };
  choice.price = [&](int ti, int) { return ti == y ? 5.0 : ti == w ? 10.0 : 1.0; };
  isa::Program p;
  std::vector<Placement> pl = allocate(k, t, p, &choice);
  CHECK(choice.spilled == std::vector<int>{x1, z});
  CHECK(pl[size_t(w)].address == 2048);
  CHECK(pl[size_t(x0)].allocated);
  CHECK(pl[size_t(x0)].address == 0);
  CHECK(pl[size_t(y)].address == 1024);
}

TEST_CASE("operand rules: memory kinds, partition limits and the start-partition rule") {
  Kernel k;
  k.name = "rules";
  int s = add(k, "s", {128, 64}, Buffer::sbuf);
  int h = add(k, "h", {128, 64}, Buffer::hbm);
  k.ops.push_back(make(Opcode::tensor_copy, {k.full_view(s), k.full_view(h)}, 7));
  CHECK(error_of(k) == "7: tensor_copy: operand 'src' must be in SBUF or PSUM, but is in HBM");  // isa::verify's

  k.ops.clear();
  k.ops.push_back(make(Opcode::tensor_copy, {k.full_view(s)}, 6));
  CHECK(error_of(k) == "6: tensor_copy: operand 'src' is missing");

  k.ops.clear();
  View lo = rows(k, s, 16, 32, 0, 64);
  k.ops.push_back(make(Opcode::tensor_copy, {lo, lo}, 8));
  CHECK(error_of(k) ==
        "8: tensor_copy: operand 'dst' starts at partition 16 with 32 partitions; an access of 32 or fewer "
        "partitions must start at partition 0, 32, 64 or 96");

  k.ops.clear();
  k.ops.push_back(make(Opcode::tensor_copy, {rows(k, s, 64, 64, 0, 64), rows(k, s, 0, 64, 0, 64)}, 9));
  CHECK(lower(k, trn2()).num_instructions() == 1);  // cross-half move is legal

  Kernel k2;
  k2.name = "huge";
  add(k2, "x", {256, 4}, Buffer::sbuf, DType::float32, 2);
  k2.ops.push_back(make(Opcode::memset, {k2.full_view(0)}, 3));
  CHECK(error_of(k2) == "2: tensor 'x': Size of partition dimension 256 exceeds architecture limitation of 128");
}

TEST_CASE("HBM operands: 64-bit row stride, 32-bit free-dim strides (a wider one is a located error)") {
  Kernel k;
  k.name = "wide";
  const int64_t big = int64_t(1) << 31;  // elements: one past a free dim's stride (isa::ApStride)
  int x = add(k, "x", {4, 2, big}, Buffer::hbm, DType::int8);
  k.tensors[size_t(x)].role = Tensor::Role::Param;
  k.tensors[size_t(x)].param_index = 0;
  k.params = {x};
  int t = add(k, "t", {4, 32}, Buffer::sbuf, DType::int8);
  View rows4 = k.full_view(x);  // x[:, 0, 0:32]: rows 2^32 elements apart, on the 64-bit row stride
  rows4.dims[1].count = 1;
  rows4.dims[2].count = 32;
  k.ops.push_back(make(Opcode::dma_copy, {k.full_view(t), rows4}, 4));
  const isa::Program p = lower(k, trn2());
  const isa::AccessPattern& src = p.streams[size_t(Engine::Sync)].at(0).operands[1];
  CHECK(src.partition_stride == 2 * big);
  CHECK(src.num_dims == 1);
  CHECK(int64_t(src.dims[0].stride) == 1);

  View cols = k.full_view(x);  // x[:, :, 0:16]: the middle dim steps 2^31 elements
  cols.dims[2].count = 16;
  k.ops[0] = make(Opcode::dma_copy, {k.full_view(t), cols}, 5);
  CHECK(error_of(k) ==
        "5: dma_copy: operand 'src': a free dimension of 2 elements with stride 2147483648 is outside the hardware's "
        "pattern limits");
}

TEST_CASE("contiguous dims merge only while the count fits the 16-bit on-chip field") {
  // t[:, 16, 4096] bf16 is contiguous per partition: merged it would be one dim of 65536 elements, one past the
  // on-chip count field, so it stays two dims (the same bytes). A single dim of 65536 is still refused.
  Kernel k;
  k.name = "long";
  int x = add(k, "x", {128, 16, 4096}, Buffer::hbm, DType::bfloat16);
  k.tensors[size_t(x)].role = Tensor::Role::Param;
  k.tensors[size_t(x)].param_index = 0;
  k.params = {x};
  int t = add(k, "t", {128, 16, 4096}, Buffer::sbuf, DType::bfloat16);
  k.ops.push_back(make(Opcode::dma_copy, {k.full_view(t), k.full_view(x)}, 4));
  const isa::Program p = lower(k, trn2());
  const isa::AccessPattern& dst = p.streams[size_t(Engine::Sync)].at(0).operands[0];
  CHECK(dst.num_dims == 2);
  CHECK(dst.dims[0].count == 16);
  CHECK(dst.dims[0].stride == 4096);
  CHECK(dst.dims[1].count == 4096);
  const isa::AccessPattern& src = p.streams[size_t(Engine::Sync)].at(0).operands[1];
  CHECK(src.num_dims == 1);  // the HBM side has 32-bit counts
  CHECK(src.dims[0].count == 65536);

  Kernel one;
  one.name = "one";
  x = add(one, "x", {128, 65536}, Buffer::hbm, DType::bfloat16);
  one.tensors[size_t(x)].role = Tensor::Role::Param;
  one.tensors[size_t(x)].param_index = 0;
  one.params = {x};
  t = add(one, "t", {128, 65536}, Buffer::sbuf, DType::bfloat16);
  one.ops.push_back(make(Opcode::dma_copy, {one.full_view(t), one.full_view(x)}, 5));
  CHECK(error_of(one) == "5: dma_copy: operand 'dst': a free dimension of 65536 elements with stride 1 is outside "
                         "the hardware's pattern limits");
}

TEST_CASE("outputs must live in shared_hbm") {
  Kernel k;
  k.name = "out";
  int t = add(k, "t", {128, 4}, Buffer::hbm, DType::float32, 6);
  k.outputs = {t};
  CHECK(error_of(k) == "6: kernel output 't' is in hbm; outputs must be allocated with buffer=nl.shared_hbm");
}

TEST_CASE("engine= is honoured and checked against the table") {
  Kernel k;
  k.name = "eng";
  int s = add(k, "s", {128, 64}, Buffer::sbuf);
  Op op = make(Opcode::tensor_copy, {k.full_view(s), k.full_view(s)}, 4);
  op.engine = Engine::Tensor;
  k.ops.push_back(op);
  CHECK(error_of(k) == "4: tensor_copy cannot run on the tensor engine");
  k.ops[0].engine = Engine::GpSimd;
  isa::Program p = lower(k, trn2());
  CHECK(p.streams[size_t(Engine::GpSimd)].size() == 1);
}

TEST_CASE("the IR printer shows tensors, views and params") {
  std::string s = print_kernel(tensor_add_kernel());
  CHECK(s.find("kernel add") == 0);
  CHECK(s.find("tensor %a : float32[128,1024] in hbm param 0") != std::string::npos);
  CHECK(s.find("tensor_tensor dst=%tc.float32{off=0 ap=[[512,128],[1,512]]}") != std::string::npos);
  CHECK(s.find("op0=add") != std::string::npos);
  CHECK(s.find("queue=") == std::string::npos);
}
