// Communicator life through the NCCL API: creation from a unique id (hetcclCommInitRank, by
// the members only; MPI's start: mpi_bootstrap.h), destruction, queries and the buffer
// registration calls.
#include <cstring>

#include <mpi.h>

#include "nccl/mpi_bootstrap.h"
#include "nccl/shim_support.h"

using namespace hetccl_nccl;

namespace {

constexpr unsigned int kNcclConfigMagic = 0xcafebeef;  // what NCCL_CONFIG_INITIALIZER sets

static_assert(sizeof(ncclUniqueId) == sizeof(hetcclUniqueId), "an ncclUniqueId carries a hetcclUniqueId");

// Of NCCL's config only `blocking` means something to hetccl (its creation and its calls are
// its own, not NCCL's CTAs or network plugins); the structure must come from
// NCCL_CONFIG_INITIALIZER, as NCCL checks.
ncclResult_t checkConfig(const char* function, const ncclConfig_t* config) {
  if (config && config->magic != kNcclConfigMagic)
    return fail(ncclInvalidArgument, function, "config was not initialised with NCCL_CONFIG_INITIALIZER (magic 0x%x)",
                config->magic);
  return ncclSuccess;
}

// ncclSuccess for a live communicator, else hetccl's refusal (NULL, destroyed, foreign): the
// calls that have nothing of hetccl's to forward still answer misuse as NCCL would.
ncclResult_t checkLive(ncclComm_t comm) {
  int count = 0;
  return forward(hetcclCommCount(toHetccl(comm), &count), toHetccl(comm));
}

// Every entry that creates a communicator from ids.  `id` NULL means the caller had none.
ncclResult_t initRank(const char* function, ncclComm_t* comm, int nranks, const ncclUniqueId* id, int rank,
                      const ncclConfig_t* config) {
  if (comm) *comm = nullptr;
  if (!comm) return fail(ncclInvalidArgument, function, "comm (the output pointer) is NULL");
  if (!id) return fail(ncclInvalidArgument, function, "no unique id given");
  if (ncclResult_t bad = checkConfig(function, config); bad != ncclSuccess) return bad;
  if (ncclResult_t started = ensureMpiInitialised(function); started != ncclSuccess) return started;
  hetcclConfig_t settings = HETCCL_CONFIG_INITIALIZER;
  if (config && config->blocking != NCCL_CONFIG_UNDEF_INT) settings.blocking = config->blocking;
  hetcclUniqueId hetcclId;
  std::memcpy(&hetcclId, id, sizeof hetcclId);
  hetcclComm_t created = nullptr;
  const hetcclResult_t result = hetcclCommInitRank(&created, nranks, hetcclId, rank, &settings);
  *comm = toNccl(created);
  // ncclInProgress is not a failure: the communicator is being made (NCCL's non-blocking mode).
  if (result == hetcclInProgress) return ncclInProgress;
  return forward(result, nullptr);
}

}  // namespace

