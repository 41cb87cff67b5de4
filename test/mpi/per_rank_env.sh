#!/bin/sh
# per_rank_env.sh RANKS VAR=value... -- COMMAND...: runs COMMAND (under mpirun, once per rank)
# with the VAR=value settings only on the ranks of MPI_COMM_WORLD listed in RANKS (comma
# separated), so that one test entry can give ranks different settings.
ranks=$1
shift
rank=${OMPI_COMM_WORLD_RANK:-${PMI_RANK:-${PMIX_RANK:-0}}}
while [ $# -gt 0 ] && [ "$1" != "--" ]; do
  case ",$ranks," in
    *",$rank,"*) export "$1" ;;
  esac
  shift
done
[ "$1" = "--" ] && shift
exec "$@"
