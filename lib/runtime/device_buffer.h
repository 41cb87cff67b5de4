// Device memory that is kept between operations and grows when one needs more: the
// executor's landing space for received chunks, the communicator's plan scratch.  Growing
// frees the old allocation before making the larger one (the contents are not kept; callers
// size the buffer before each operation), so the peak is one allocation, not two.
#pragma once

#include <cstddef>

#include "base/status.h"
#include "device/device.h"

namespace hetccl {

class DeviceBuffer {
 public:
  explicit DeviceBuffer(Device& device) : device_(device) {}
  ~DeviceBuffer();
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  // Makes the buffer at least `bytes` long.  On failure it is left empty.
  Status ensure(size_t bytes);
  char* data() const { return data_; }
  size_t bytes() const { return bytes_; }

 private:
  Device& device_;
  char* data_ = nullptr;
  size_t bytes_ = 0;
};

}  // namespace hetccl
