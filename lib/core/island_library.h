// Vendor libraries inside islands.  Each island whose every member can open its vendor's
// collectives library (NCCL on CUDA islands, RCCL on HIP islands; HETCCL_ISLAND_LIBRARY
// chooses) gets a communicator of that library over the island: the unique id is made on the
// island's first member and broadcast over the island's MPI sub-communicator.  Then
//   - plans with island-collective steps (hierarchical and torus all-reduce) hand those steps
//     to it (IslandCollectives), while hetccl moves and reduces what crosses islands;
//   - a communicator that is one island hands whole collectives and point-to-point groups to
//     it (the "native" path): the vendor call is made on the caller's stream, with nothing
//     copied, staged or synchronised in between.
// An island whose library is missing (RCCL is not in Debian) or refuses to make the island's
// communicator runs hetccl's own island algorithms, with a warning; islands decide this
// together, and every rank learns every island's outcome, so that plans agree.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "base/status.h"
#include "core/bootstrap.h"
#include "device/vendor/vendor_library.h"
#include "runtime/island_collectives.h"

namespace hetccl {

struct CollectiveCall;
struct PointToPointCall;
struct JobTopology;
struct Settings;
class IslandLibrary;

// Who takes part in deciding the islands' libraries.
struct IslandLibraryParticipants {
  Bootstrap* members = nullptr;  // the communicator's
  const JobTopology* topology = nullptr;
  Device* device = nullptr;
};

// What the islands decided together.
struct IslandLibraryDecision {
  std::unique_ptr<IslandLibrary> library;  // this rank's island communicator, or null
  std::vector<bool> islandHasLibrary;      // per island: its collective steps go to its library
};

class IslandLibrary : public IslandCollectives {
 public:
  // Collective over the communicator, after topology discovery.  decision->library stays null
  // when this rank's island runs without one.
  static Status connect(const IslandLibraryParticipants& who, const Settings& settings,
                        IslandLibraryDecision* decision);
  ~IslandLibrary() override;

  // Frees the vendor communicator (NCCL's abort when `abort`).
  void close(bool abort);
  std::string shortName() const { return library_->shortName(); }
  // An error the vendor library met after a call had returned (the native path's calls
  // return once enqueued), or ok.
  Status asyncError() { return vendorComm_ ? library_->asyncError(vendorComm_) : Status::ok(); }
  std::string describe() const { return library_->describe(); }

  Status enqueue(const Op& op, const void* src, void* dst, ElementType type, ReduceOp reduction,
                 StreamHandle stream) override;

  // The native path (for a communicator that is this one island): whether the vendor library
  // can take this call as it is, and the call itself.
  bool takesWhole(const CollectiveCall& call, bool inPlace) const;
  Status runWhole(const CollectiveCall& call);
  Status runPointToPoint(const std::vector<PointToPointCall>& calls);

 private:
  IslandLibrary(std::unique_ptr<VendorLibrary> library, Device& device, int islandRank, int islandSize);
  // The unique id made on the island's first member, broadcast over the island, then the
  // vendor's initialisation.  Collective over the island.
  static Status createVendorCommunicator(Device& device, Bootstrap& island, std::unique_ptr<VendorLibrary> library,
                                         std::unique_ptr<IslandLibrary>* created);

  std::unique_ptr<VendorLibrary> library_;
  Device& device_;
  VendorComm vendorComm_ = nullptr;
  int islandRank_ = 0;
  int islandSize_ = 1;
};

}  // namespace hetccl
