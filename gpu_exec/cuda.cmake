# gpu_exec/cuda.cmake: the cuda executor, optional. Included by the top CMakeLists.txt
# after gpusched_core is defined.
#
# SIM_CUDA = AUTO (default: build it when nvcc is found), ON (nvcc required) or OFF.
# nvcc is looked for in CMAKE_CUDA_COMPILER, $ENV{CUDACXX}, PATH, /usr/local/cuda/bin.
# CMake's CUDA language is not used (CMake 3.25 may not identify CUDA 13): nvcc only
# builds gpu_exec/workload.cu into a fatbin, embed.cmake turns it into C, and the
# host side (exec_cuda.c) is plain C that dlopens the driver: no GPU, driver or
# cudart is needed to build or to link. Without nvcc, exec_nocuda.c says so at run time.
set(SIM_CUDA AUTO CACHE STRING "Build the cuda executor: AUTO (when nvcc is found), ON or OFF")
set_property(CACHE SIM_CUDA PROPERTY STRINGS AUTO ON OFF)
string(TOUPPER "${SIM_CUDA}" _gx_mode)
if(NOT _gx_mode STREQUAL "AUTO")
  if(SIM_CUDA)
    set(_gx_mode ON)
  else()
    set(_gx_mode OFF)
  endif()
endif()

set(_gx_nvcc "")
if(NOT _gx_mode STREQUAL "OFF")
  if(CMAKE_CUDA_COMPILER AND EXISTS "${CMAKE_CUDA_COMPILER}")
    set(_gx_nvcc "${CMAKE_CUDA_COMPILER}")
  elseif(DEFINED ENV{CUDACXX} AND EXISTS "$ENV{CUDACXX}")
    set(_gx_nvcc "$ENV{CUDACXX}")
  else()
    find_program(SIM_NVCC_EXECUTABLE nvcc PATHS /usr/local/cuda/bin)
    if(SIM_NVCC_EXECUTABLE)
      set(_gx_nvcc "${SIM_NVCC_EXECUTABLE}")
    endif()
  endif()
  # cuda.h sits next to nvcc (../include); a distribution nvcc in /usr/bin has it in /usr/include.
  if(_gx_nvcc)
    get_filename_component(_gx_nvcc_dir "${_gx_nvcc}" DIRECTORY)
    get_filename_component(_gx_cuda_root "${_gx_nvcc_dir}" DIRECTORY)
    find_path(SIM_CUDA_INCLUDE_DIR cuda.h
              HINTS "${_gx_cuda_root}/include" NO_DEFAULT_PATH)
    if(NOT SIM_CUDA_INCLUDE_DIR)
      find_path(SIM_CUDA_INCLUDE_DIR cuda.h PATHS /usr/local/cuda/include)
    endif()
    if(NOT SIM_CUDA_INCLUDE_DIR)
      message(STATUS "gpusched: ${_gx_nvcc} found but no cuda.h next to it")
      set(_gx_nvcc "")
    endif()
  endif()
  if(NOT _gx_nvcc AND _gx_mode STREQUAL "ON")
    message(FATAL_ERROR "gpusched: SIM_CUDA=ON but no usable nvcc (looked in CMAKE_CUDA_COMPILER, "
                        "CUDACXX, PATH and /usr/local/cuda/bin) or no cuda.h next to it")
  endif()
endif()

