# fusegradWarnings.cmake -- fusegrad_target_warnings(tgt): warnings for fusegrad's own targets only.
# The library target itself carries no flags: consumers choose their own warnings.

# fusegrad_target_warnings(<target>)
# Adds -Wall -Wextra -Wpedantic (/W4 /permissive- on MSVC) and, when FUSEGRAD_WERROR is ON, -Werror (/WX).
function(fusegrad_target_warnings target)
  if(MSVC)
    target_compile_options(${target} PRIVATE /W4 /permissive-)
    if(FUSEGRAD_WERROR)
      target_compile_options(${target} PRIVATE /WX)
    endif()
  else()
    target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic)
    if(FUSEGRAD_WERROR)
      target_compile_options(${target} PRIVATE -Werror)
    endif()
  endif()
endfunction()
