# reliability.cmake - included by tests/CMakeLists.txt. The tests behind the figures of
# docs/reliability.md: device-free unit tests, bad input, threads, device faults, and
# the sanitizer, valgrind, static-analysis and fuzzing runs of the CI build.

option(BICL_HOST_ONLY "Configure only the tests that need no OpenCL device (sub-builds)" OFF)
option(BICL_FUZZ "Build the libFuzzer target (clang; the fuzz sub-build sets it)" OFF)

# Needs no device and makes no OpenCL call: the subject of the sanitizer and valgrind runs.
bicl_add_test(test_host)

if(BICL_FUZZ)
  add_executable(fuzz_validation fuzz/fuzz_validation.c)
  target_link_libraries(fuzz_validation PRIVATE bicl_internal)
  target_link_options(fuzz_validation PRIVATE -fsanitize=fuzzer)
endif()
if(BICL_HOST_ONLY)
  return()
endif()

# ------------------------------------------------------------ device tests
bicl_add_test(test_badinput)
bicl_add_test(test_concurrency)

# Device faults: a preloaded shim makes chosen OpenCL entry points fail on demand.
add_library(bicl_faultinject MODULE faultinject.c)
target_include_directories(bicl_faultinject PRIVATE ${CMAKE_CURRENT_SOURCE_DIR})
target_link_libraries(bicl_faultinject PRIVATE OpenCL::OpenCL ${CMAKE_DL_LIBS})
target_compile_options(bicl_faultinject PRIVATE ${BICL_C_FLAGS})
bicl_add_test(test_faults)
target_link_libraries(test_faults PRIVATE ${CMAKE_DL_LIBS})
add_dependencies(test_faults bicl_faultinject)
# ASan wants its runtime first in the library list; the shim is preloaded before it.
set_tests_properties(test_faults PROPERTIES ENVIRONMENT
  "${BICL_TEST_ENV};LD_PRELOAD=$<TARGET_FILE:bicl_faultinject>;ASAN_OPTIONS=verify_asan_link_order=0")

# ------------------------------------------------- sanitizers, valgrind, fuzz
set(BICL_RELIABILITY_DIR ${CMAKE_BINARY_DIR}/reliability)
if(NOT BICL_SANITIZE)
  # This build is not sanitized: a host-only sub-build is (seconds, not a second build).
  add_test(NAME host_asan_ubsan
           COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/reliability/subbuild.sh sanitize
                   ${PROJECT_SOURCE_DIR} ${BICL_RELIABILITY_DIR}/sanitize ${CMAKE_C_COMPILER})
  # the sub-build finds the libraries where this build found them (a rig's /opt/rig)
  set_tests_properties(host_asan_ubsan PROPERTIES TIMEOUT 600
                       ENVIRONMENT "BICL_PREFIX_PATH=${CMAKE_PREFIX_PATH}")
  add_test(NAME host_valgrind
           COMMAND sh -c "command -v valgrind >/dev/null || { echo 'no valgrind: skipped'; exit 77; }
exec valgrind --error-exitcode=1 --leak-check=full --show-leak-kinds=all --errors-for-leak-kinds=all --track-origins=yes \"$0\""
                   $<TARGET_FILE:test_host>)
  set_tests_properties(host_valgrind PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 600)
  # The config.json reader's test is device-free too. Its process-wide list of parsed
  # arrays stays allocated (reachable) at exit, so only real leaks count there.
  if(EXISTS ${CMAKE_CURRENT_SOURCE_DIR}/test_hfconfig.c)
    add_test(NAME hfconfig_valgrind
             COMMAND sh -c "command -v valgrind >/dev/null || { echo 'no valgrind: skipped'; exit 77; }
exec valgrind --error-exitcode=1 --leak-check=full --show-leak-kinds=all --errors-for-leak-kinds=definite,indirect,possible --track-origins=yes \"$0\""
                     ${CMAKE_CURRENT_BINARY_DIR}/test_hfconfig)
    set_tests_properties(hfconfig_valgrind PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 600)
  endif()
endif()
add_test(NAME fuzz_validation
         COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/reliability/subbuild.sh fuzz ${PROJECT_SOURCE_DIR}
                 ${BICL_RELIABILITY_DIR}/fuzz ${CMAKE_C_COMPILER} 60)
set_tests_properties(fuzz_validation PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 600
                     ENVIRONMENT "BICL_PREFIX_PATH=${CMAKE_PREFIX_PATH}")
add_test(NAME static_analysis
         COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/reliability/static_analysis.sh ${PROJECT_SOURCE_DIR})
set_tests_properties(static_analysis PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 600)
# The header filter of a checkout inside a folder named src (and one with regex
# characters in its path) takes the project's src/ and include/bicl/ headers, never cl/.
add_test(NAME static_analysis_header_filter
         COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/reliability/header_filter_test.sh
                 ${CMAKE_CURRENT_SOURCE_DIR}/reliability/static_analysis.sh
                 ${CMAKE_CURRENT_BINARY_DIR}/header_filter_test)