if(_gx_nvcc)
  execute_process(COMMAND "${_gx_nvcc}" --version OUTPUT_VARIABLE _gx_nvcc_out ERROR_QUIET)
  string(REGEX MATCH "release ([0-9]+\\.[0-9]+)" _gx_match "${_gx_nvcc_out}")
  set(_gx_nvcc_version "${CMAKE_MATCH_1}")
  if(NOT _gx_nvcc_version)
    set(_gx_nvcc_version "(unknown version)")
  endif()
  # Device code for A100-class (sm_80) and H100/H200 (sm_90) cards, plus compute_90
  # PTX that the driver compiles for newer ones.
  set(_gx_fatbin "${CMAKE_CURRENT_BINARY_DIR}/gpu_exec/workload.fatbin")
  set(_gx_fatbin_c "${CMAKE_CURRENT_BINARY_DIR}/gpu_exec/workload_fatbin.c")
  add_custom_command(OUTPUT "${_gx_fatbin}"
    COMMAND ${CMAKE_COMMAND} -E make_directory "${CMAKE_CURRENT_BINARY_DIR}/gpu_exec"
    COMMAND "${_gx_nvcc}" --fatbin -O3
            -gencode arch=compute_80,code=sm_80
            -gencode arch=compute_90,code=sm_90
            -gencode arch=compute_90,code=compute_90
            -o "${_gx_fatbin}" "${CMAKE_CURRENT_LIST_DIR}/workload.cu"
    DEPENDS "${CMAKE_CURRENT_LIST_DIR}/workload.cu"
    COMMENT "nvcc: gpu_exec/workload.cu -> workload.fatbin (sm_80, sm_90, compute_90)"
    VERBATIM)
  add_custom_command(OUTPUT "${_gx_fatbin_c}"
    COMMAND ${CMAKE_COMMAND} -DIN=${_gx_fatbin} -DOUT=${_gx_fatbin_c} -DNAME=gx_workload_fatbin
            -P "${CMAKE_CURRENT_LIST_DIR}/embed.cmake"
    DEPENDS "${_gx_fatbin}" "${CMAKE_CURRENT_LIST_DIR}/embed.cmake"
    COMMENT "embed: workload.fatbin -> workload_fatbin.c"
    VERBATIM)
  target_sources(gpusched_core PRIVATE "${CMAKE_CURRENT_LIST_DIR}/exec_cuda.c" "${_gx_fatbin_c}")
  # SYSTEM: cuda.h is not ours to keep free of -Wpedantic remarks.
  target_include_directories(gpusched_core SYSTEM PRIVATE "${SIM_CUDA_INCLUDE_DIR}")
  find_package(Threads REQUIRED)
  target_link_libraries(gpusched_core PUBLIC ${CMAKE_DL_LIBS} Threads::Threads)
  target_compile_definitions(gpusched_core PUBLIC SIM_HAVE_CUDA=1)
  message(STATUS "gpusched: CUDA backend with ${_gx_nvcc} ${_gx_nvcc_version}")
  # The cuda backend's smoke test for a machine with a GPU (experiments/real/device.sh).
  add_executable(gx_smoke ${CMAKE_SOURCE_DIR}/tests/device/gx_smoke.c)
  target_link_libraries(gx_smoke PRIVATE gpusched_core)
  # A fake driver for CI (no GPU there): mock_cuda/libcuda.so.1 in the build folder,
  # which tests/test_exec_cuda.c loads through GPUSCHED_LIBCUDA to run this backend's
  # host code. sim_tests is defined after this file is included, so the top
  # CMakeLists.txt hands the path to it: MOCK_LIBCUDA="${GPUSCHED_MOCK_LIBCUDA}"
  # and a dependency on ${GPUSCHED_MOCK_LIBCUDA_TARGET}.
  add_library(gpusched_mock_cuda SHARED ${CMAKE_SOURCE_DIR}/tests/mock_cuda/libcuda_mock.c)
  set_target_properties(gpusched_mock_cuda PROPERTIES
    PREFIX "lib" OUTPUT_NAME cuda SUFFIX ".so.1"
    LIBRARY_OUTPUT_DIRECTORY "${CMAKE_BINARY_DIR}/mock_cuda")
  target_include_directories(gpusched_mock_cuda SYSTEM PRIVATE "${SIM_CUDA_INCLUDE_DIR}")
  target_link_libraries(gpusched_mock_cuda PRIVATE Threads::Threads)
  set(GPUSCHED_MOCK_LIBCUDA_TARGET gpusched_mock_cuda)
  set(GPUSCHED_MOCK_LIBCUDA "${CMAKE_BINARY_DIR}/mock_cuda/libcuda.so.1")
else()
  set(GPUSCHED_MOCK_LIBCUDA_TARGET "")
  set(GPUSCHED_MOCK_LIBCUDA "")
  target_sources(gpusched_core PRIVATE "${CMAKE_CURRENT_LIST_DIR}/exec_nocuda.c")
  if(_gx_mode STREQUAL "OFF")
    message(STATUS "gpusched: CUDA backend off (SIM_CUDA=OFF); cpu backend only")
  else()
    message(STATUS "gpusched: no nvcc found; CUDA backend not built (cpu backend only)")
  endif()
endif()
