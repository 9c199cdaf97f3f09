// small_vec.h - a vector with inline storage for the first N elements (call arguments in the hot path).
#pragma once
#include <cstddef>
#include <new>
#include <utility>

namespace nkisim::frontend {

template <class T, size_t N>
class SmallVec {
 public:
  SmallVec() = default;
  SmallVec(const SmallVec&) = delete;
  SmallVec& operator=(const SmallVec&) = delete;
  ~SmallVec() {
    for (size_t i = 0; i < size_; ++i) data_[i].~T();
    if (data_ != inline_ptr()) ::operator delete(data_);
  }
  void push_back(T v) {
    if (size_ == cap_) grow();
    new (data_ + size_) T(std::move(v));
    ++size_;
  }
  template <class... A>
  T& emplace_back(A&&... a) {
    if (size_ == cap_) grow();
    new (data_ + size_) T(std::forward<A>(a)...);
    return data_[size_++];
  }
  T* data() { return data_; }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  T& operator[](size_t i) { return data_[i]; }
  T* begin() { return data_; }
  T* end() { return data_ + size_; }

 private:
  T* inline_ptr() { return reinterpret_cast<T*>(buf_); }
  void grow() {
    size_t ncap = cap_ * 2;
    T* nd = static_cast<T*>(::operator new(ncap * sizeof(T)));
    for (size_t i = 0; i < size_; ++i) {
      new (nd + i) T(std::move(data_[i]));
      data_[i].~T();
    }
    if (data_ != inline_ptr()) ::operator delete(data_);
    data_ = nd;
    cap_ = ncap;
  }
  alignas(T) unsigned char buf_[N * sizeof(T)];
  T* data_ = reinterpret_cast<T*>(buf_);
  size_t size_ = 0;
  size_t cap_ = N;
};

}  // namespace nkisim::frontend
