// inline_vec.h - InlineVec<T, N>: a vector with fixed capacity N stored inline (no heap), for view dims.
// The std::vector subset the IR uses (size, [], iteration, push_back, insert, erase, resize, assign).
// Growing past N throws nkisim::Error. Trivially copyable when T is.
#pragma once
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <string>

#include "isa/diagnostic.h"

namespace nkisim::ir {

template <class T, size_t N>
class InlineVec {
  static_assert(N < 256);

 public:
  using value_type = T;
  using iterator = T*;
  using const_iterator = const T*;
  using size_type = size_t;

  InlineVec() = default;
  explicit InlineVec(size_t n, const T& v = T()) { assign(n, v); }
  InlineVec(std::initializer_list<T> il) { assign(il.begin(), il.end()); }
  template <class It>
  InlineVec(It first, It last) {
    assign(first, last);
  }

  size_t size() const { return n_; }
  bool empty() const { return n_ == 0; }
  static constexpr size_t capacity() { return N; }
  T* data() { return data_; }
  const T* data() const { return data_; }
  T& operator[](size_t i) { return data_[i]; }
  const T& operator[](size_t i) const { return data_[i]; }
  T& front() { return data_[0]; }
  const T& front() const { return data_[0]; }
  T& back() { return data_[n_ - 1]; }
  const T& back() const { return data_[n_ - 1]; }
  T* begin() { return data_; }
  T* end() { return data_ + n_; }
  const T* begin() const { return data_; }
  const T* end() const { return data_ + n_; }

  void reserve(size_t n) { check(n); }
  void clear() { n_ = 0; }
  void push_back(const T& v) {
    check(size_t(n_) + 1);
    data_[n_++] = v;
  }
  void pop_back() { --n_; }
  void resize(size_t n, const T& v = T()) {
    check(n);
    for (size_t i = n_; i < n; ++i) data_[i] = v;
    n_ = uint8_t(n);
  }
  void assign(size_t n, const T& v) {
    check(n);
    std::fill(data_, data_ + n, v);
    n_ = uint8_t(n);
  }
  template <class It>
  void assign(It first, It last) {
    n_ = 0;
    for (; first != last; ++first) push_back(*first);
  }
  T* insert(const T* pos, const T& v) {
    size_t at = size_t(pos - data_);
    check(size_t(n_) + 1);
    std::copy_backward(data_ + at, data_ + n_, data_ + n_ + 1);
    data_[at] = v;
    ++n_;
    return data_ + at;
  }
  template <class It>
  T* insert(const T* pos, It first, It last) {
    size_t at = size_t(pos - data_);
    InlineVec tail(data_ + at, data_ + n_);
    n_ = uint8_t(at);
    for (; first != last; ++first) push_back(*first);
    for (const T& t : tail) push_back(t);
    return data_ + at;
  }
  T* erase(const T* pos) {
    size_t at = size_t(pos - data_);
    std::copy(data_ + at + 1, data_ + n_, data_ + at);
    --n_;
    return data_ + at;
  }
  T* erase(const T* first, const T* last) {
    size_t a = size_t(first - data_), b = size_t(last - data_);
    std::copy(data_ + b, data_ + n_, data_ + a);
    n_ = uint8_t(n_ - (b - a));
    return data_ + a;
  }
  bool operator==(const InlineVec& o) const { return std::equal(begin(), end(), o.begin(), o.end()); }

 private:
  static void check(size_t n) {
    if (n > N) throw Error("a tensor view has at most " + std::to_string(N) + " dimensions (" + std::to_string(n) + " needed)");
  }
  T data_[N]{};
  uint8_t n_ = 0;
};

}  // namespace nkisim::ir
