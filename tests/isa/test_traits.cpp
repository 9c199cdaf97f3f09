// test_traits.cpp - the TRAITS items of the instruction table (isa::Trait, has_trait) and their invariants.
#include <doctest/doctest.h>

#include "isa/instruction.h"

using namespace nkisim::isa;

TEST_CASE("traits: what kind of instruction each row is") {
  CHECK(has_trait(Opcode::dma_copy, Trait::DMA));
  CHECK(has_trait(Opcode::dma_transpose, Trait::DMA));
  CHECK(has_trait(Opcode::dma_compute, Trait::DMA));
  CHECK_FALSE(has_trait(Opcode::tensor_copy, Trait::DMA));
  CHECK(traits(Opcode::tensor_tensor) == uint16_t(uint16_t(Trait::REORDER) | uint16_t(Trait::REUSE)));
  // tensor_scalar_reduce: movable, its accumulator command keeps it in order with its engine's others
  // (ir/list_schedule.cpp); act_read_accumulator reads the accumulators whatever its reduce_cmd.
  CHECK(traits(Opcode::tensor_scalar_reduce) == uint16_t(Trait::REORDER));
  CHECK(traits(Opcode::act_read_accumulator) == uint16_t(uint16_t(Trait::REORDER) | uint16_t(Trait::ACCUMULATOR)));
  CHECK(has_trait(Opcode::tensor_copy, Trait::ANY_ENGINE));
  CHECK_FALSE(has_trait(Opcode::memset, Trait::ANY_ENGINE));
  CHECK(has_trait(Opcode::exponential, Trait::REORDER));
  CHECK_FALSE(has_trait(Opcode::exponential, Trait::REUSE));
  CHECK(traits(Opcode::reg_set) == uint16_t(uint16_t(Trait::SEQUENCER) | uint16_t(Trait::REGISTER) |
                                            uint16_t(Trait::REG_WRITE)));
  CHECK(has_trait(Opcode::reg_store, Trait::REGISTER));
  CHECK_FALSE(has_trait(Opcode::reg_store, Trait::REG_WRITE));
  CHECK(has_trait(Opcode::branch, Trait::SEQUENCER));
  CHECK_FALSE(has_trait(Opcode::branch, Trait::REGISTER));
  CHECK(has_trait(Opcode::sendrecv, Trait::CROSS_CORE));
  CHECK(has_trait(Opcode::core_barrier, Trait::CROSS_CORE));
  CHECK(has_trait(Opcode::core_barrier, Trait::SEQUENCER));
  CHECK(has_trait(Opcode::load_stationary_mx, Trait::PE_LOAD));
  CHECK(has_trait(Opcode::multiply_moving_mx, Trait::PE_MOVE));
  CHECK(has_trait(Opcode::nc_transpose_pe, Trait::PE_ARRAY));
  CHECK(has_trait(Opcode::device_print, Trait::CONTROL));
  CHECK_FALSE(has_trait(Opcode::device_print, Trait::SEQUENCER));
}

TEST_CASE("traits: invariants over the whole table") {
  const uint16_t pe = uint16_t(Trait::PE_LOAD) | uint16_t(Trait::PE_MOVE) | uint16_t(Trait::PE_ARRAY);
  for (int i = 0; i < kNumOpcodes; ++i) {
    const Opcode op = Opcode(i);
    const InstrInfo& in = info(op);
    CAPTURE(in.mnemonic);
    const uint16_t t = traits(op);
    // A DMA is exactly a row of the DMA cost class; registers are sequencer instructions.
    CHECK(has_trait(op, Trait::DMA) == (in.cost == CostClass::dma));
    if (has_trait(op, Trait::REG_WRITE)) CHECK(has_trait(op, Trait::REGISTER));
    if (has_trait(op, Trait::REGISTER) || has_trait(op, Trait::CROSS_CORE)) CHECK(has_trait(op, Trait::SEQUENCER));
    // A sequencer or control instruction does no data-path work; a DMA is neither.
    if (has_trait(op, Trait::CONTROL)) CHECK_FALSE(has_trait(op, Trait::SEQUENCER));
    if (has_trait(op, Trait::DMA)) CHECK((t & (uint16_t(Trait::SEQUENCER) | uint16_t(Trait::CONTROL))) == 0);
    // The Tensor Engine's data-path rows have exactly one PE role; nothing else has one.
    const bool tensor_datapath = in.engines == E_T;
    CHECK(((t & pe) != 0) == tensor_datapath);
    if (t & pe) CHECK(((t & pe) & ((t & pe) - 1)) == 0);
    // What recomputation removal may drop, the reorder pass may move; neither touches the control flow.
    if (has_trait(op, Trait::REUSE)) CHECK(has_trait(op, Trait::REORDER));
    if (has_trait(op, Trait::REORDER)) CHECK((t & (uint16_t(Trait::SEQUENCER) | uint16_t(Trait::CONTROL))) == 0);
  }
}

TEST_CASE("is_fp8: the PE array's 8-bit floats") {
  CHECK(is_fp8(DType::float8_e4m3));
  CHECK(is_fp8(DType::float8_e5m2));
  CHECK(is_fp8(DType::float8_e4m3fn));
  CHECK_FALSE(is_fp8(DType::float8_e8m0fnu));
  CHECK_FALSE(is_fp8(DType::bfloat16));
}
