// What the thread-per-rank tests of whole communicators share beside the job itself
// (core/thread_job.h): settings for one scope, and device buffers to and from host vectors.
#pragma once

#include <cstdlib>
#include <string>
#include <vector>

#include "core/thread_job.h"
#include "hetccl/hetccl.h"

namespace hetccl {

// A HETCCL_* variable set for one scope, as a job's environment would set it (the settings are
// read at each creation).  Set and restored while no rank thread runs.
class ScopedSetting {
 public:
  ScopedSetting(const char* name, const std::string& value);
  ~ScopedSetting();
  ScopedSetting(const ScopedSetting&) = delete;
  ScopedSetting& operator=(const ScopedSetting&) = delete;

 private:
  std::string name_;
  bool hadValue_ = false;
  std::string oldValue_;
};

// `count` int32 values on the device from `values`, and back.
std::string toDevice(const std::vector<int>& values, void** device);
std::string fromDevice(const void* device, size_t count, std::vector<int>* values);

}  // namespace hetccl
