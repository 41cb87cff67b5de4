#include "device/backend_loader.h"

#include <dlfcn.h>

#include <string>
#include <vector>

#include "device/backend_module.h"

namespace hetccl {
namespace {

// Lower-case letters, digits, '-' and '_': the name becomes part of a file name, never a path.
bool isValidBackendName(const std::string& name) {
  if (name.empty() || name.size() > 32) return false;
  for (char c : name)
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_')) return false;
  return true;
}

// The directory of the object that contains this function: libhetccl.so, or the executable
// when the library's objects are linked in statically (the unit tests).
std::string directoryOfThisLibrary() {
  Dl_info info;
  if (dladdr(reinterpret_cast<void*>(&loadDeviceBackend), &info) == 0 || info.dli_fname == nullptr) return "";
  const std::string path = info.dli_fname;
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? "" : path.substr(0, slash);
}

std::string lastDlError() {
  const char* error = dlerror();
  return error ? error : "unknown error";
}

}  // namespace

Status loadDeviceBackend(const char* name, std::unique_ptr<Device>* device) {
  if (device == nullptr) return HETCCL_STATUS(Code::InvalidArgument, "loadDeviceBackend: null output pointer");
  const std::string backend = name ? name : "";
  if (!isValidBackendName(backend))
    return HETCCL_STATUS(Code::InvalidArgument, "device backend name '%s' is not a valid name", backend.c_str());
  const std::string file = "libhetccl-device-" + backend + ".so";

  std::vector<std::string> candidates;
  const std::string directory = directoryOfThisLibrary();
  if (!directory.empty()) candidates.push_back(directory + "/" + file);
  candidates.push_back(file);  // no slash: the loader's default search

  // RTLD_NOW: an unresolved symbol (a missing runtime library) fails here, with dlerror's
  // message, rather than at the first call.
  void* handle = nullptr;
  std::string attempts;
  for (const std::string& candidate : candidates) {
    handle = dlopen(candidate.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle != nullptr) break;
    attempts += (attempts.empty() ? "" : "; ") + lastDlError();
  }
  if (handle == nullptr)
    return HETCCL_STATUS(Code::SystemError, "cannot load the %s device module %s: %s", backend.c_str(), file.c_str(),
                         attempts.c_str());

  dlerror();  // clear, so that a null symbol is told apart from an error
  auto factory = reinterpret_cast<HetcclCreateDeviceFunction>(dlsym(handle, HETCCL_DEVICE_FACTORY_NAME));
  if (factory == nullptr) {
    const std::string reason = lastDlError();
    dlclose(handle);
    return HETCCL_STATUS(Code::SystemError,
                         "the %s device module %s has no %s (a module of another hetccl "
                         "version?): %s",
                         backend.c_str(), file.c_str(), HETCCL_DEVICE_FACTORY_NAME, reason.c_str());
  }

  char reason[1024] = "";
  Device* created = factory(reason, sizeof reason);
  if (created == nullptr) {
    // The module stays loaded: unloading a GPU runtime that has started is not safe everywhere,
    // and a failed module costs only its mapping.
    return HETCCL_STATUS(Code::DeviceError, "the %s device module found no usable device: %s", backend.c_str(),
                         reason[0] ? reason : "no reason given");
  }
  // Never dlclose'd: the device's code lives in the module.
  device->reset(created);
  return Status::ok();
}

}  // namespace hetccl