extern "C" {

ncclResult_t ncclCommInitRank(ncclComm_t* comm, int nranks, ncclUniqueId commId, int rank) {
  return initRank("ncclCommInitRank", comm, nranks, &commId, rank, nullptr);
}
HETCCL_NCCL_PROFILING_ALIAS(ncclCommInitRank);

ncclResult_t ncclCommInitRankConfig(ncclComm_t* comm, int nranks, ncclUniqueId commId, int rank, ncclConfig_t* config) {
  return initRank("ncclCommInitRankConfig", comm, nranks, &commId, rank, config);
}
HETCCL_NCCL_PROFILING_ALIAS(ncclCommInitRankConfig);

// NCCL spreads its bootstrap over nId roots; here one id is enough, and every rank holds the
// same array, so the first id identifies the communicator.
ncclResult_t ncclCommInitRankScalable(ncclComm_t* newcomm, int nranks, int myrank, int nId, ncclUniqueId* commIds,
                                      ncclConfig_t* config) {
  const ncclUniqueId* first = (nId >= 1 && commIds) ? &commIds[0] : nullptr;
  return initRank("ncclCommInitRankScalable", newcomm, nranks, first, myrank, config);
}
HETCCL_NCCL_PROFILING_ALIAS(ncclCommInitRankScalable);

// Needs no communicator: the id names this process as the members' meeting point.
ncclResult_t ncclGetUniqueId(ncclUniqueId* uniqueId) {
  const char* function = "ncclGetUniqueId";
  if (!uniqueId) return fail(ncclInvalidArgument, function, "uniqueId is NULL");
  if (ncclResult_t started = ensureMpiInitialised(function); started != ncclSuccess) return started;
  hetcclUniqueId id;
  const ncclResult_t result = forward(hetcclGetUniqueId(&id), nullptr);
  if (result == ncclSuccess) std::memcpy(uniqueId, &id, sizeof id);
  return result;
}
HETCCL_NCCL_PROFILING_ALIAS(ncclGetUniqueId);

// NCCL's single-process form drives several devices from one process; hetccl drives one device
// per process, so only ndev == 1 (a communicator of this process alone) is possible.  devlist
// is ignored: hetccl chooses the process's device itself (HETCCL_DEVICE, HETCCL_DEVICE_ID).
ncclResult_t ncclCommInitAll(ncclComm_t* comms, int ndev, const int* devlist) {
  const char* function = "ncclCommInitAll";
  if (!comms) return fail(ncclInvalidArgument, function, "comms is NULL");
  if (ndev < 1) return fail(ncclInvalidArgument, function, "ndev %d is not positive", ndev);
  if (ndev > 1)
    return unsupported(function,
                       "one process drives one device, so ncclCommInitAll takes ndev = 1 only; "
                       "run one process per device (mpirun, srun) and create the communicator "
                       "with ncclGetUniqueId and ncclCommInitRank");
  comms[0] = nullptr;
  ncclResult_t result = ensureMpiInitialised(function);
  if (result != ncclSuccess) return result;
  hetcclComm_t created = nullptr;
  result = forward(hetcclCommInitMPI(&created, MPI_COMM_SELF, nullptr), nullptr);
  if (result == ncclSuccess) comms[0] = toNccl(created);
  return result;
}
HETCCL_NCCL_PROFILING_ALIAS(ncclCommInitAll);

// NCCL_SPLIT_NOCOLOR and HETCCL_SPLIT_NOCOLOR are both -1.  With a config, hetccl reads none of
// NCCL's fields, so the child is configured as a NULL config would: like its parent.
ncclResult_t ncclCommSplit(ncclComm_t comm, int color, int key, ncclComm_t* newcomm, ncclConfig_t* config) {
  static_assert(NCCL_SPLIT_NOCOLOR == HETCCL_SPLIT_NOCOLOR, "NCCL's no-colour value differs from hetccl's");
  if (newcomm) *newcomm = nullptr;
  ncclResult_t configProblem = checkConfig("ncclCommSplit", config);
  hetcclComm_t created = nullptr;
  // An invalid config still takes part (as no colour), so that the other ranks do not wait.
  const int joinedColor = configProblem == ncclSuccess ? color : HETCCL_SPLIT_NOCOLOR;
  ncclResult_t result =
      forward(hetcclCommSplit(toHetccl(comm), joinedColor, key, newcomm ? &created : nullptr, nullptr), toHetccl(comm));
  if (configProblem != ncclSuccess) return configProblem;
  if (result == ncclSuccess && newcomm) *newcomm = toNccl(created);
  return result;
}
HETCCL_NCCL_PROFILING_ALIAS(ncclCommSplit);

// Every operation has completed when its call returns (hetccl's stream semantics), so there is
// nothing left to flush; what remains is to report a communicator that has failed.
ncclResult_t ncclCommFinalize(ncclComm_t comm) {
  hetcclResult_t asyncError = hetcclSuccess;
  ncclResult_t result = forward(hetcclCommGetAsyncError(toHetccl(comm), &asyncError), toHetccl(comm));
  if (result != ncclSuccess) return result;
  return forward(asyncError, toHetccl(comm));
}
HETCCL_NCCL_PROFILING_ALIAS(ncclCommFinalize);

ncclResult_t ncclCommDestroy(ncclComm_t comm) { return forward(hetcclCommDestroy(toHetccl(comm)), nullptr); }
HETCCL_NCCL_PROFILING_ALIAS(ncclCommDestroy);

ncclResult_t ncclCommAbort(ncclComm_t comm) { return forward(hetcclCommAbort(toHetccl(comm)), nullptr); }
HETCCL_NCCL_PROFILING_ALIAS(ncclCommAbort);

ncclResult_t ncclCommCount(const ncclComm_t comm, int* count) {
  return forward(hetcclCommCount(toHetccl(comm), count), toHetccl(comm));
}
HETCCL_NCCL_PROFILING_ALIAS(ncclCommCount);

ncclResult_t ncclCommUserRank(const ncclComm_t comm, int* rank) {
  return forward(hetcclCommUserRank(toHetccl(comm), rank), toHetccl(comm));
}
HETCCL_NCCL_PROFILING_ALIAS(ncclCommUserRank);

ncclResult_t ncclCommGetAsyncError(ncclComm_t comm, ncclResult_t* asyncError) {
  if (!asyncError) return fail(ncclInvalidArgument, "ncclCommGetAsyncError", "asyncError is NULL");
  hetcclResult_t error = hetcclSuccess;
  ncclResult_t result = forward(hetcclCommGetAsyncError(toHetccl(comm), &error), toHetccl(comm));
  if (result == ncclSuccess) *asyncError = toNcclResult(error);
  return result;
}
HETCCL_NCCL_PROFILING_ALIAS(ncclCommGetAsyncError);

// Registration only speeds NCCL up (zero-copy, NVLS); hetccl needs none, so registering hands
// back the buffer as its handle and deregistering does nothing.  The communicator is checked
// all the same, so misuse is reported as NCCL would.
ncclResult_t ncclCommRegister(const ncclComm_t comm, void* buff, size_t size, void** handle) {
  if (ncclResult_t dead = checkLive(comm)) return dead;
  if (!handle) return fail(ncclInvalidArgument, "ncclCommRegister", "handle is NULL");
  *handle = buff;
  return ncclSuccess;
}
HETCCL_NCCL_PROFILING_ALIAS(ncclCommRegister);

ncclResult_t ncclCommDeregister(const ncclComm_t comm, void* handle) { return checkLive(comm); }
HETCCL_NCCL_PROFILING_ALIAS(ncclCommDeregister);

// Windows let NCCL's symmetric kernels reach peers' buffers directly; hetccl's plans need
// none, so a window is accepted as registration is, and the handle is the buffer itself.
ncclResult_t ncclCommWindowRegister(ncclComm_t comm, void* buff, size_t size, ncclWindow_t* win, int winFlags) {
  if (win) *win = nullptr;
  if (ncclResult_t dead = checkLive(comm)) return dead;
  if (!win) return fail(ncclInvalidArgument, "ncclCommWindowRegister", "win is NULL");
  *win = reinterpret_cast<ncclWindow_t>(buff);
  return ncclSuccess;
}
HETCCL_NCCL_PROFILING_ALIAS(ncclCommWindowRegister);

ncclResult_t ncclCommWindowDeregister(ncclComm_t comm, ncclWindow_t win) { return checkLive(comm); }
HETCCL_NCCL_PROFILING_ALIAS(ncclCommWindowDeregister);

// The index of the device hetccl chose for this process (HETCCL_DEVICE_ID, else the local
// rank); 0 on the host device.  Frameworks ask it to check their own choice.
ncclResult_t ncclCommCuDevice(const ncclComm_t comm, int* device) {
  if (ncclResult_t dead = checkLive(comm)) return dead;
  if (!device) return fail(ncclInvalidArgument, "ncclCommCuDevice", "device is NULL");
  return forward(hetcclGetDeviceIndex(device), toHetccl(comm));
}
HETCCL_NCCL_PROFILING_ALIAS(ncclCommCuDevice);

}  // extern "C"
