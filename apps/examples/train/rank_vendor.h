// Which vendor this rank's GPU is, so --split can give a faster vendor more samples.
//
// The public API does not report it, and an application usually knows anyway (it was built
// for, or launched on, a CUDA or a ROCm node).  So: --vendor NAME when given (a real mixed job
// launches one program per vendor, `mpirun -np 2 hetccl-train --vendor nvidia : -np 2
// hetccl-train --vendor amd`), else the emulated layout HETCCL_EMULATE_VENDORS that hetccl
// itself uses on one machine (same `name[:count],...` grammar, in MPI_COMM_WORLD rank order),
// else "unknown".
#pragma once

#include <mpi.h>

#include <string>
#include <vector>

namespace hetccl_train {

// This rank's vendor, or "" with *error set when HETCCL_EMULATE_VENDORS cannot be read.
std::string thisRankVendor(const std::string& override, std::string* error);

// Every rank's vendor, in rank order of `comm` (collective).
std::vector<std::string> allVendors(const std::string& mine, MPI_Comm comm);

}  // namespace hetccl_train
