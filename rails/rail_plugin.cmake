# corridor_add_rail_plugin(<target> [OUTPUT_DIR dir] SOURCES src...)
#
# Builds one rail plugin as a MODULE library named <target>.so (no "lib" prefix), the file name the
# loader looks for in plugins.dir when plugins.rails lists <target>. Symbols are hidden by default,
# and a version script makes
# corridor_rail_entry (marked CORRIDOR_RAIL_EXPORT) the plugin's only export. Plugins land in
# ${CMAKE_BINARY_DIR}/plugins unless OUTPUT_DIR says otherwise.
set(CORRIDOR_RAIL_EXPORTS_MAP ${CMAKE_BINARY_DIR}/corridor_rail_exports.map)
file(WRITE ${CORRIDOR_RAIL_EXPORTS_MAP} "{ global: corridor_rail_entry; local: *; };\n")

function(corridor_add_rail_plugin target)
  cmake_parse_arguments(ARG "" "OUTPUT_DIR" "SOURCES" ${ARGN})
  if(NOT ARG_OUTPUT_DIR)
    set(ARG_OUTPUT_DIR ${CMAKE_BINARY_DIR}/plugins)
  endif()
  add_library(${target} MODULE ${ARG_SOURCES})
  target_link_libraries(${target} PRIVATE corridor_rail_sdk)
  set_target_properties(${target} PROPERTIES
    PREFIX ""
    LIBRARY_OUTPUT_DIRECTORY ${ARG_OUTPUT_DIR}
    CXX_VISIBILITY_PRESET hidden
    C_VISIBILITY_PRESET hidden
    VISIBILITY_INLINES_HIDDEN ON)
  # A plugin links nothing of the host; undefined symbols are a build error, not a load error.
  # The version script keeps even template instantiations of the standard library local.
  target_link_options(${target} PRIVATE -Wl,--no-undefined -Wl,--version-script=${CORRIDOR_RAIL_EXPORTS_MAP})
endfunction()
