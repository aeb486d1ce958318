# softfloat_public_headers(<target> <folder>): <folder>/softfloat/ holds public headers
# of <target> that live beside their feature's sources (block_formats/include,
# cost/include, experiments/NAME/include). The folder joins the target's include path in
# the build tree, and its softfloat/ is installed into include/softfloat/ with the core
# headers, so that `#include "softfloat/mx.hpp"` works both in the build tree and
# installed. The headers belong to the install component `library`.
function(softfloat_public_headers target folder)
  target_include_directories(${target} PUBLIC $<BUILD_INTERFACE:${folder}>)
  install(DIRECTORY ${folder}/softfloat DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
          COMPONENT library FILES_MATCHING PATTERN "*.hpp")
endfunction()
