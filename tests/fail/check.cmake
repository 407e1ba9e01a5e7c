# tests/fail/check.cmake -- runs one compile-fail test (cmake -P; see tests/CMakeLists.txt).
#   VARIANT=ok: building TARGET (the snippet without FUSEGRAD_FAIL) must succeed.
#   VARIANT=ko: building TARGET (with FUSEGRAD_FAIL) must fail, and the first error line of the
#               diagnostic must match the CMake regex on SOURCE's first line, "// expect: <regex>";
#               an optional second line "// also: <regex>" must match somewhere in the diagnostic.
foreach(var BUILD_DIR TARGET SOURCE VARIANT)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "check.cmake: -D${var}=... is required")
  endif()
endforeach()

set(config_args)
if(CONFIG)
  set(config_args --config ${CONFIG})
endif()
execute_process(COMMAND ${CMAKE_COMMAND} --build ${BUILD_DIR} --target ${TARGET} ${config_args}
                RESULT_VARIABLE result OUTPUT_VARIABLE output ERROR_VARIABLE output)

if(VARIANT STREQUAL "ok")
  if(NOT result EQUAL 0)
    message("${output}")
    message(FATAL_ERROR "${SOURCE}: the legal twin (without FUSEGRAD_FAIL) does not compile (output above)")
  endif()
  message(STATUS "${SOURCE}: the legal twin compiles")
  return()
endif()

if(result EQUAL 0)
  message(FATAL_ERROR "${SOURCE}: compiled with FUSEGRAD_FAIL defined, but it must not compile")
endif()
file(READ ${SOURCE} text LIMIT 4096)
if(NOT text MATCHES "^// expect: ([^\n]+)")
  message(FATAL_ERROR "${SOURCE}: the first line must be '// expect: <regex>'")
endif()
set(expect "${CMAKE_MATCH_1}")
set(also "")
if(text MATCHES "^[^\n]*\n// also: ([^\n]+)")
  set(also "${CMAKE_MATCH_1}")
endif()
# message() without a mode prints the compiler output as is; FATAL_ERROR would re-wrap it.
# Ninja echoes the failed command line (it holds the file name and -DFUSEGRAD_FAIL); drop it so
# that the regexes can only match what the compiler said.
string(REGEX REPLACE "FAILED: [^\n]*\n[^\n]*\n" "" diagnostics "${output}")
# The first error line must say what is wrong by itself.
if(NOT diagnostics MATCHES "[^\n]*error:[^\n]*")
  message("${diagnostics}")
  message(FATAL_ERROR "${SOURCE}: it does not compile, as expected, but the output (above) has no error: line")
endif()
set(first_error "${CMAKE_MATCH_0}")
if(NOT first_error MATCHES "${expect}")
  message("${diagnostics}")
  message(FATAL_ERROR "${SOURCE}: it does not compile, as expected, but the first error line\n  ${first_error}\n"
                      "does not match\n  ${expect}")
endif()
if(also AND NOT diagnostics MATCHES "${also}")
  message("${diagnostics}")
  message(FATAL_ERROR "${SOURCE}: the diagnostic (above) does not match '${also}'")
endif()
message(STATUS "${SOURCE}: does not compile, as expected; its first error line matches '${expect}'")
