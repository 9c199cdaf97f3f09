// loops.cpp - dependency analysis, semaphores and emission for kernels with dynamic loops or registers
// (docs/dynamic-loops.md). Kernels without them take the straight-line fast path (semaphores.cpp); both analyse
// their regions with deps::RegionAnalysis (ir/deps.h).
//
// Shape of the output:
// * Registers are virtual in the IR; every "register engine" (Sync, every engine with work inside a loop)
//   holds a copy of every one, at the same index: reg_set / reg_alu run on all of them, reg_load is done by
//   each of them (each copy is a memory read on its own engine), reg_store by Sync only.
// * A dynamic loop is emitted once (not unrolled) on every register engine E:
//       [waits of the loop on E]  top: branch !cond -> exit;  body(E);  it += 1;  branch top;
//       exit: [drain: wait for E's DMAs of the loop]  [signal E's semaphore of the enclosing region]
//   `it` (one register per loop, never reset) counts the iterations executed so far.
// * Regions: the top level and each loop body are analysed separately, with fresh memory cells. In the
//   enclosing region a loop stands for one unit per register engine E (stream E) whose accesses are the
//   union of the body's accesses triggered by E: it waits before the loop and signals after its drain.
// * Inside a body, every stream s that some op waits on (and every DMA queue) signals its own semaphore
//   sem_L[s], k_s times per iteration. A wait on the j-th signal of s in the same iteration is
//   sem_wait_reg(sem_L[s] >= it * k_s + j); a loop-carried one (found by analysing the body twice, the
//   second pass seeing the first as the previous iteration) is it * k_s + j - k_s.
// The analysis of each region is deps::RegionAnalysis (ir/deps.h), the one that straight-line code gets.
#include <algorithm>
#include <deque>
#include <bit>

#include "ir/deps.h"
#include "ir/passes.h"

namespace nkisim::ir {
using deps::Access;
using deps::kEngineStreams;
using deps::kMaxStreams;
namespace {

constexpr uint16_t kNoReg = 65535;

// An operand offset at run time by a register (ir::DynOperand, docs/dynamic-offsets.md).
bool uses_dyn_register(const Op& op) {
  for (const DynOperand& d : op.dynamic)
    if (d.reg >= 0) return true;
  return false;
}

struct DynWait {
  uint16_t sem;
  int32_t mul, off;
};

// One unit of a region's dependency analysis: an instruction, or a loop on one engine.
struct Unit {
  int32_t instr = -1;  // index into the instruction pool (-1: loop macro)
  int32_t loop = -1;   // macro: the loop
  uint8_t trigger = 0, stream = deps::kUnplaced;  // kUnplaced: a top-level DMA the analysis places
  bool dma = false, fixed_trigger = true;
  std::vector<Access> acc;
  // Results.
  std::vector<isa::SemWait> waits;  // top level
  std::vector<DynWait> dyn;         // loop body
  int32_t signal = -1;              // semaphore it increments when done
};

struct Item {
  enum Kind : uint8_t { unit, replicated, loop } kind;
  int32_t index;  // unit: index into the region's units; replicated: first pool index; loop: loop id
  int32_t count = 0;  // replicated: number of pool entries
};

struct Region {
  std::vector<Item> items;
  std::vector<Unit> units;
};

struct Loop {
  int32_t begin_op = -1;
  Region body;
  uint16_t it_reg = 0;
  std::array<int32_t, kMaxStreams> sem{};  // per stream: its semaphore in this body (-1 none)
  std::array<int32_t, kMaxStreams> k{};    // signals per iteration
  std::array<uint32_t, kMaxStreams> dma_triggers{};  // queue stream -> mask of engines triggering on it
};

isa::AluOp negate(isa::AluOp op) {
  switch (op) {
    case isa::AluOp::less: return isa::AluOp::greater_equal;
    case isa::AluOp::greater_equal: return isa::AluOp::less;
    case isa::AluOp::greater: return isa::AluOp::less_equal;
    case isa::AluOp::less_equal: return isa::AluOp::greater;
    case isa::AluOp::equal: return isa::AluOp::not_equal;
    default: return isa::AluOp::equal;  // not_equal
  }
}

class LoopEmitter {
 public:
  LoopEmitter(const Kernel& k, const std::vector<isa::Engine>& engines, std::vector<isa::Instruction>&& instrs,
              const isa::TargetDesc& t, isa::Program& p, deps::Granules granules)
      : k_(k), engines_(engines), instrs_(std::move(instrs)), t_(t), p_(p), queues_(t), granules_(granules) {
    num_streams_ = queues_.num_streams();
  }

