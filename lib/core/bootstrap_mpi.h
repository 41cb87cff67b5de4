// The bootstrap over MPI: a private duplicate of the caller's communicator (or a split of one)
// carries the creation's collectives, the control channel's notices and the plans' messages,
// so hetccl's traffic never matches the program's own.
#pragma once

#include <mpi.h>

#include "core/bootstrap.h"

namespace hetccl {

// This process's place in MPI_COMM_WORLD.
int mpiJobRank();
int mpiJobSize();
// InvalidUsage unless MPI is initialised and not finalised.
Status checkMpiRunning();

class MpiBootstrap : public Bootstrap {
 public:
  // Duplicates `userComm` (collective over it); errors come back as codes, not aborts.
  static Status duplicate(MPI_Comm userComm, std::unique_ptr<Bootstrap>* bootstrap);
  // The members of a unique id's communicator, given their MPI_COMM_WORLD ranks in rank order:
  // a communicator of their own made from the job channel (core/rendezvous_mpi.h) with
  // MPI_Comm_create_group, which only they call.
  static Status createGroup(const std::vector<int>& jobRanks, int tag, std::unique_ptr<Bootstrap>* bootstrap);
  ~MpiBootstrap() override;  // frees the private communicator

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  int jobRank() const override;
  int jobSize() const override;
  std::string describe() const override { return "MPI"; }
  Status allGather(const void* mine, size_t bytes, void* all) override;
  Status startAllGather(const void* mine, size_t bytes, void* all, std::unique_ptr<PendingExchange>* pending) override;
  Status broadcast(void* data, size_t bytes, int root) override;
  Status barrier() override;
  Status split(int color, int key, std::unique_ptr<Bootstrap>* part) override;
  Status send(const void* data, size_t bytes, int peer) override;
  Status recv(void* data, size_t bytes, int peer) override;
  double seconds() const override { return MPI_Wtime(); }
  std::string nodeName() const override;
  std::unique_ptr<Transport> makeWire(size_t maxMessageBytes) override;
  const char* wireName() const override { return "mpi"; }
  bool wireReadsDeviceMemory(const std::string& deviceKind) override;
  std::unique_ptr<NoticeWire> makeNoticeWire() override;
  bool allowsConcurrentCalls(std::string* level) const override;

 private:
  explicit MpiBootstrap(MPI_Comm owned);
  MPI_Comm comm_;
  int rank_ = 0, size_ = 1;
};

}  // namespace hetccl
