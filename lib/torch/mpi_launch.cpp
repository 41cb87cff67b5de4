#include "mpi_launch.h"

#include <cstdio>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "client/mpi_startup.h"

namespace hetccl_torch {
namespace {

[[noreturn]] void launchError(const std::string& message) { throw std::runtime_error("hetccl: " + message); }

std::vector<uint8_t> bytesOf(const std::string& text) { return std::vector<uint8_t>(text.begin(), text.end()); }

}  // namespace

void mpiWorld(int* rank, int* size) {
  // MPI_THREAD_MULTIPLE: hetccl's progress threads then run operations while Python goes on.
  std::string why;
  if (!hetccl_client::mpiUsable(hetccl_client::startMpiIfNeeded(&why))) launchError(why);
  MPI_Comm_rank(MPI_COMM_WORLD, rank);
  MPI_Comm_size(MPI_COMM_WORLD, size);
}

MPI_Comm groupCommunicator(c10d::Store& store, int groupRank, int groupSize) {
  int worldRank = 0, worldSize = 1;
  mpiWorld(&worldRank, &worldSize);
  const std::string launch =
      "hetccl communicates over MPI, so every rank must be a process of one MPI job: launch with "
      "mpirun or srun --mpi=pmix";
  if (groupSize > worldSize)
    launchError("torch.distributed has " + std::to_string(groupSize) + " ranks in this group but MPI_COMM_WORLD has " +
                std::to_string(worldSize) + " process" + (worldSize == 1 ? "" : "es") + ": " + launch);
  store.set("hetccl/world_rank/" + std::to_string(groupRank),
            bytesOf(std::to_string(worldRank) + " " + std::to_string(worldSize)));
  std::vector<int> members(groupSize);
  std::set<int> seen;
  for (int r = 0; r < groupSize; ++r) {
    const std::vector<uint8_t> value = store.get("hetccl/world_rank/" + std::to_string(r));
    const std::string text(value.begin(), value.end());
    int memberRank = -1, memberWorldSize = -1;
    if (std::sscanf(text.c_str(), "%d %d", &memberRank, &memberWorldSize) != 2)
      launchError("the store holds \"" + text + "\" for group rank " + std::to_string(r) + ", not an MPI rank");
    if (memberWorldSize != worldSize || !seen.insert(memberRank).second)
      launchError("group ranks do not map to distinct ranks of one MPI_COMM_WORLD (group rank " + std::to_string(r) +
                  " is MPI rank " + std::to_string(memberRank) + " of " + std::to_string(memberWorldSize) +
                  ", this process MPI rank " + std::to_string(worldRank) + " of " + std::to_string(worldSize) +
                  "): " + launch);
    members[r] = memberRank;
  }
  MPI_Group world = MPI_GROUP_NULL, group = MPI_GROUP_NULL;
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  MPI_Group_incl(world, groupSize, members.data(), &group);
  MPI_Comm comm = MPI_COMM_NULL;
  // Collective over the members only; torch creates groups in the same order on every member.
  const int code = MPI_Comm_create_group(MPI_COMM_WORLD, group, 0, &comm);
  MPI_Group_free(&group);
  MPI_Group_free(&world);
  if (code != MPI_SUCCESS || comm == MPI_COMM_NULL) launchError("MPI_Comm_create_group failed");
  int rankInComm = -1;
  MPI_Comm_rank(comm, &rankInComm);
  if (rankInComm != groupRank) {
    MPI_Comm_free(&comm);
    launchError("internal: the MPI communicator's rank " + std::to_string(rankInComm) + " is not the group rank " +
                std::to_string(groupRank));
  }
  return comm;
}

}  // namespace hetccl_torch
