# Warnings every target in the project gets (see shared style: an unhandled enum case fails the build).
function(coh_set_warnings target)
  target_compile_options(${target} PRIVATE
    $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wpedantic -Werror=switch -Werror=return-type -Wno-missing-field-initializers>)
endfunction()
