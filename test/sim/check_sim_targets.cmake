# The scale targets of hetccl-sim's predictions (issue 14), as the tuner picks (cmake -P):
# within 1.25x of the all-reduce's `phases` figure (island, cross-island and reduce phases
# added: the yardstick the targets were set against, printed as the bound until the sim had a
# true lower bound; docs/SIM.md, "The bound") from 256 MiB up on the 16-, 48- and 768-rank
# example clusters, within 2x at 1 GiB and 3x at 1 MiB on the 98,304-rank one.
# Inputs: SIM (the program), EXAMPLES (folder of *.cluster).

foreach(variable HETCCL_ALGO HETCCL_CHUNK_BYTES HETCCL_PIPELINE_DEPTH HETCCL_ISLAND_SCOPE)
  unset(ENV{${variable}})
endforeach()

# Fails unless every size from `min` to `max` (factor 4) has pick time / phases <= `limit`.
function(check_target example min max limit)
  execute_process(COMMAND ${SIM} ${EXAMPLES}/${example}.cluster -b ${min} -e ${max} -f 4 --json
                  RESULT_VARIABLE status OUTPUT_VARIABLE json ERROR_VARIABLE errors TIMEOUT 120)
  if(NOT status STREQUAL "0")
    message(FATAL_ERROR "hetccl-sim ${example}: exit '${status}'\n${errors}")
  endif()
  string(JSON rows LENGTH "${json}" results)
  math(EXPR last "${rows} - 1")
  foreach(i RANGE ${last})
    string(JSON size GET "${json}" results ${i} size)
    string(JSON algorithm GET "${json}" results ${i} pick algorithm)
    string(JSON time GET "${json}" results ${i} pick time_us)
    string(JSON phases GET "${json}" results ${i} bound phases_us)
    # CMake has integer arithmetic only: compare time x 100 with phases x limit x 100.
    string(REGEX REPLACE "\\..*" "" time_whole "${time}")
    string(REGEX REPLACE "\\..*" "" phases_whole "${phases}")
    math(EXPR allowed "${phases_whole} * ${limit} / 100")
    if(time_whole GREATER allowed)
      message(FATAL_ERROR "${example} at ${size} B: ${algorithm} ${time} us, phases ${phases} us: "
                          "more than ${limit}/100 of the phases")
    endif()
    message(STATUS "${example} at ${size} B: ${algorithm} ${time} us, phases ${phases} us (limit x${limit}/100)")
  endforeach()
endfunction()

foreach(example v100-w7800 nvidia-amd-48 h100-mi300x)
  check_target(${example} 256M 1G 125)
endforeach()
check_target(nvidia-amd-98304 1G 1G 200)
check_target(nvidia-amd-98304 1M 1M 300)
