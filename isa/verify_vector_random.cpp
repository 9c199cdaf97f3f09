// verify_vector_random.cpp - rules of rng, rand2, dropout, set_rng_seed, rand_set_state, rand_get_state
// (executors: sim/exec_vector_random.cpp).
#include <sstream>

#include "isa/verify_rules.h"

namespace nkisim::isa::rules {

namespace {
constexpr uint64_t kStateWords = 6;  // x0..x4, d per XORWOW generator
// The executing engine's generators per lane: VectorE 4, GpSimd 1.
uint64_t generators(const Check& c) { return c.ins.engine == Engine::GpSimd ? 1 : 4; }

// rand_set_state / rand_get_state: one lane's whole generator state per partition, as 32-bit integers.
void state_operand(const Check& c) {
  if (c.ins.engine != Engine::GpSimd && c.nc() < 4)
    c.fail("the VectorE generator state is only accessible on trn3 (use engine=gpsimd)");
  if (c.ins.engine == Engine::GpSimd && c.mem(0) != Memory::SBUF)
    c.fail("the GpSimd state tile must be in SBUF, not " + std::string(memory_name(c.mem(0))), 0);
  c.free_is(0, generators(c) * kStateWords);
  if (dtype_size(c.dtype(0)) != 4 || is_float(c.dtype(0)))
    c.fail("the state must be uint32 (or int32), got " + dt(c.dtype(0)), 0);
}
}  // namespace

void verify_rng(const Check& c) {
  if (c.ins.engine == Engine::GpSimd && c.nc() < 3)
    c.fail("the GpSimd engine has no random number generator on " + c.t.name + " (trn2 and later)");
  if (c.ins.engine == Engine::GpSimd && c.mem(0) != Memory::SBUF)
    c.fail("the GpSimd engine writes SBUF only, not " + std::string(memory_name(c.mem(0))), 0);
  c.integer(0, "(random bits)");
}

void verify_rand2(const Check& c) {
  c.columns({1, 2});
}

void verify_dropout(const Check& c) {
  c.same_shape(0, 1);
  if (c.dtype(0) != c.dtype(1))
    c.fail(std::string(c.name(0)) + " must have " + c.name(1) + "'s dtype " + dt(c.dtype(1)) + ", got " + dt(c.dtype(0)), 0);
  if (!c.has(2) && !(c.pr.imm0 >= 0.0f && c.pr.imm0 <= 1.0f)) {
    std::ostringstream os;
    os << "prob must be in [0, 1], got " << c.pr.imm0;
    c.fail(os.str());
  }
  c.columns({2});
}

void verify_set_rng_seed(const Check& c) {
  if (c.parts(0) != 1 || c.free(0) != 1)
    c.fail("src must be a [1, 1] tile, got " + std::to_string(c.parts(0)) + " partitions x " + std::to_string(c.free(0)) +
               " elements",
           0);
  if (dtype_size(c.dtype(0)) != 4) c.fail("src must hold a 32-bit value, got " + dt(c.dtype(0)), 0);
}

void verify_rand_set_state(const Check& c) { state_operand(c); }
void verify_rand_get_state(const Check& c) { state_operand(c); }

}  // namespace nkisim::isa::rules
