// Whole communicators -- creation, dispatch, the progress engine, groups, the call check,
// abort, split -- on threads of this process, one per rank, made over the in-process
// bootstrap (core/bootstrap_threads.h): the public API as a program calls it, without mpirun
// or MPI_Init, so ThreadSanitizer sees every thread hetccl starts.
#pragma once

#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include "hetccl/hetccl.h"

namespace hetccl {

// One rank thread's: its communicator and a stream of its own (the ranks share the process's
// device, whose default stream would order one rank's operations behind another's, and
// deadlock them as it would two NCCL communicators on one stream).
struct ThreadRank {
  int rank = 0;
  hetcclComm_t comm = nullptr;  // a body that destroys or aborts it sets it to null
  hetcclStream_t stream = nullptr;
};

// Runs `body` on `nranks` threads, each with its own communicator of the job (made with
// `config`), and destroys the communicators the bodies leave.  Returns "" when creation and
// every body succeeded, else what failed, rank by rank.
std::string runOnCommunicators(int nranks, const hetcclConfig_t* config,
                               const std::function<std::string(ThreadRank& self)>& body);

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
