// Communicators made by their members from a unique id: hetcclJobInit, hetcclGetUniqueId,
// hetcclCommInitRank (the rendezvous itself: core/rendezvous_mpi.h).
#include <cstddef>

#include "core/api_support.h"
#include "core/bootstrap_mpi.h"
#include "core/rendezvous_mpi.h"
#include "core/unique_id.h"

using hetccl::Code;
using hetccl::report;
using hetccl::Status;

namespace {

// config.blocking, in a config whose size reaches the field (an older header's has none):
// *nonBlocking for 0; undefined or 1 blocks; anything else is refused.
Status readBlocking(const hetcclConfig_t* config, bool* nonBlocking) {
  *nonBlocking = false;
  if (!config || config->size < offsetof(hetcclConfig_t, blocking) + sizeof config->blocking) return Status::ok();
  if (config->blocking != 0 && config->blocking != 1 && config->blocking != HETCCL_CONFIG_UNDEF_INT)
    return HETCCL_STATUS(Code::InvalidArgument, "config.blocking=%d: expected 0 or 1", config->blocking);
  *nonBlocking = config->blocking == 0;
  return Status::ok();
}

// The members of `id` found, and their communicator of MPI made.
Status connectMembers(const hetccl::UniqueIdContents& id, int nranks, int rank, double timeoutSeconds,
                      const std::function<bool()>& stopped, std::unique_ptr<hetccl::Bootstrap>* members) {
  std::vector<int> jobRanks;
  HETCCL_TRY(hetccl::meetMembers(id, nranks, rank, stopped, timeoutSeconds, &jobRanks));
  return hetccl::MpiBootstrap::createGroup(jobRanks, hetccl::creationTag(id), members);
}

}  // namespace

extern "C" {

hetcclResult_t hetcclJobInit(void) {
  return hetccl::atBoundary(
      __func__, [&]() -> hetcclResult_t { return report(nullptr, hetccl::ensureJobChannel("hetcclJobInit")); });
}

hetcclResult_t hetcclGetUniqueId(hetcclUniqueId* uniqueId) {
  return hetccl::atBoundary(__func__, [&]() -> hetcclResult_t {
    if (!uniqueId) return report(nullptr, HETCCL_STATUS(Code::InvalidArgument, "uniqueId is NULL"));
    // The maker's rank is all the id needs; the job channel is needed only by the creation
    // (hetcclCommInitRank), which every member calls -- where a channel still missing is then
    // made (an island library's members are all in their creation at once, its maker alone
    // here).
    if (Status running = hetccl::checkMpiRunning(); !running.isOk()) return report(nullptr, running);
    *uniqueId = hetccl::makeUniqueId(hetccl::mpiJobRank(), hetccl::mpiJobSize());
    return hetcclSuccess;
  });
}

hetcclResult_t hetcclCommInitRank(hetcclComm_t* comm, int nranks, hetcclUniqueId uniqueId, int rank,
                                  const hetcclConfig_t* config) {
  return hetccl::atBoundary(__func__, [&]() -> hetcclResult_t {
    if (!comm) return report(nullptr, HETCCL_STATUS(Code::InvalidArgument, "comm (the output pointer) is NULL"));
    *comm = nullptr;
    if (nranks < 1) return report(nullptr, HETCCL_STATUS(Code::InvalidArgument, "nranks %d is not positive", nranks));
    if (rank < 0 || rank >= nranks)
      return report(nullptr, HETCCL_STATUS(Code::InvalidArgument, "rank %d is outside 0..%d", rank, nranks - 1));
    hetccl::UniqueIdContents id;
    if (Status read = hetccl::readUniqueId(uniqueId, &id); !read.isOk()) return report(nullptr, read);
    hetccl::Settings settings;
    if (Status loaded = hetccl::loadSettings(config, &settings); !loaded.isOk()) return report(nullptr, loaded);
    bool nonBlocking = false;
    if (Status read = readBlocking(config, &nonBlocking); !read.isOk()) return report(nullptr, read);
    if (Status ready = hetccl::ensureJobChannel(__func__); !ready.isOk()) return report(nullptr, ready);
    if (nranks > hetccl::mpiJobSize())
      return report(nullptr, HETCCL_STATUS(Code::InvalidUsage,
                                           "nranks %d is more than the %d process(es) of this MPI job: every rank must "
                                           "be a process of one MPI job (start it with mpirun -np N or srun -n N; a "
                                           "launcher that is not MPI's, such as torchrun, makes each process a job "
                                           "of its own)",
                                           nranks, hetccl::mpiJobSize()));
    const double timeout = settings.timeoutSeconds;
    if (nonBlocking) {
      auto connect = [id, nranks, rank, timeout](const std::function<bool()>& stopped,
                                                 std::unique_ptr<hetccl::Bootstrap>* members) {
        return connectMembers(id, nranks, rank, timeout, stopped, members);
      };
      if (Status started = hetccl::startCreation(connect, settings, rank, nranks, comm); !started.isOk())
        return report(nullptr, started);
      return hetcclInProgress;
    }
    std::unique_ptr<hetccl::Bootstrap> members;
    Status status = connectMembers(id, nranks, rank, timeout, nullptr, &members);
    if (status.isOk()) status = hetccl::createCommunicator(std::move(members), settings, comm);
    return report(nullptr, status);
  });
}

}  // extern "C"
