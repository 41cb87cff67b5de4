// A question hetccl's NCCL drop-in asks of the libhetccl it runs on: is this call into it made by
// hetccl itself, handing an island's steps to its island library?  Then the caller waits for
// its streams itself, as it waits for NCCL's on a GPU, and the drop-in need not complete the
// operation before returning on a host device (nccl/host_completion.h) -- which would keep
// the island steps from overlapping the cross-island exchange (algorithms/island_slices.h).
// Exported from libhetccl (its hetccl* names leave it), but not public API: not in hetccl.h.
#pragma once

#ifdef __cplusplus
extern "C" {
#endif

// 1 while the calling thread is inside a vendor library call made by hetccl, else 0.
int hetcclInternalCallerIsHetccl(void);

#ifdef __cplusplus
}
#endif