  void run() {
    find_register_engines();
    spare_triggers_ = uint8_t(deps::engines_without_compute(k_, engines_) & ~reg_engines_);
    size_t pool = 0;  // Access points into pool_: reserve it exactly, it never reallocates
    for (const Op& op : k_.ops)
      pool += isa::has_trait(op.opcode, isa::Trait::REG_WRITE)
                  ? size_t(std::popcount(reg_engines_))
                  : 1;
    pool_.reserve(pool);
    build(top_, 0, int32_t(k_.ops.size()), false);
    macros_.resize(loops_.size());
    check_registers();
    next_sem_ = num_streams_;
    analyze(top_, nullptr);
    for (auto& s : p_.streams) s.reserve(s.size() + pool_.size() / 4);
    emit_region(top_, nullptr);
    p_.num_semaphores = uint32_t(next_sem_);
  }

 private:
  // Sync, and every engine with work inside a loop (a DMA in a loop is triggered by Sync unless engine=).
  void find_register_engines() {
    reg_engines_ = 1u << unsigned(isa::Engine::Sync);
    int depth = 0;
    for (size_t i = 0; i < k_.ops.size(); ++i) {
      const Op& op = k_.ops[i];
      if (op.ctl == Ctl::loop_begin) ++depth;
      else if (op.ctl == Ctl::loop_end) --depth;
      else if (depth > 0 && !isa::has_trait(op.opcode, isa::Trait::REGISTER)) reg_engines_ |= 1u << unsigned(trigger_in_loop(i));
      else if (is_dma(i) && op.params.ind_kind == 3)  // a DMA addressed by a register: its trigger holds them
        reg_engines_ |= 1u << unsigned(op.engine.value_or(isa::Engine::Sync));
      else if (uses_dyn_register(op))  // a compute operand offset by a register: its engine holds them
        reg_engines_ |= 1u << unsigned(engines_[i]);
    }
  }
  bool is_dma(size_t i) const { return isa::has_trait(k_.ops[i].opcode, isa::Trait::DMA); }
  isa::Engine trigger_in_loop(size_t i) const {
    if (!is_dma(i)) return engines_[i];
    return *deps::fixed_dma_trigger(k_.ops[i], true);
  }

  int32_t add_pool(size_t op, isa::Engine e) {
    pool_.push_back(instrs_[op]);
    pool_.back().engine = e;
    return int32_t(pool_.size() - 1);
  }

