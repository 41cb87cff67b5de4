// hetccl-info: what hetccl sees of a job and what it will do with it.  Creates a
// communicator over MPI_COMM_WORLD (so it runs exactly the discovery a real job runs: hwloc,
// the descriptor exchange, islands, emulation, link parameters, settings) and prints on rank
// 0 every rank's placement, the islands, the transport per link class, the build and the
// effective settings; with --json the same as one JSON document.
// Exit status: 0 printed, 1 the communicator could not be created (a bad HETCCL_* setting,
// such as HETCCL_ALGO=torus on unequal islands; the message says why), 2 bad command line.
#include <mpi.h>

#include <cstdio>
#include <string>
#include <vector>

#include <hetccl/hetccl.h>

#include "common/command_line.h"
#include "core/communicator_description.h"
#include "info/build_features.h"
#include "info/info_format.h"
#include "info/info_report.h"

namespace {

constexpr int kExitOk = 0;
constexpr int kExitFailed = 1;
constexpr int kExitUsage = 2;

const std::vector<hetccl_apps::Flag>& infoFlags() {
  static const std::vector<hetccl_apps::Flag> flags{
      {hetccl_apps::kLongOnlyKey, "json", nullptr, "print one JSON document instead of text"},
      {'h', "help", nullptr, "this text"},
  };
  return flags;
}

std::string usage() {
  return "usage: hetccl-info [--json]\n"
         "  Run under mpirun like the job it describes (same ranks, same HETCCL_* environment).\n" +
         hetccl_apps::describeFlags(infoFlags());
}

enum class Output { Text, Json, Help, BadArgument };

// *why says what is wrong with a BadArgument.
Output parseArguments(int argc, const char* const* argv, std::string* why) {
  std::vector<hetccl_apps::Argument> arguments;
  if (!hetccl_apps::parseCommandLine(argc, argv, infoFlags(), &arguments, why)) return Output::BadArgument;
  Output output = Output::Text;
  for (const hetccl_apps::Argument& argument : arguments) {
    if (argument.key == 'h') return Output::Help;
    if (argument.key == hetccl_apps::Argument::kOperand) {
      *why = "unknown argument '" + argument.value + "'";
      return Output::BadArgument;
    }
    output = Output::Json;  // --json, the only other flag
  }
  return output;
}

// Ranks normally fail together (they share the settings and the topology); agreeing anyway
// keeps a rank that succeeded from waiting in a collective its failed peers never join.
// The lowest failing rank says why.  True when every rank has a communicator.
bool createCommunicator(int rank, int nranks, hetcclComm_t* comm) {
  const hetcclResult_t result = hetcclCommInitMPI(comm, MPI_COMM_WORLD, nullptr);
  int candidate = result == hetcclSuccess ? nranks : rank;
  int lowestFailing = nranks;
  MPI_Allreduce(&candidate, &lowestFailing, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (lowestFailing == nranks) return true;
  if (rank == lowestFailing)
    std::fprintf(stderr, "hetccl-info: rank %d: cannot create a communicator: %s: %s\n", rank,
                 hetcclGetErrorString(result), hetcclGetLastError(nullptr));
  if (*comm != nullptr) (void)hetcclCommAbort(*comm);
  *comm = nullptr;
  return false;
}

}  // namespace

int main(int argc, char** argv) {
  // MPI_THREAD_MULTIPLE: hetccl's progress threads call MPI while this thread may too;
  // with less, hetccl runs every operation on the calling thread.
  int threadLevel = MPI_THREAD_SINGLE;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &threadLevel);
  int rank = 0, nranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);

  std::string why;
  const Output output = parseArguments(argc, argv, &why);
  int status = kExitOk;
  hetcclComm_t comm = nullptr;
  if (output == Output::Help) {
    if (rank == 0) std::fputs(usage().c_str(), stdout);
  } else if (output == Output::BadArgument) {
    if (rank == 0) std::fprintf(stderr, "hetccl-info: %s\n%s", why.c_str(), usage().c_str());
    status = kExitUsage;
  } else if (!createCommunicator(rank, nranks, &comm)) {
    status = kExitFailed;
  } else {
    // Every rank's description is already in each communicator's topology: rank 0 alone
    // reports, with no further communication.
    hetccl::CommunicatorDescription description;
    if (rank == 0 && !hetccl::describeCommunicator(comm, &description).isOk()) {
      status = kExitFailed;
    } else if (rank == 0) {
      const hetccl_info::InfoReport report = hetccl_info::collectInfo(description, hetccl_info::detectBuildFeatures());
      const std::string text =
          output == Output::Json ? hetccl_info::formatJson(report) : hetccl_info::formatText(report);
      std::fputs(text.c_str(), stdout);
      std::fflush(stdout);
    }
    if (hetcclCommDestroy(comm) != hetcclSuccess) status = kExitFailed;
  }
  MPI_Finalize();
  return status;
}
