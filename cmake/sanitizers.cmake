# sanitizers.cmake — the sanitizer build and the fuzzers' switches (included from the top-level
# CMakeLists.txt before any target, so the flags reach every target).
#
#   cmake --preset asan && cmake --build --preset asan && ctest --preset asan
#
# The `asan` preset (CMakePresets.json) builds the CPU suite with clang and
# -fsanitize=address,undefined, builds the libFuzzer harnesses of tests/fuzz, and runs them from
# CTest for TILEKIT_FUZZ_SECONDS each; the sanitizer runtime options live in its test preset.

set(TILEKIT_SANITIZE "" CACHE STRING
    "Sanitizers for every C++ target, as -fsanitize takes them (e.g. address,undefined); empty: none")
option(TILEKIT_BUILD_FUZZERS "Build the libFuzzer harnesses in tests/fuzz (needs clang)" OFF)
set(TILEKIT_FUZZ_SECONDS 60 CACHE STRING "How long CTest runs each fuzzer (-max_total_time)")

if(TILEKIT_SANITIZE)
  if(TILEKIT_WITH_CUDA)
    # The CUDA runtime maps memory where ASan keeps its shadow; GPU code has compute-sanitizer.
    message(FATAL_ERROR "TILEKIT_SANITIZE needs a CPU-only build (-DTILEKIT_CUDA=OFF)")
  endif()
  message(STATUS "tilekit: sanitizers ${TILEKIT_SANITIZE}")
  # Frame pointers for whole stack traces; no recovery, so the first finding fails the test.
  add_compile_options(-fsanitize=${TILEKIT_SANITIZE} -fno-omit-frame-pointer
                      -fno-sanitize-recover=all)
  add_link_options(-fsanitize=${TILEKIT_SANITIZE})
endif()
