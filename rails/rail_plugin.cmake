# corridor_add_rail_plugin(<target> [OUTPUT_DIR dir] SOURCES src...)
#
# Builds one rail plugin as a MODULE library named <target>.so (no "lib" prefix), the file name the
# loader looks for in plugins.dir when plugins.rails lists <target>. C++20, position-independent,
# symbols hidden by default, --no-undefined (a missing symbol is a build error, not a load error),
# and a version script that leaves corridor_rail_entry (marked CORRIDOR_RAIL_EXPORT) the plugin's
# only export: without it the standard library's weak template instantiations would be exported
# beside the entry point.
#
# The same file serves the source tree (rails/rail_plugin.cmake, plugins land in
# ${CMAKE_BINARY_DIR}/plugins) and the installed CMake package CorridorRailSdk (plugins land in the
# current binary folder unless OUTPUT_DIR says otherwise). Whoever includes it sets
# CORRIDOR_RAIL_SDK_TARGET (the SDK's interface target) and may set CORRIDOR_RAIL_PLUGIN_OUTPUT_DIR.
if(NOT CORRIDOR_RAIL_SDK_TARGET)
  message(FATAL_ERROR "rail_plugin.cmake: set CORRIDOR_RAIL_SDK_TARGET before including it")
endif()
set(CORRIDOR_RAIL_EXPORTS_MAP ${CMAKE_CURRENT_LIST_DIR}/corridor_rail_exports.map)

function(corridor_add_rail_plugin target)
  cmake_parse_arguments(ARG "" "OUTPUT_DIR" "SOURCES" ${ARGN})
  if(NOT ARG_SOURCES)
    message(FATAL_ERROR "corridor_add_rail_plugin(${target}): SOURCES is required")
  endif()
  if(NOT ARG_OUTPUT_DIR)
    if(CORRIDOR_RAIL_PLUGIN_OUTPUT_DIR)
      set(ARG_OUTPUT_DIR ${CORRIDOR_RAIL_PLUGIN_OUTPUT_DIR})
    else()
      set(ARG_OUTPUT_DIR ${CMAKE_CURRENT_BINARY_DIR})
    endif()
  endif()
  add_library(${target} MODULE ${ARG_SOURCES})
  target_link_libraries(${target} PRIVATE ${CORRIDOR_RAIL_SDK_TARGET})
  target_compile_features(${target} PRIVATE cxx_std_20)
  set_target_properties(${target} PROPERTIES
    PREFIX ""
    LIBRARY_OUTPUT_DIRECTORY ${ARG_OUTPUT_DIR}
    POSITION_INDEPENDENT_CODE ON
    CXX_VISIBILITY_PRESET hidden
    C_VISIBILITY_PRESET hidden
    VISIBILITY_INLINES_HIDDEN ON
    LINK_DEPENDS ${CORRIDOR_RAIL_EXPORTS_MAP})
  target_link_options(${target} PRIVATE -Wl,--no-undefined
    -Wl,--version-script=${CORRIDOR_RAIL_EXPORTS_MAP})
endfunction()
