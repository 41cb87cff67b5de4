#include "info/build_features.h"

#include <hwloc.h>
#include <mpi.h>

#include <hetccl/hetccl.h>

namespace hetccl_info {

namespace {

// hwloc writes API versions as 0x00MMmmrr: major, minor, revision.
std::string hwlocVersionText(unsigned version) {
  return std::to_string((version >> 16) & 0xff) + "." + std::to_string((version >> 8) & 0xff) + "." +
         std::to_string(version & 0xff);
}

std::string hetcclVersionText() {
  int code = 0;
  if (hetcclGetVersion(&code) != hetcclSuccess) return "?";
  return std::to_string(code / 10000) + "." + std::to_string(code / 100 % 100) + "." + std::to_string(code % 100);
}

// Open MPI's string runs over several comma-separated fields and MPICH's over many lines;
// the first line names the library and its version, which is what a bug report needs.
std::string mpiLibraryFirstLine() {
  char text[MPI_MAX_LIBRARY_VERSION_STRING] = {};
  int length = 0;
  if (MPI_Get_library_version(text, &length) != MPI_SUCCESS) return "?";
  std::string line(text, static_cast<size_t>(length));
  line = line.substr(0, line.find('\n'));
  while (!line.empty() && (line.back() == ' ' || line.back() == '\0' || line.back() == '\r')) line.pop_back();
  return line;
}

}  // namespace

BuildFeatures detectBuildFeatures() {
  BuildFeatures f;
  f.hetcclVersion = hetcclVersionText();
  // No GPU backend module is built yet (lib/device has the host backend only); these become
  // real answers when the CUDA and HIP modules land.
  f.cudaBackend = false;
  f.hipBackend = false;
  f.hwlocApiVersion = hwlocVersionText(HWLOC_API_VERSION);
  f.hwlocRuntimeApiVersion = hwlocVersionText(hwloc_get_api_version());
  int major = 0, minor = 0;
  MPI_Get_version(&major, &minor);
  f.mpiStandardVersion = std::to_string(major) + "." + std::to_string(minor);
  f.mpiLibraryVersion = mpiLibraryFirstLine();
  return f;
}

}  // namespace hetccl_info
