// The algorithms, one row each: the only list of them.  Everything that iterates algorithms
// reads it: the names (HETCCL_ALGO, hetccl-perf --algo, logs), the table of descriptors
// (algorithm.h: which collectives and layouts each applies to, its tuner role and its writer)
// and through the table the tuner, the cost model, hetccl-sim and the tests.  A new algorithm
// is its file (a writer: algorithm_writer.h) and a row here.
//
// A row is a macro call rather than an entry of an array because its two users link apart:
// the names (hetccl_algorithm_names) go into tools that must not link the algorithms' code,
// so they expand the row's id and name only; algorithm.cpp expands the whole row.  Rows are in
// the order the tools list the algorithms.  This file has no include guard: each user defines
// HETCCL_ALGORITHM, includes it, and undefines the macro.
//
// HETCCL_ALGORITHM(id, name, collectives, layouts, role, writer)
//   id           the Algorithm enumerator
//   name         its name in HETCCL_ALGO, hetccl-perf --algo and hetccl-sim's columns
//   collectives  a CollectiveSet (algorithm.h): kEveryCollective, kAllReduceOnly, ... or, in
//                parentheses, (collectivesOf(Collective::AllReduce, Collective::Broadcast))
//   layouts      AlgorithmLayouts: AnyIslands, EqualIslands or OneIsland
//   role         AlgorithmRole: Flat, IslandAware or IslandLibrary (how the tuner uses it)
//   writer       the AlgorithmWriter its file defines

// clang-format off
HETCCL_ALGORITHM(Ring,                   "ring",        kEveryCollective,  AnyIslands,   Flat,          kRingWriter)
HETCCL_ALGORITHM(Hierarchical,           "hier",        kHierCollectives,  AnyIslands,   IslandAware,   kHierWriter)
HETCCL_ALGORITHM(Torus,                  "torus",       kAllReduceOnly,    EqualIslands, IslandAware,   kTorusWriter)
HETCCL_ALGORITHM(HierarchicalHalving,    "hier-rhd",    kAllReduceOnly,    AnyIslands,   IslandAware,   kHierRhdWriter)
HETCCL_ALGORITHM(HierarchicalTree,       "hier-tree",   kAllReduceOnly,    AnyIslands,   IslandAware,   kHierTreeWriter)
HETCCL_ALGORITHM(HierarchicalDoubleTree, "hier-dbtree", kAllReduceOnly,    AnyIslands,   IslandAware,   kHierDbtreeWriter)
HETCCL_ALGORITHM(Small,                  "small",       kSmallCollectives, AnyIslands,   Flat,          kSmallWriter)
HETCCL_ALGORITHM(Native,                 "native",      kEveryCollective,  OneIsland,    IslandLibrary, kNativeWriter)
// clang-format on