  // Builds the region of ops [from, to); returns the index after it.
  int32_t build(Region& r, int32_t from, int32_t to, bool in_loop) {
    for (int32_t i = from; i < to; ++i) {
      const Op& op = k_.ops[size_t(i)];
      if (op.ctl == Ctl::loop_end) return i;
      if (op.ctl == Ctl::loop_begin) {
        const int32_t id = int32_t(loops_.size());
        loops_.emplace_back();
        loops_[size_t(id)].begin_op = i;
        Region body;
        const int32_t end = build(body, i + 1, to, true);
        loops_[size_t(id)].body = std::move(body);
        r.items.push_back(Item{Item::loop, id});
        i = end;
        continue;
      }
      if (op.opcode == isa::Opcode::reg_set || op.opcode == isa::Opcode::reg_alu) {
        Item it{Item::replicated, int32_t(pool_.size()), 0};
        for (int e = 0; e < kEngineStreams; ++e)
          if (reg_engines_ >> e & 1) add_pool(size_t(i), isa::Engine(e)), ++it.count;
        r.items.push_back(it);
        continue;
      }
      auto add_unit = [&](isa::Engine e, bool dma, bool fixed) {
        Unit u;
        u.instr = add_pool(size_t(i), e);
        u.trigger = uint8_t(e);
        u.dma = dma;
        u.fixed_trigger = fixed;
        // A DMA inside a loop gets its queue now, in program order; a top-level unit is placed by the analysis.
        u.stream = dma && in_loop ? queues_.next_stream(e) : dma ? deps::kUnplaced : uint8_t(e);
        deps::list_accesses(pool_[size_t(u.instr)], extra_aps_, u.acc);
        r.items.push_back(Item{Item::unit, int32_t(r.units.size())});
        r.units.push_back(std::move(u));
      };
      if (op.opcode == isa::Opcode::reg_load) {
        for (int e = 0; e < kEngineStreams; ++e)
          if (reg_engines_ >> e & 1) add_unit(isa::Engine(e), false, true);
      } else if (op.opcode == isa::Opcode::reg_store) {
        add_unit(isa::Engine::Sync, false, true);
      } else if (is_dma(size_t(i))) {
        // Top level: the straight-line rule (the producer of the latest input triggers) unless fixed.
        const std::optional<isa::Engine> fixed = deps::fixed_dma_trigger(op, in_loop);
        add_unit(fixed.value_or(isa::Engine::Sync), true, fixed.has_value());
      } else {
        add_unit(engines_[size_t(i)], false, true);
      }
    }
    return to;
  }

  void check_registers() {
    for (size_t l = 0; l < loops_.size(); ++l) loops_[l].it_reg = uint16_t(k_.num_vregs + int(l));
    const int64_t need = int64_t(k_.num_vregs) + int64_t(loops_.size());
    if (need > int64_t(t_.sequencer_registers)) {
      const Op& at = loops_.empty() ? k_.ops.front() : k_.ops[size_t(loops_.back().begin_op)];
      throw error_at(at, "too many registers: the kernel needs " + std::to_string(need) + " (" +
                             std::to_string(k_.num_vregs) + " virtual, 1 counter per dynamic loop) but a sequencer has " +
                             std::to_string(int64_t(t_.sequencer_registers)));
    }
  }

  // The units a region analyses: its own, and for each loop one macro per register engine.
  std::vector<Unit*> units_of(Region& r) {
    std::vector<Unit*> out;
    for (Item& it : r.items) {
      if (it.kind == Item::unit) out.push_back(&r.units[size_t(it.index)]);
      if (it.kind == Item::loop) {
        auto& macros = macros_[size_t(it.index)];
        for (Unit& m : macros) out.push_back(&m);
      }
    }
    return out;
  }

  // The body's accesses triggered by engine e, nested loops included.
  void collect(Region& r, uint8_t e, std::vector<Access>& out) {
    for (Item& it : r.items) {
      if (it.kind == Item::unit && r.units[size_t(it.index)].trigger == e)
        out.insert(out.end(), r.units[size_t(it.index)].acc.begin(), r.units[size_t(it.index)].acc.end());
      if (it.kind == Item::loop) collect(loops_[size_t(it.index)].body, e, out);
    }
  }

