# Optional GPU device backends. Each is a loadable module, libhetccl-device-<name>.so, placed
# next to libhetccl (build tree and install tree alike), where lib/device/backend_loader.cpp
# looks for it first. None is ever required: without nvcc or hipcc, hetccl builds with the host
# device only, and HETCCL_DEVICE=auto falls back to it at run time.
#
#   HETCCL_WITH_CUDA / HETCCL_WITH_HIP: AUTO (default: build if the compiler is found),
#     ON (fail if it is not), OFF (never).
#   CMAKE_CUDA_ARCHITECTURES (default 80;90), HETCCL_HIP_ARCHITECTURES (default gfx90a;gfx940).
#
# Included from lib/CMakeLists.txt after the hetccl target exists.

set(HETCCL_WITH_CUDA AUTO CACHE STRING "Build the CUDA device module (AUTO, ON, OFF)")
set_property(CACHE HETCCL_WITH_CUDA PROPERTY STRINGS AUTO ON OFF)
set(HETCCL_WITH_HIP AUTO CACHE STRING "Build the HIP device module (AUTO, ON, OFF)")
set_property(CACHE HETCCL_WITH_HIP PROPERTY STRINGS AUTO ON OFF)

# What every backend module links besides its runtime: the base layer (Status, element names,
# settings), the Device interface's defaults and the device choice; not taken from libhetccl,
# which exports only the C API.
function(hetccl_add_gpu_common)
  if(TARGET hetccl_gpu_common)
    return()
  endif()
  add_library(hetccl_gpu_common STATIC
    ${PROJECT_SOURCE_DIR}/lib/device/device.cpp
    ${PROJECT_SOURCE_DIR}/lib/device/gpu/device_index.cpp)
  set_target_properties(hetccl_gpu_common PROPERTIES
    POSITION_INDEPENDENT_CODE ON CXX_VISIBILITY_PRESET hidden)
  target_include_directories(hetccl_gpu_common PUBLIC ${PROJECT_SOURCE_DIR}/lib)
  target_link_libraries(hetccl_gpu_common PUBLIC hetccl_base)
  target_compile_options(hetccl_gpu_common PRIVATE ${HETCCL_WARNING_FLAGS})
endfunction()

# A backend module: exports only the factory (version script), resolves every symbol at link
# time, and lands in libhetccl's directory.
function(hetccl_add_device_module target)
  hetccl_add_gpu_common()
  add_library(${target} MODULE ${ARGN})
  target_link_libraries(${target} PRIVATE hetccl_gpu_common)
  set_target_properties(${target} PROPERTIES
    CXX_VISIBILITY_PRESET hidden
    VISIBILITY_INLINES_HIDDEN ON
    LIBRARY_OUTPUT_DIRECTORY $<TARGET_FILE_DIR:hetccl>
    LINK_DEPENDS ${PROJECT_SOURCE_DIR}/lib/device/backend_module.map)
  target_link_options(${target} PRIVATE
    "LINKER:--version-script=${PROJECT_SOURCE_DIR}/lib/device/backend_module.map"
    "LINKER:--no-undefined")
  install(TARGETS ${target} LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
endfunction()

# AUTO: build when found. Any true value (ON, YES, 1): required. Any false value: skipped.
function(hetccl_backend_wanted setting wanted required)
  set(${wanted} OFF PARENT_SCOPE)
  set(${required} OFF PARENT_SCOPE)
  if(${setting} STREQUAL "AUTO")
    set(${wanted} ON PARENT_SCOPE)
  elseif(${setting})
    set(${wanted} ON PARENT_SCOPE)
    set(${required} ON PARENT_SCOPE)
  endif()
endfunction()

# ---- CUDA ------------------------------------------------------------------------------------
set(HETCCL_HAVE_CUDA OFF)
hetccl_backend_wanted(HETCCL_WITH_CUDA want_cuda need_cuda)
if(want_cuda)
  # nvcc is usually not on PATH; the toolkit's standard places are worth a look.
  if(NOT CMAKE_CUDA_COMPILER AND NOT DEFINED ENV{CUDACXX})
    find_program(HETCCL_NVCC nvcc HINTS ENV CUDA_HOME ENV CUDA_PATH PATH_SUFFIXES bin
                 PATHS /usr/local/cuda/bin)
    if(HETCCL_NVCC)
      set(CMAKE_CUDA_COMPILER ${HETCCL_NVCC})
    endif()
  endif()
  include(CheckLanguage)
  check_language(CUDA)
  if(CMAKE_CUDA_COMPILER)
    # CMake's own default is the compiler's oldest target; hetccl aims at A100 and H100/H200
    # (PTX for 90 is embedded, so newer GPUs JIT it).
    if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES AND NOT DEFINED ENV{CUDAARCHS})
      set(CMAKE_CUDA_ARCHITECTURES "80;90" CACHE STRING "CUDA architectures to build for")
    endif()
    enable_language(CUDA)
    find_package(CUDAToolkit REQUIRED)
    set(HETCCL_HAVE_CUDA ON)
    add_subdirectory(${PROJECT_SOURCE_DIR}/lib/device/cuda ${PROJECT_BINARY_DIR}/lib/device/cuda)
  elseif(need_cuda)
    message(FATAL_ERROR "HETCCL_WITH_CUDA=ON but no CUDA compiler was found "
                        "(set CMAKE_CUDA_COMPILER or put nvcc on PATH)")
  endif()
endif()

# ---- HIP -------------------------------------------------------------------------------------
set(HETCCL_HAVE_HIP OFF)
hetccl_backend_wanted(HETCCL_WITH_HIP want_hip need_hip)
if(want_hip)
  find_program(HETCCL_HIPCC hipcc HINTS ENV ROCM_PATH ENV HIP_PATH PATH_SUFFIXES bin
               PATHS /opt/rocm/bin)
  find_path(HETCCL_HIP_INCLUDE_DIR hip/hip_runtime_api.h HINTS ENV ROCM_PATH ENV HIP_PATH
            PATH_SUFFIXES include PATHS /opt/rocm/include)
  find_library(HETCCL_AMDHIP64 amdhip64 HINTS ENV ROCM_PATH ENV HIP_PATH PATH_SUFFIXES lib
               PATHS /opt/rocm/lib)
  if(HETCCL_HIPCC AND HETCCL_HIP_INCLUDE_DIR AND HETCCL_AMDHIP64)
    set(HETCCL_HAVE_HIP ON)
    add_subdirectory(${PROJECT_SOURCE_DIR}/lib/device/hip ${PROJECT_BINARY_DIR}/lib/device/hip)
  elseif(need_hip)
    message(FATAL_ERROR "HETCCL_WITH_HIP=ON but hipcc, hip/hip_runtime_api.h or libamdhip64 "
                        "was not found (hipcc: ${HETCCL_HIPCC}, include: "
                        "${HETCCL_HIP_INCLUDE_DIR}, library: ${HETCCL_AMDHIP64})")
  endif()
endif()

message(STATUS "hetccl device backends: host (always), cuda ${HETCCL_HAVE_CUDA}, hip ${HETCCL_HAVE_HIP}")
