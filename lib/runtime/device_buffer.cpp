#include "runtime/device_buffer.h"

namespace hetccl {

DeviceBuffer::~DeviceBuffer() {
  if (data_) (void)device_.release(data_);
}

Status DeviceBuffer::ensure(size_t bytes) {
  if (bytes <= bytes_) return Status::ok();
  char* old = data_;
  data_ = nullptr;
  bytes_ = 0;
  if (old) HETCCL_TRY(device_.release(old));
  void* memory = nullptr;
  HETCCL_TRY(device_.allocate(&memory, bytes));
  data_ = static_cast<char*>(memory);
  bytes_ = bytes;
  return Status::ok();
}

}  // namespace hetccl
