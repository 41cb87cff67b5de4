// Where a plan's buffers are, indexed by BufferId (input, output, scratch, then a point-to-
// point group's user buffers).  The first four are kept in place: a collective has three, and
// a std::vector's allocation and free on every small call were a visible part of its cost.
// A point-to-point group's further buffers go to a vector.
#pragma once

#include <array>
#include <cstddef>
#include <initializer_list>
#include <vector>

namespace hetccl {

class PlanBuffers {
 public:
  PlanBuffers() = default;
  PlanBuffers(std::initializer_list<char*> buffers) {
    for (char* buffer : buffers) push_back(buffer);
  }
  PlanBuffers(size_t count, char* value) { assign(count, value); }

  void assign(size_t count, char* value) {
    size_ = 0;
    rest_.clear();
    for (size_t i = 0; i < count; ++i) push_back(value);
  }
  void push_back(char* buffer) {
    if (size_ < kInPlace)
      first_[size_] = buffer;
    else
      rest_.push_back(buffer);
    ++size_;
  }
  size_t size() const { return size_; }
  char*& operator[](size_t i) { return i < kInPlace ? first_[i] : rest_[i - kInPlace]; }
  char* operator[](size_t i) const { return i < kInPlace ? first_[i] : rest_[i - kInPlace]; }

 private:
  static constexpr size_t kInPlace = 4;
  std::array<char*, kInPlace> first_{};
  std::vector<char*> rest_;  // buffers kInPlace and on
  size_t size_ = 0;
};

}  // namespace hetccl
