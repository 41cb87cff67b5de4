#include "thread_communicators.h"

namespace hetccl {

ScopedSetting::ScopedSetting(const char* name, const std::string& value) : name_(name) {
  if (const char* old = std::getenv(name)) {
    hadValue_ = true;
    oldValue_ = old;
  }
  setenv(name, value.c_str(), 1);
}

ScopedSetting::~ScopedSetting() {
  if (hadValue_)
    setenv(name_.c_str(), oldValue_.c_str(), 1);
  else
    unsetenv(name_.c_str());
}

std::string toDevice(const std::vector<int>& values, void** device) {
  const size_t bytes = values.size() * sizeof(int);
  if (hetcclMemAlloc(device, bytes) != hetcclSuccess)
    return std::string("hetcclMemAlloc: ") + hetcclGetLastError(nullptr);
  if (hetcclMemcpyToDevice(*device, values.data(), bytes) != hetcclSuccess)
    return std::string("hetcclMemcpyToDevice: ") + hetcclGetLastError(nullptr);
  return "";
}

std::string fromDevice(const void* device, size_t count, std::vector<int>* values) {
  values->assign(count, 0);
  if (hetcclMemcpyFromDevice(values->data(), device, count * sizeof(int)) != hetcclSuccess)
    return std::string("hetcclMemcpyFromDevice: ") + hetcclGetLastError(nullptr);
  return "";
}

}  // namespace hetccl
