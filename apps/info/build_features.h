// What this build of hetccl has: device backends, the hwloc it was compiled against (and the
// one it runs with: they can differ when a cluster's module system swaps libraries), the MPI
// library underneath and hetccl's own version.
#pragma once

#include <string>

namespace hetccl_info {

struct BuildFeatures {
  std::string hetcclVersion;  // "0.1.0"
  bool cudaBackend = false;
  bool hipBackend = false;
  std::string hwlocApiVersion;  // compiled against (HWLOC_API_VERSION), "2.8.0"
  std::string hwlocRuntimeApiVersion;
  std::string mpiStandardVersion;  // "3.1"
  std::string mpiLibraryVersion;   // MPI_Get_library_version's first line
};

// Needs MPI initialised.
BuildFeatures detectBuildFeatures();

}  // namespace hetccl_info
