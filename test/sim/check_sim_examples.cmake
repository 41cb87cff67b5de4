# Runs hetccl-sim on the example clusters and a generated 4096-rank cluster (cmake -P).
# Inputs: SIM (the program), EXAMPLES (folder of *.cluster), WORK_DIR, LARGE_RUN_SECONDS.

# The library's settings would change the picks; the test wants the tuner's own.
foreach(variable HETCCL_ALGO HETCCL_CHUNK_BYTES HETCCL_PIPELINE_DEPTH HETCCL_ISLAND_SCOPE)
  unset(ENV{${variable}})
endforeach()

# Runs the sim on `file` within `seconds`, expects exit 0 and `rows` table rows, each naming a
# pick (an algorithm and a chunk size after the per-algorithm columns).
function(check_sweep file rows seconds)
  execute_process(COMMAND ${SIM} ${file} RESULT_VARIABLE status OUTPUT_VARIABLE output ERROR_VARIABLE errors
                  TIMEOUT ${seconds})
  if(NOT status STREQUAL "0")
    message(FATAL_ERROR "hetccl-sim ${file}: exit '${status}' (limit ${seconds} s)\n${errors}")
  endif()
  string(REGEX REPLACE "\n$" "" output "${output}")
  string(REPLACE ";" "," output "${output}")  # header lines hold semicolons: not list separators
  string(REPLACE "\n" ";" lines "${output}")
  set(count 0)
  foreach(line IN LISTS lines)
    if(line MATCHES "^#")
      continue()
    endif()
    # ... pick chunk time busbw bound time/bound (a pick is any algorithm's name: the table's)
    if(NOT line MATCHES " [a-z][a-z0-9-]* +[0-9]+[KMG]? +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+$")
      message(FATAL_ERROR "hetccl-sim ${file}: row without a pick: '${line}'")
    endif()
    math(EXPR count "${count} + 1")
  endforeach()
  if(NOT count EQUAL rows)
    message(FATAL_ERROR "hetccl-sim ${file}: ${count} rows, expected ${rows}\n${output}")
  endif()
  message(STATUS "${file}: ${count} sizes, each with a pick")
endfunction()

# The default sweep is 1K..1G by 4: 11 sizes.
foreach(example v100-w7800 nvidia-amd-48 h100-mi300x test-cluster-4n)
  check_sweep(${EXAMPLES}/${example}.cluster 11 60)
endforeach()

set(large ${WORK_DIR}/large-4096.cluster)
file(WRITE ${large}
  "# 256 nodes x 8 + 256 nodes x 8 = 4096 ranks\n"
  "island nvidia nodes=256 ranks_per_node=8 intra=450GB/s:2us\n"
  "island amd nodes=256 ranks_per_node=8 intra=64GB/s:3us\n"
  "link inter 50GB/s:5us\n")
check_sweep(${large} 11 ${LARGE_RUN_SECONDS})

# A broken description: exit 2 and the line at fault.
set(broken ${WORK_DIR}/broken.cluster)
file(WRITE ${broken} "island a nodes=1 ranks_per_node=2 intra=1GB/s:1us\nlink inter 1GB/s\n")
execute_process(COMMAND ${SIM} ${broken} RESULT_VARIABLE status OUTPUT_QUIET ERROR_VARIABLE errors TIMEOUT 60)
if(NOT status STREQUAL "2" OR NOT errors MATCHES "line 2: ")
  message(FATAL_ERROR "hetccl-sim on a broken file: exit '${status}', message '${errors}' (expected 2 and line 2)")
endif()
