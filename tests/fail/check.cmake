# tests/fail/check.cmake -- runs one compile-fail test (cmake -P; see tests/CMakeLists.txt).
#   VARIANT=ok: TARGET's source (the snippet without FUSEGRAD_FAIL) must compile.
#   VARIANT=ko: TARGET's source (with FUSEGRAD_FAIL) must not compile, and the first error line of
#               the diagnostic must match the CMake regex on SOURCE's first line, "// expect: <regex>";
#               an optional second line "// also: <regex>" must match somewhere in the diagnostic. The
#               diagnostic holds one error line: a mistake is one error, with no knock-on errors after it.
# The compiler runs directly, with TARGET's command from BUILD_DIR/compile_commands.json and
# -fsyntax-only: the tests never run the build tool on the build tree, so they run in parallel.
foreach(var BUILD_DIR TARGET SOURCE VARIANT)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "check.cmake: -D${var}=... is required")
  endif()
endforeach()

file(READ ${BUILD_DIR}/compile_commands.json commands)
string(FIND "${commands}" "/${TARGET}.dir/" at)
if(at EQUAL -1)
  message(FATAL_ERROR "check.cmake: ${BUILD_DIR}/compile_commands.json has no command for ${TARGET} "
                      "(configure with CMAKE_EXPORT_COMPILE_COMMANDS=ON)")
endif()
string(SUBSTRING "${commands}" 0 ${at} before)
string(FIND "${before}" "\"directory\": \"" entry REVERSE)
string(SUBSTRING "${commands}" ${entry} -1 entry_text)
if(NOT entry_text MATCHES "^\"directory\": \"([^\"]*)\",[ \n]*\"command\": \"([^\n]*)\",[ \n]*\"file\"")
  message(FATAL_ERROR "check.cmake: cannot read ${TARGET}'s entry in ${BUILD_DIR}/compile_commands.json")
endif()
set(directory "${CMAKE_MATCH_1}")
string(REPLACE "\\\"" "\"" command "${CMAKE_MATCH_2}")
separate_arguments(command UNIX_COMMAND "${command}")
list(FIND command "-o" output_flag)
if(NOT output_flag EQUAL -1)
  math(EXPR object_file "${output_flag} + 1")
  list(REMOVE_AT command ${output_flag} ${object_file})
endif()
execute_process(COMMAND ${command} -fsyntax-only WORKING_DIRECTORY ${directory}
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
# The first error line must say what is wrong by itself.
if(NOT output MATCHES "[^\n]*error:[^\n]*")
  message("${output}")
  message(FATAL_ERROR "${SOURCE}: it does not compile, as expected, but the output (above) has no error: line")
endif()
set(first_error "${CMAKE_MATCH_0}")
if(NOT first_error MATCHES "${expect}")
  message("${output}")
  message(FATAL_ERROR "${SOURCE}: it does not compile, as expected, but the first error line\n  ${first_error}\n"
                      "does not match\n  ${expect}")
endif()
if(also AND NOT output MATCHES "${also}")
  message("${output}")
  message(FATAL_ERROR "${SOURCE}: the diagnostic (above) does not match '${also}'")
endif()
# An error line as g++ begins one: file:line:column: error: (or fatal error:), at the start of a line.
string(REGEX MATCHALL "\n[^ \n][^\n]*:[0-9]+:[0-9]+: (fatal )?error: " error_lines "\n${output}")
list(LENGTH error_lines error_count)
if(NOT error_count EQUAL 1)
  message("${output}")
  message(FATAL_ERROR "${SOURCE}: the diagnostic (above) holds ${error_count} error lines; a mistake must be one error")
endif()
message(STATUS "${SOURCE}: does not compile, as expected, with one error, whose line matches '${expect}'")