  // Analyses region r (loop: the body of `loop`), nested loops first.
  void analyze(Region& r, Loop* loop) {
    for (Item& it : r.items)
      if (it.kind == Item::loop) {
        Loop& l = loops_[size_t(it.index)];
        analyze(l.body, &l);
        auto& macros = macros_[size_t(it.index)];
        for (int e = 0; e < kEngineStreams; ++e) {
          if (!(reg_engines_ >> e & 1)) continue;
          Unit m;
          m.loop = it.index;
          m.trigger = m.stream = uint8_t(e);
          collect(l.body, uint8_t(e), m.acc);
          macros.push_back(std::move(m));
        }
      }
    std::vector<Unit*> units = units_of(r);
    const size_t n = units.size();
    deps::RegionAnalysis ra(t_, queues_, loop != nullptr, granules_);
    ra.set_trigger_engines(spare_triggers_);
    for (int pass = 0; pass < (loop ? 2 : 1); ++pass) {
      ra.begin_pass();
      for (Unit* u : units) {
        deps::UnitDesc d;
        d.trigger = u->trigger;
        d.stream = u->stream;
        d.dma = u->dma;
        d.choose_trigger = u->dma && !u->fixed_trigger;
        if (u->instr >= 0) d.trigger_engines = deps::dma_trigger_engines(pool_[size_t(u->instr)], t_);
        d.group = u->loop;
        const auto [trig, stream] = ra.add(d, u->acc);
        u->trigger = trig;
        u->stream = stream;
        u->fixed_trigger = true;
        if (u->instr >= 0) pool_[size_t(u->instr)].engine = isa::Engine(trig);
      }
    }
    ra.finish();

    // Semaphores: a body gives each stream that signals one of its own; the top level uses the stream's.
    const std::array<int32_t, kMaxStreams>& count = ra.signals_per_pass();
    std::array<int32_t, kMaxStreams> sem{};
    for (int s = 0; s < num_streams_; ++s) sem[size_t(s)] = loop ? (count[size_t(s)] ? next_sem_++ : -1) : s;
    if (loop) {
      loop->sem = sem;
      loop->k = count;
      for (size_t i = 0; i < n; ++i)
        if (units[i]->stream >= kEngineStreams) loop->dma_triggers[units[i]->stream] |= 1u << units[i]->trigger;
    }
    for (size_t i = 0; i < n; ++i) {
      Unit& u = *units[i];
      for (const deps::Wait& w : ra.waits(i)) {
        if (loop)
          u.dyn.push_back(DynWait{uint16_t(sem[w.stream]), count[w.stream], int32_t(w.value)});
        else
          u.waits.push_back(isa::SemWait{uint16_t(w.stream), uint32_t(w.value)});
      }
      if (ra.signals(i)) u.signal = sem[u.stream];
    }
  }

  isa::Instruction control(isa::Opcode op, uint8_t e, uint32_t loc) const {
    isa::Instruction ins;
    ins.op = op;
    ins.engine = isa::Engine(e);
    ins.loc = loc;
    return ins;
  }
  void push(uint8_t e, isa::Instruction ins) { p_.streams[e].push_back(std::move(ins)); }

  void emit_waits(const Unit& u, uint8_t e, uint32_t loc, const Loop* loop) {
    for (const DynWait& w : u.dyn) {
      isa::Instruction ins = control(isa::Opcode::sem_wait_reg, e, loc);
      ins.params.sem = w.sem;
      ins.params.rs0 = loop->it_reg;
      ins.params.rmul = w.mul;
      ins.params.rimm = w.off;
      push(e, std::move(ins));
    }
  }

  void emit_region(Region& r, const Loop* loop) {
    for (Item& it : r.items) {
      if (it.kind == Item::replicated) {
        for (int32_t j = 0; j < it.count; ++j) {
          isa::Instruction& ins = pool_[size_t(it.index + j)];
          push(uint8_t(ins.engine), std::move(ins));
        }
      } else if (it.kind == Item::unit) {
        Unit& u = r.units[size_t(it.index)];
        isa::Instruction& ins = pool_[size_t(u.instr)];
        ins.engine = isa::Engine(u.trigger);
        if (u.stream >= kEngineStreams) ins.params.dma_queue = uint16_t(u.stream - kEngineStreams);
        emit_waits(u, u.trigger, ins.loc, loop);
        ins.waits = u.waits;
        if (u.signal >= 0) ins.updates.push_back(isa::SemUpdate{uint16_t(u.signal), 1});
        push(u.trigger, std::move(ins));
      } else {
        emit_loop(it.index, loop);
      }
    }
  }

