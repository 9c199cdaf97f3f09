// operand_slots.h - ir::OperandSlots (ir::Op::operands, ir/kernel.h): an op's operand views by instruction-table slot, the first four inline and
// the rest (only dma_compute, range_select and select_reduce have more) in a block allocated when first written.
// An op is then ~800 bytes instead of ~1 KB: a big kernel's ops are that much less fresh memory to fault in and
// to stream through each pass (docs/dev/performance-log.md, "Session 12, compile phase").
#pragma once
#include <array>
#include <cstddef>
#include <memory>
#include <optional>

#include "isa/instruction.h"

namespace nkisim::ir {

// V: ir::View (a template only so that this header need not come after View's definition).
template <class V>
class OperandSlots {
 public:
  static constexpr size_t kInline = 4;
  static constexpr size_t kSlots = isa::kMaxOperands;
  static_assert(kSlots > kInline);

  OperandSlots() = default;
  OperandSlots(const OperandSlots& o)
      : inline_(o.inline_), extra_(o.extra_ ? std::make_unique<Extra>(*o.extra_) : nullptr) {}
  OperandSlots(OperandSlots&&) noexcept = default;
  OperandSlots& operator=(const OperandSlots& o) {
    if (this != &o) {
      inline_ = o.inline_;
      extra_ = o.extra_ ? std::make_unique<Extra>(*o.extra_) : nullptr;
    }
    return *this;
  }
  OperandSlots& operator=(OperandSlots&&) noexcept = default;

  static constexpr size_t size() { return kSlots; }
  // Slot s (< kSlots); writing a slot past the inline ones allocates their block.
  std::optional<V>& operator[](size_t s) {
    if (s < kInline) return inline_[s];
    if (!extra_) extra_ = std::make_unique<Extra>();
    return (*extra_)[s - kInline];
  }
  const std::optional<V>& operator[](size_t s) const {
    if (s < kInline) return inline_[s];
    static const std::optional<V> none;
    return extra_ ? (*extra_)[s - kInline] : none;
  }

  // Iteration visits the slots that have storage: every slot may be absent, so callers test each (`if (v)`).
  template <class Owner, class Slot>
  class Iter {
   public:
    Iter(Owner* o, size_t i) : o_(o), i_(i) {}
    Slot& operator*() const { return i_ < kInline ? o_->inline_[i_] : (*o_->extra_)[i_ - kInline]; }
    Iter& operator++() {
      ++i_;
      return *this;
    }
    bool operator!=(const Iter& b) const { return i_ != b.i_; }
    bool operator==(const Iter& b) const { return i_ == b.i_; }

   private:
    Owner* o_;
    size_t i_;
  };
  using iterator = Iter<OperandSlots, std::optional<V>>;
  using const_iterator = Iter<const OperandSlots, const std::optional<V>>;
  iterator begin() { return {this, 0}; }
  iterator end() { return {this, extra_ ? kSlots : kInline}; }
  const_iterator begin() const { return {this, 0}; }
  const_iterator end() const { return {this, extra_ ? kSlots : kInline}; }

 private:
  using Extra = std::array<std::optional<V>, kSlots - kInline>;
  std::array<std::optional<V>, kInline> inline_{};
  std::unique_ptr<Extra> extra_;
};

}  // namespace nkisim::ir