  void emit_loop(int32_t id, const Loop* outer) {
    Loop& l = loops_[size_t(id)];
    const Op& head = k_.ops[size_t(l.begin_op)];
    const uint32_t loc = instrs_[size_t(l.begin_op)].loc;
    std::array<size_t, kEngineStreams> top{};
    for (Unit& m : macros_[size_t(id)]) {
      const uint8_t e = m.trigger;
      emit_waits(m, e, loc, outer);
      if (!m.waits.empty()) {
        isa::Instruction w = control(isa::Opcode::sem_wait, e, loc);
        w.waits = m.waits;
        push(e, std::move(w));
      }
      top[e] = p_.streams[e].size();
      isa::Instruction br = control(isa::Opcode::branch, e, loc);
      br.params.op0 = negate(head.params.op0);
      br.params.rs0 = head.params.rs0;
      br.params.rs1 = head.params.rs1;
      br.params.rimm = head.params.rimm;
      push(e, std::move(br));
    }
    emit_region(l.body, &l);
    for (Unit& m : macros_[size_t(id)]) {
      const uint8_t e = m.trigger;
      isa::Instruction inc = control(isa::Opcode::reg_alu, e, loc);
      inc.params.rd = inc.params.rs0 = l.it_reg;
      inc.params.op0 = isa::AluOp::add;
      inc.params.rs1 = kNoReg;
      inc.params.rimm = 1;
      push(e, std::move(inc));
      isa::Instruction back = control(isa::Opcode::branch, e, loc);
      back.params.op0 = isa::AluOp::bypass;
      back.params.target = int32_t(top[e]);
      push(e, std::move(back));
      p_.streams[e][top[e]].params.target = int32_t(p_.streams[e].size());
      for (int s = kEngineStreams; s < num_streams_; ++s) {  // drain: this engine's DMAs of the loop
        if (!(l.dma_triggers[size_t(s)] >> e & 1) || l.k[size_t(s)] == 0) continue;
        isa::Instruction d = control(isa::Opcode::sem_wait_reg, e, loc);
        d.params.sem = uint16_t(l.sem[size_t(s)]);
        d.params.rs0 = l.it_reg;
        d.params.rmul = l.k[size_t(s)];
        d.params.rimm = 0;
        push(e, std::move(d));
      }
      if (m.signal >= 0) {
        isa::Instruction sig = control(isa::Opcode::sem_update, e, loc);
        sig.updates.push_back(isa::SemUpdate{uint16_t(m.signal), 1});
        push(e, std::move(sig));
      }
    }
  }

  const Kernel& k_;
  const std::vector<isa::Engine>& engines_;
  std::vector<isa::Instruction> instrs_;
  const isa::TargetDesc& t_;
  isa::Program& p_;
  deps::DmaQueues queues_;
  deps::Granules granules_;  // ir/deps.h MemoryGranules
  int num_streams_ = 0, next_sem_ = 0;
  uint32_t reg_engines_ = 0;
  uint8_t spare_triggers_ = 0;  // engines with no compute or register work: they may trigger DMAs (ir/deps.h)
  std::vector<isa::Instruction> pool_;
  std::deque<isa::AccessPattern> extra_aps_;  // footprints of dynamic-offset operands (stable addresses)
  std::vector<Loop> loops_;
  std::vector<std::vector<Unit>> macros_;
  Region top_;
};

}  // namespace

bool has_dynamic_control(const Kernel& k) {
  for (const Op& op : k.ops)
    if (op.ctl != Ctl::none || (isa::has_trait(op.opcode, isa::Trait::DMA) && op.params.ind_kind == 3) ||
        uses_dyn_register(op) || isa::has_trait(op.opcode, isa::Trait::REGISTER))
      return true;
  return false;
}

void emit_with_loops(const Kernel& k, const std::vector<isa::Engine>& engines, std::vector<isa::Instruction>&& instrs,
                     const isa::TargetDesc& t, isa::Program& p, deps::Granules granules) {
  LoopEmitter(k, engines, std::move(instrs), t, p, granules).run();
}

}  // namespace nkisim::ir
